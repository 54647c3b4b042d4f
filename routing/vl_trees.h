// The routes of the VL engines (lash, dfsssp): one tree per destination LID, grown from the
// destination's switch over weighted channels whose weight is a base cost plus the CA routes
// already placed on them, so later destinations go round the loaded links and the whole
// fabric's load is balanced (Domke, Hoefler and Nagel, "Deadlock-Free Oblivious Routing for
// Arbitrary Topologies", IPDPS 2011). lash keeps to shortest paths (the load only breaks
// ties); dfsssp takes any path (Dijkstra). Deadlock freedom is left to vl_layers.h.
#pragma once

#include <string>
#include <string_view>

#include "mad/error.h"
#include "routing/engine.h"
#include "routing/fabric_view.h"
#include "routing/tables.h"

namespace routing {

struct TreeOptions {
  bool min_hop = false;  // only shortest paths (lash); false: any path (dfsssp)
  unsigned threads = 0;
  // 0: a tree per destination LID (the best balance). k > 0: the LIDs of a switch share k
  // trees (its ports' ranks mod k): fewer distinct dependencies, so fewer VLs.
  unsigned trees_per_switch = 0;
  // Shortest paths only: a switch takes the parent whose path's busiest channel is least
  // loaded, instead of the least total load on the way (fewer VLs where trees are shared).
  bool bottleneck = false;
  // A tree per destination LID, LMC 0, within a memory budget: passes that take each tree out
  // of the loads and grow it again over what the others left (rip-up and reroute); the
  // trees after the pass with the least loaded busiest channel are kept (the first growth
  // when no pass beats it).
  unsigned reroute_passes = 0;
};

// LFTs for every destination LID of `fv` (reachable switches only; the others are in the
// diagnostics as unrouted). `note` gets a summary (trees, busiest channel), `busiest` the CA
// routes on the busiest channel.
RoutingTables route_trees(const FabricView& fv, const TreeOptions& opts, std::string& note, uint64_t& busiest);

// The VL engines' compute(): trees, then layers (vl_layers.h). A tree per destination LID
// first, with two rerouting passes where TreeOptions::reroute_passes applies (then, if its
// layers do not fit, once more without); when its layers need more than opts.max_vls, fewer distinct trees (as OpenSM's
// engines route: fewer VLs, less balance): on fabrics within a work budget 3, 2 and 1 trees
// per switch, for lash each with both parent rules, and the one that fits with the least
// loaded busiest channel wins; on larger ones 2 then 1, the first that fits. The error of the
// last when none fits.
mad::Result<RoutingTables> route_layered(const fabric::Topology& topo, const RoutingOptions& opts, bool min_hop,
                                         std::string_view engine);

}  // namespace routing
