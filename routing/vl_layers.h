// Virtual-lane layers for destination-based routes (lash, dfsssp): every route from a switch
// with endpoints (where a CA's packets enter the fabric) to a destination LID goes on one
// layer, its SL (SL i rides VL i), so that each layer's channel dependency graph is acyclic:
// the tables are then deadlock-free over that many VLs, whatever their paths.
//
// Channels are the directed switch-to-switch arcs; a route entering a switch on c and leaving
// on d adds c -> d to its layer. The routes are read back from the LFTs, so any tables can be
// layered. As OpenSM's lash, each route goes to a layer whose CDG stays acyclic with its
// dependencies (one ChannelOrder per layer, cdg_order.h), or to a new one: the longest routes
// first (they close the most cycles), best fit (the layer that holds most of its dependencies
// already, so similar routes gather); a route that is the tail of a placed one goes on that
// one's layer at no cost. Then the last layer is emptied into the others where it can be.
// Routes from switches without endpoints carry no CA traffic and keep SL 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mad/error.h"
#include "routing/fabric_view.h"
#include "routing/tables.h"

namespace routing {

// IB's data VLs (VL15 is management's): no engine may use more.
inline constexpr unsigned kMaxDataVls = 15;

// The destinations of `fv` (indices into dests()) in rounds: the first CA LID of every switch,
// then the second, ..., LMC paths after base LIDs, switch LIDs last. The VL engines route and
// layer in this order, so that consecutive destinations sit on different switches.
std::vector<uint32_t> dest_rounds(const FabricView& fv);

struct LayerStats {
  unsigned layers = 0;  // the VLs used (1 when every route fits on one)
  uint64_t routes = 0;  // (ingress switch, destination LID) routes layered
};

// Sets the SLs of `tables` (routes are collected in parallel; the result does not depend on
// `threads`). Fails, saying how many VLs it would need, when that is more than `max_vls`;
// without `count`, as soon as it knows it needs more (an attempt that another follows).
mad::Result<LayerStats> assign_layers(const FabricView& fv, RoutingTables& tables, unsigned max_vls,
                                      unsigned threads, bool count = true);

}  // namespace routing
