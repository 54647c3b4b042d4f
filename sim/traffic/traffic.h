// What a traffic pattern gets through a fabric: every flow routed as the switches forward
// (sim/traffic/net.h), rates max-min fair over every channel (sim/traffic/solver.h), and from
// those the aggregate throughput, each channel's utilisation and the completion time for a
// message size (re-solved as flows finish and free bandwidth). A pure function of (Net, flows,
// options): the CLI, the PMA's traffic, and studies all call it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/traffic/net.h"
#include "sim/traffic/patterns.h"
#include "sim/traffic/solver.h"

namespace sim::traffic {

struct TrafficOptions {
  double message_bytes = 1 << 20;  // per flow (x its weight, x the phase's share)
  uint64_t seed = 1;               // adaptive switches' ties
  size_t max_rounds = 64;          // re-solves per phase as flows finish; then at the rates then
};

// Flows placed in order, each routed (an adaptive switch seeing the load of those before it);
// `paths` as CSR. Unrouted flows get an empty path.
struct Routes {
  std::vector<uint32_t> off{0};
  std::vector<ChannelId> path;
  size_t unrouted = 0;
};
void route_flows(const Net& net, std::span<const Flow> flows, uint64_t seed, Routes& out);

// Max-min rates of flows already routed, with capacities from the net (Gb/s).
void solve_routes(const Net& net, const Routes& r, std::span<const Flow> flows, Allocation& out,
                  SolverScratch& scratch);

struct TrafficResult {
  size_t flows = 0;               // over all phases
  size_t unrouted = 0;
  size_t phases = 0;
  double aggregate_gbps = 0;      // the sum of the flows' rates (several phases: time-weighted)
  double mean_rate = 0;           // mean flow rate relative to its source's link rate
  double min_rate = 0;            // the slowest flow, relative to its source's link rate
  double completion_s = 0;        // all phases, message_bytes per flow
  bool completion_exact = true;   // false: some phase needed more than max_rounds re-solves
  double max_utilisation = 0;
  std::vector<double> utilisation;  // by channel: load / capacity (several phases: time-weighted)
  std::vector<double> rate;         // by flow, Gb/s, at the start (a single phase only)
};

TrafficResult run_phases(const Net& net, std::span<const Phase> phases, const TrafficOptions& opts);
TrafficResult run_flows(const Net& net, std::span<const Flow> flows, const TrafficOptions& opts);

// The `n` busiest channels, busiest first (ties by channel id).
std::vector<ChannelId> hottest(std::span<const double> utilisation, size_t n);

}  // namespace sim::traffic
