// Root switches for up*/down* routing, and the BFS ranks they give.
//  - Configured: the switches named by RoutingOptions::root_guids.
//  - A tree (every link joins adjacent fat-tree levels, see levels.h): the switches with no
//    neighbour above them, i.e. the top of each column of the tree. On a degraded tree this
//    keeps every surviving spine a root, where "the highest level" alone could elect a single
//    switch that lost its leaf links.
//  - Anything else (torus, random graph, CAs on every switch): the centre of the graph, the
//    switch of minimum eccentricity (lowest GUID on ties), so that ranks stay shallow.
// A connected component that the chosen roots do not reach gets its own centre as root.
#pragma once

#include <string>
#include <vector>

#include "mad/error.h"
#include "routing/engine.h"
#include "routing/fabric_view.h"

namespace routing {

struct RootChoice {
  std::vector<SwIdx> roots;
  std::vector<uint32_t> rank;  // per switch: BFS hops from the nearest root
  std::string how;             // one line for the log
};

mad::Result<RootChoice> choose_roots(const FabricView& fv, const RoutingOptions& opts);

}  // namespace routing
