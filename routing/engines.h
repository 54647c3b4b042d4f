// The engines of the registry, and the routing cores that adaptive-hint shares with them.
#pragma once

#include <memory>

#include "routing/engine.h"
#include "routing/fabric_view.h"
#include "routing/hints.h"
#include "routing/levels.h"

namespace routing {

std::unique_ptr<Engine> make_minhop_engine();
std::unique_ptr<Engine> make_updn_engine();
std::unique_ptr<Engine> make_ftree_engine();
std::unique_ptr<Engine> make_adaptive_hint_engine();

// How a core should route, beyond the fabric itself.
struct CoreOptions {
  unsigned threads = 0;
  const PortWeights* weights = nullptr;  // hinted links; null = none
  bool alternatives = false;             // also record the equally good ports
};

// Shortest paths with port balancing (minhop.cpp).
mad::Result<RoutingTables> minhop_route(const FabricView& fv, const CoreOptions& opts);

// Fat-tree routing over levels that passed fat_tree_violation() (ftree.cpp).
mad::Result<RoutingTables> ftree_route(const FabricView& fv, const Levels& lv,
                                       const CoreOptions& opts);

}  // namespace routing
