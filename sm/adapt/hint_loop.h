// adaptive-hint that adapts: turns the PerfMgr's measured link utilisation into traffic hints
// (routing/retune.h: the hot channels, every channel's load, what each destination receives),
// so that the SM moves the busiest destinations off hot channels onto equally good ports and
// writes only the LFT blocks that changed.
//
// Stable by construction, so that it converges and never oscillates:
// - Only a clean measurement counts: rates over an interval spent wholly under the current
//   routes. The first counter sweep ending after any sweep that wrote LFT blocks is skipped,
//   and nothing is measured while hints wait to be applied.
// - A channel is hot only when busy in absolute terms (>= hot) and against the fabric
//   (>= skew x the mean of the loaded switch-to-switch channels): a heavy but balanced load
//   moves nothing, and neither does noise.
// - While traffic lasts, moves stay (the SM pins them), and only a channel never relieved
//   before starts a round: each round adds one, so rounds are bounded and no routing comes
//   back. A move never makes a channel busier than the one it relieves.
// - Hints are given back all at once, and only when the traffic that caused them has gone:
//   the CAs' injected data below `release` x its peak since the first hint, in two clean
//   measurements in a row. That does not depend on the routes, so giving hints back cannot
//   bring the trigger back by itself.
// - A round must pay: when the CAs send no more than 2% more after it than before, no round
//   follows until the hints are given back (the moves stay: they made nothing worse).
// - Rounds are at least min_interval apart.
// A pure object: snapshots and published subnets in, decisions out; the service logs them
// and hands the hints to the SM.
#pragma once

#include <chrono>
#include <cstdint>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "routing/retune.h"
#include "sm/perfmgr/snapshot.h"
#include "sm/subnet.h"

namespace sm::adapt {

struct Config {
  bool enabled = true;  // acts only while the SM routes with adaptive-hint and counters run
  double hot = 0.8;     // utilisation that makes a switch-to-switch channel hot
  double skew = 1.5;    // ... and this many times the mean utilisation of the loaded ones
  double release = 0.5;  // hints go when injected traffic falls below this x its peak
  mad::Nanos min_interval = std::chrono::seconds(60);  // between two rounds
  bool operator==(const Config&) const = default;
};

// One hot channel as measured, from its sending port.
struct HotChannel {
  perfmgr::PortEnd from, to;
  double utilisation = 0;
  bool fresh = false;  // never relieved before: what started the round
};

struct Decision {
  // reroute: hand `load` to the SM; release: hand it an empty one; stop: the last round did
  // not pay, nothing to hand over (the service logs it).
  enum class Kind : uint8_t { reroute, release, stop };
  Kind kind = Kind::reroute;
  uint64_t round = 0;  // counts every decision since start
  std::vector<HotChannel> hot;  // reroute: every hot channel, busiest first
  routing::TrafficLoad load;    // for the SM (empty after a release: the pins go)
  double max_utilisation = 0;   // of the switch-to-switch channels
  double mean_utilisation = 0;  // of the loaded ones
  double injected = 0;          // bytes per second sent by the CAs
  double peak_injected = 0;     // since the first hint (release: what it fell from)
  std::string why;  // one line for the log
};

class HintLoop {
 public:
  explicit HintLoop(Config cfg) : cfg_(cfg) {}
  void reconfigure(const Config& cfg) { cfg_ = cfg; }
  const Config& config() const { return cfg_; }

  // The SM published a sweep: its routes are in place (the hints, once a sweep routed with
  // generation() and came up).
  void on_sweep(const Subnet& s);
  // A counter sweep ended at `now` (the transport's clock) over `subnet`, the last published:
  // a decision when the hints change (hand them to the SM with generation()).
  std::optional<Decision> on_snapshot(const perfmgr::Snapshot& snap, const Subnet& subnet, mad::Nanos now);

  size_t relieved() const { return relieved_.size(); }  // channels moved off since the traffic began
  uint64_t generation() const { return generation_; }
  bool waiting() const { return waiting_; }  // hints handed over and not in place yet

 private:
  using ChannelKey = std::pair<Guid, uint8_t>;  // its sending switch port
  std::optional<Decision> release(double injected, mad::Nanos now, std::string why);

  Config cfg_;
  std::set<ChannelKey> relieved_;  // hot channels of earlier rounds
  uint64_t generation_ = 0;
  bool waiting_ = false;
  int skip_ = 0;        // counter sweeps still to skip (they straddle a change of routes)
  int quiet_ = 0;       // clean measurements in a row below the release level
  double round_injected_ = 0;  // what the CAs sent when the last round started
  bool judged_ = true;         // the last round's gain was measured
  bool frozen_ = false;        // a round did not pay: none until the hints are given back
  double peak_injected_ = 0;
  std::optional<mad::Nanos> last_round_;
};

}  // namespace sm::adapt
