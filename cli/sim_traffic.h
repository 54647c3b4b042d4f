// `fabricsm sim --traffic`: a traffic pattern over the simulated fabric once the subnet is up
// (sim/traffic/), adaptive switches fed with the routing tables' AR groups when asked, and
// what it got through: throughput, EBB or completion time, the hottest links by name.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/json.h"
#include "mad/error.h"
#include "sim/fabric.h"
#include "sim/spec.h"
#include "sim/traffic/ebb.h"
#include "sim/traffic/patterns.h"
#include "sim/traffic/traffic.h"
#include "sm/subnet.h"

namespace cli {

struct TrafficRunOptions {
  std::string pattern;  // empty: no traffic
  double message_bytes = 1 << 20;
  size_t bisections = 20;  // random-bisection: the EBB's
  uint64_t seed = 1;
  bool adaptive = false;
  size_t hottest = 5;
};

struct HotLink {
  std::string from;
  unsigned from_port;
  std::string to;
  unsigned to_port;
  double utilisation;
  double gbps;  // capacity
};

struct TrafficOutcome {
  std::string pattern;
  bool adaptive = false;
  size_t adaptive_switches = 0;
  std::string ar_source;  // whose AR groups the adaptive switches got
  uint64_t seed = 1;
  double message_bytes = 0;
  size_t cas = 0;
  sim::traffic::TrafficResult result;  // without its per-flow and per-channel vectors
  // The busiest channel's offered load over its capacity: what its flows would send at their
  // sources' link rates (1: just full; 4: four flows share it). Utilisation stops at 1; this
  // shows how oversubscribed the hot spot is.
  double max_offered = 0;
  double max_switch_utilisation = 0;  // of the switch-to-switch channels (CA links aside)
  std::optional<sim::traffic::EbbResult> ebb;  // random-bisection
  std::vector<HotLink> hottest;
  // Every loaded channel by its sending port (the fabric's node index): for the web view.
  struct PortLoad {
    sim::NodeIdx node;
    uint8_t port;
    double utilisation;
  };
  std::vector<PortLoad> ports;
  size_t channels = 0;  // every directed channel, loaded or not (CA links included)
  double wall_s = 0;
};

// Checks a pattern before anything runs: its name, and a flows file against the fabric's CA
// names (a bad line is reported with its file and line).
mad::Result<sim::traffic::Pattern> check_pattern(const std::string& text, const sim::FabricSpec& spec);

// Copies a routing's AR groups onto the simulated switches (by GUID) and turns them adaptive;
// where the tables have none (ftree, minhop, ...), adaptive-hint's groups over the same
// topology. Returns whose groups they are.
mad::Result<std::string> carry_ar_groups(sim::SimFabric& f, const sm::Subnet& subnet);

mad::Result<TrafficOutcome> run_traffic(sim::SimFabric& f, const sm::Subnet* subnet, const TrafficRunOptions& o);

std::string text_traffic(const TrafficOutcome& t);
std::string completion_text(double seconds);  // "41.943 us", "never (a flow has no route)"
Json json_traffic(const TrafficOutcome& t);

}  // namespace cli
