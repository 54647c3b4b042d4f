// The routing cores that adaptive-hint shares with minhop and ftree. (The engines' factories
// are declared beside the one table that lists them, routing/registry.cpp.)
#pragma once

#include <memory>

#include "routing/engine.h"
#include "routing/fabric_view.h"
#include "routing/hints.h"
#include "routing/levels.h"

namespace routing {

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
