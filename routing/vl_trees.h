// The routes of the VL engines (lash, dfsssp): one tree per destination LID, grown from the
// destination's switch over weighted channels whose weight is a base cost plus the CA routes
// already placed on them, so later destinations go round the loaded links and the whole
// fabric's load is balanced (Domke, Hoefler and Nagel, "Deadlock-Free Oblivious Routing for
// Arbitrary Topologies", IPDPS 2011). lash keeps to shortest paths (the load only breaks
// ties); dfsssp takes any path (Dijkstra). Deadlock freedom is left to vl_layers.h.
#pragma once

#include <string>

#include "mad/error.h"
#include "routing/fabric_view.h"
#include "routing/tables.h"

namespace routing {

struct TreeOptions {
  bool min_hop = false;  // only shortest paths (lash); false: any path (dfsssp)
  unsigned threads = 0;
};

// LFTs for every destination LID of `fv` (reachable switches only; the others are in the
// diagnostics as unrouted). `note` gets a summary (busiest channel, batch size).
RoutingTables route_trees(const FabricView& fv, const TreeOptions& opts, std::string& note);

}  // namespace routing
