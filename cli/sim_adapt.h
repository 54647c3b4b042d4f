// `fabricsm sim --traffic PATTERN --adapt [ROUNDS]`: the closed loop on the simulated fabric.
// The traffic runs; the PerfMgr reads the simulated PMAs on virtual time; the service's
// traffic hints (sm/adapt/) make adaptive-hint route off the hot cables; once the SM has
// programmed a round's tables the traffic runs again over them (as a real job's flows would
// take the new routes), and so on until ROUNDS re-routes or until counter sweeps pass with
// no change (converged). Each round is what the next measurement saw.
#pragma once

#include <string>
#include <vector>

#include "cli/json.h"
#include "cli/sim_traffic.h"
#include "mad/error.h"
#include "service/service.h"
#include "sim/fabric.h"
#include "sim/sim_transport.h"

namespace cli {

struct AdaptRound {
  uint64_t round = 0;   // 0: before any hint
  uint64_t sweep = 0;   // the SM's sweep that put the round's tables in place (0 for round 0)
  size_t hot = 0;       // hot channels the round relieved
  size_t moved_destinations = 0, moved_entries = 0;
  uint64_t lft_blocks = 0;  // written by that sweep
  double fabric_s = 0;      // virtual time since the loop began
  double max_utilisation = 0, max_switch_utilisation = 0, max_offered = 0;
  double completion_s = 0, aggregate_gbps = 0, mean_rate = 0;
  std::vector<HotLink> hottest;
};

struct AdaptOutcome {
  std::vector<AdaptRound> rounds;
  bool converged = false;     // counter sweeps passed with no further round
  size_t quiet_sweeps = 0;    // ... how many, after the last round
  size_t counter_sweeps = 0;  // over the whole loop
  double wall_s = 0;
};

struct AdaptOptions {
  size_t max_rounds = 3;
  size_t quiet_sweeps = 3;  // converged after this many counter sweeps without a round
  size_t max_counter_sweeps = 64;  // gives up (not converged) after this many in all
};

// Runs the loop from a subnet that is up and `first`, the traffic already running over it.
mad::Result<AdaptOutcome> run_adapt_loop(service::Service& service, sim::SimFabric& f, sim::SimTransport& transport,
                                         const TrafficRunOptions& traffic, const TrafficOutcome& first,
                                         const AdaptOptions& o);

std::string text_adapt(const AdaptOutcome& a);
Json json_adapt(const AdaptOutcome& a);

}  // namespace cli
