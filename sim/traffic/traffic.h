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

// How adaptive switches place flows (static switches follow their LFTs whatever this says).
struct Placement {
  uint64_t seed = 1;                     // ties
  Net::Choice choice = Net::Choice::path;
  // Rounds over the flows: the first places each seeing those before it; each further one
  // takes every flow out and places it again seeing all the others (adaptive routing
  // settling as traffic runs).
  unsigned passes = 3;
  // Adaptive routing decides per packet, so one flow's packets take several ways: each flow
  // is placed as this many equal parts (1: a flow takes one path).
  unsigned split = 4;
  unsigned fanout = 4;  // Choice::path: ports weighed at each adaptive switch (see Net::route)
};

struct TrafficOptions {
  double message_bytes = 1 << 20;  // per flow (x its weight, x the phase's share)
  Placement placement;
  size_t max_rounds = 64;          // re-solves per phase as flows finish; then at the rates then
};

// Flows placed in order, each routed (an adaptive switch seeing the load of the others):
// routes as CSR, one per flow through static switches, `split` per flow where adaptive ones
// are (the parts of a flow are consecutive). An unrouted flow has one empty route.
struct Routes {
  std::vector<uint32_t> off{0};
  std::vector<ChannelId> path;
  std::vector<uint32_t> flow;  // route -> its flow
  std::vector<double> weight;  // route -> its flow's weight x its part
  size_t unrouted = 0;         // flows
};
void route_flows(const Net& net, std::span<const Flow> flows, const Placement& how, Routes& out);

// Max-min rates of the routes (Gb/s, capacities from the net), by route.
void solve_routes(const Net& net, const Routes& r, Allocation& out, SolverScratch& scratch);
// A flow's rate: the sum of its routes'.
std::vector<double> flow_rates(const Routes& r, const Allocation& a, size_t flows);

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
  // By channel: what its flows would send, each at its source's link rate (Gb/s; several
  // phases: time-weighted). Above the capacity, the channel is a point of congestion.
  std::vector<double> demand;
};

TrafficResult run_phases(const Net& net, std::span<const Phase> phases, const TrafficOptions& opts);
TrafficResult run_flows(const Net& net, std::span<const Flow> flows, const TrafficOptions& opts);

// The traffic's rates on the ports of a net made by Net::of (node references are the
// fabric's), for SimFabric::set_traffic: each channel's load out of its sending port and into
// its receiving one, and, on a full channel whose flows would send more, the waiting it causes
// at the sender: 1 - capacity / demand.
std::vector<PortRate> port_rates(const Net& net, const TrafficResult& r);

// The `n` busiest channels, busiest first (ties by channel id).
std::vector<ChannelId> hottest(std::span<const double> utilisation, size_t n);

}  // namespace sim::traffic
