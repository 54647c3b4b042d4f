// Lower bounds for the routing metrics (fabric/metrics.h) of a fabric, whatever the routing:
// cut bounds. For a set S of switches (with their CAs; n of the N CAs) and the c directed
// switch-to-switch channels leaving S (up links, as the metrics count them):
//  - all-to-all: the n (N - n) routes from S to the rest cross those c channels, so one of
//    them carries at least ceil(n (N - n) / c) (a route follows one path: no split flows);
//  - shift k (CAs in leaf order, CA i sends to CA i+k): the CAs of S whose destination lies
//    outside S, f of them, cross the same channels, so that shift's busiest link carries at
//    least ceil(f / c).
// Every cut gives a valid bound, so the bound is the best over the cuts tried: every switch
// with CAs (leaf cuts), the groups a tree's upper tiers hold together (pods), and bisection-
// like cuts grown from seed switches and refined (fabric/cut_search.h), which find the
// coordinate half-cuts of tori and meshes. The shift bound is the mean, over the shifts the
// metrics evaluate (fabric::shift_list), of each shift's best cut.
// Pairs that cannot be routed at all (a cut no channel leaves) give no bound; CAs without a
// LID count as CAs (the bound is for a routing that routes them).
#pragma once

#include <cstdint>
#include <string>

#include "fabric/metrics.h"
#include "fabric/topology.h"

namespace fabric {

// The cut a bound comes from.
struct BoundCut {
  std::string what;       // "leaf S1_00_03", "pod 5", "bisection of 32 switches"
  uint64_t cas = 0;       // n: its CAs
  uint64_t channels = 0;  // c: directed switch-to-switch channels out of it
};

struct CutBounds {
  uint64_t ca_ports = 0;
  size_t cuts = 0;               // distinct cuts tried
  // Every routing of all CA pairs puts at least this many routes on one switch link
  // (RoutingFigures::max_link_load).
  uint64_t max_link_load = 0;
  BoundCut max_link_load_cut;
  // At least this mean over the shifts of the busiest link's routes (shift_congestion), and
  // in the worst shift at least shift_congestion_max.
  double shift_congestion = 0;
  uint64_t shift_congestion_max = 0;
  BoundCut shift_cut;            // the cut that gives the bound in the most shifts
  size_t shift_cut_shifts = 0;   // ... in that many
  size_t shifts = 0;             // as RoutingFigures::shifts
  bool shifts_sampled = false;
};

// Pure computation over the topology's switches, up links and CAs (no LFTs needed). The
// options choose the shifts, as they do for measure_routing.
CutBounds cut_bounds(const Topology& topo, const MetricsOptions& opts = {});

}  // namespace fabric
