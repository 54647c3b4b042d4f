// Routing metrics for research, measured on the simulated switches' own LFTs (what the
// hardware would do, not what an engine meant to do): fabric/metrics.h (all-to-all link loads
// and stretch, shift-permutation congestion in leaf order, the channel dependency graph) over
// the fabric as it is now — its present nodes, live links, port states and LIDs, and each
// switch's LFT up to its LinearFDBTop. Beside them, what no routing can beat on that fabric.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric/bounds.h"
#include "fabric/metrics.h"
#include "sim/fabric.h"

namespace sim {

using MetricsOptions = fabric::MetricsOptions;

struct LinkLoad {
  NodeIdx from;
  uint8_t from_port;
  NodeIdx to;
  uint8_t to_port;
  uint64_t routes;  // all-to-all CA pairs whose route crosses this link in this direction
};

struct MetricsReport : fabric::RoutingFigures {
  std::vector<LinkLoad> links;  // when asked for, by this fabric's node indices
};

MetricsReport measure_routing(const SimFabric& f, const MetricsOptions& opts = {});

// The cut lower bounds of those figures (fabric/bounds.h) for the fabric as it is now, over
// the shifts the same options give.
fabric::CutBounds cut_bounds(const SimFabric& f, const MetricsOptions& opts = {});

}  // namespace sim
