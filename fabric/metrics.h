// Routing metrics: what a fabric's forwarding tables do, measured over the tables themselves
// (not over what an engine meant them to do). The one implementation behind the simulator's
// report (sim/metrics.h, the simulated switches' own LFTs) and the routing tests' checks
// (RoutingTables):
//  - all-to-all: routes per directed switch-to-switch link (max, mean), path stretch against
//    the shortest path the cabling allows;
//  - shift permutations with CAs in leaf order (CA i sends to CA i+k): the largest number of
//    routes sharing one link, averaged over the shifts (1.0 = no congestion);
//  - the channel dependency graph of all routes: acyclic means deadlock-free on one VL.
// What counts as what, as the hardware forwards:
//  - a link is up when both ports are cabled and Init or better; a hop is usable when its link
//    is up and both ends are Active; an LFT entry beyond the span given is no route;
//  - the CAs are the CA (and router) ports on an up link to a switch, in leaf order: switches
//    in NodeId (GUID) order, then by switch port;
//  - loads, stretch and shifts follow each CA's base LID; the dependency graph the routes to
//    all 2^LMC LIDs of every CA.
// Each (switch, destination LID) is resolved once and the CAs' routes are counted as flows,
// so the 39k-CA fabric takes seconds; shifts are sampled on large fabrics (and the report
// says so).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fabric/topology.h"

namespace fabric {

struct MetricsOptions {
  // Evaluate every shift up to this many CAs; above it, `sampled_shifts` evenly spaced ones
  // (0: no shifts at all).
  size_t all_shifts_up_to = 4096;
  size_t sampled_shifts = 256;
  bool keep_link_loads = false;  // fill MetricsReport::links
};

// The shifts k (CA i sends to CA i+k) measure_routing evaluates over `cas` CAs: every one of
// 1..cas-1, or evenly spaced samples above opts.all_shifts_up_to. Shared with the cut bounds
// (fabric/bounds.h), which must average over the same shifts.
struct ShiftList {
  std::vector<size_t> shifts;
  bool sampled = false;
};
ShiftList shift_list(size_t cas, const MetricsOptions& opts);

// The figures, without the per-link list (sim/metrics.h reports links by its own node ids).
struct RoutingFigures {
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
};

struct LinkLoad {
  NodeId from;
  PortNum from_port;
  NodeId to;
  PortNum to_port;
  uint64_t routes;  // all-to-all CA pairs whose route crosses this link in this direction
};

struct MetricsReport : RoutingFigures {
  std::vector<LinkLoad> links;  // when asked for: every directed switch link, by switch and port
};

// `lfts[id]`: the LFT of switch `id` (entry l = output port for LID l), empty or absent for
// CAs. Pure computation: nothing is kept.
MetricsReport measure_routing(const Topology& topo, std::span<const std::span<const uint8_t>> lfts,
                              const MetricsOptions& opts = {});

}  // namespace fabric
