// Routing metrics for research, measured on the simulated switches' own LFTs (what the
// hardware would do, not what an engine meant to do):
//  - all-to-all: routes per directed switch-to-switch link (max, mean), path stretch against
//    the shortest path the cabling allows;
//  - shift permutations with CAs in leaf order (CA i sends to CA i+k): the largest number of
//    routes sharing one link, averaged over the shifts (1.0 = no congestion);
//  - the channel dependency graph of all routes: acyclic means deadlock-free on one VL.
// Like the verifier, every (switch, destination) is resolved once, so the 39k-CA fabric
// takes seconds; shift permutations are sampled on large fabrics (and the report says so).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/fabric.h"

namespace sim {

struct MetricsOptions {
  // Evaluate every shift up to this many CAs; above it, `sampled_shifts` evenly spaced ones.
  size_t all_shifts_up_to = 4096;
  size_t sampled_shifts = 256;
  bool keep_link_loads = false;  // fill MetricsReport::links
};

struct LinkLoad {
  NodeIdx from;
  uint8_t from_port;
  NodeIdx to;
  uint8_t to_port;
  uint64_t routes;  // all-to-all CA pairs whose route crosses this link in this direction
};

struct MetricsReport {
  uint64_t ca_ports = 0;
  uint64_t pairs = 0;
  uint64_t unrouted = 0;           // pairs without a route (or in a loop)
  double stretch_mean = 0;         // mean over routed pairs of actual / shortest links
  double stretch_max = 0;
  uint64_t stretched_pairs = 0;    // routed pairs longer than their shortest path
  uint64_t switch_links = 0;       // directed switch-to-switch links (two per cable)
  uint64_t max_link_load = 0;      // all-to-all routes on the busiest directed link
  double mean_link_load = 0;       // over all directed switch-to-switch links
  double shift_congestion = 0;     // mean over shifts of the busiest link's route count
  uint64_t shift_congestion_max = 0;
  size_t shifts = 0;               // shifts evaluated
  bool shifts_sampled = false;
  bool cdg_acyclic = true;         // no cycle in the channel dependency graph
  uint64_t cdg_edges = 0;
  std::vector<LinkLoad> links;     // when asked for
};

MetricsReport measure_routing(const SimFabric& fabric, const MetricsOptions& opts = {});

}  // namespace sim
