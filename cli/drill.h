// `fabricsm drill`: several SMs (each the whole service stack, service::Service, on its own
// SimTransport at its own port) on one simulated fabric, driven together on the fabric's
// virtual clock by sim::MultiDriver,
// and a script of failures: kill the master, bring it back, partition the fabric between the
// SMs and heal it, lose MADs, a rogue host reprogramming a switch (drill_rogue.cpp). After each event: how long until a standby noticed, until an SM
// answered as master and until the subnet was up again, and what it cost the hosts (LIDs
// changed, LFT blocks written, ports told to re-register), and whether one master remained.
// The scenario tests (tests/sm/test_ha.cpp) drive the same Cluster.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/service.h"
#include "sim/fabric.h"
#include "sim/multi_driver.h"
#include "sim/sim_transport.h"

namespace cli {

struct DrillSm {
  std::string node;  // the CA (port 1) or switch (port 0) it runs on
  sm::SmConfig cfg;
  std::string db_path;  // its store (SMs may share one); empty: none
  sm::perfmgr::Config perf;  // its PerfMgr (off unless perf.enabled)
  sm::LidMap imported_lids;  // as from a guid2lid_file
  bool store_thread = false;  // the store writes on a thread of its own, as `fabricsm run`'s
};

// The SMs of a drill on their fabric.
class Cluster {
 public:
  static mad::Result<std::unique_ptr<Cluster>> create(const sim::FabricSpec& spec, const sim::SimConfig& sim_cfg,
                                                      std::vector<DrillSm> sms, sm::Level log_level);
  ~Cluster();

  size_t size() const { return slots_.size(); }
  sim::SimFabric& fabric() { return *fabric_; }
  const sim::SimFabric& fabric() const { return *fabric_; }
  mad::Nanos now() const { return fabric_->now(); }
  std::string name(size_t i) const;
  sim::NodeIdx node_of(size_t i) const;
  const std::string& spec_node(size_t i) const;
  uint8_t priority(size_t i) const;
  bool sticky(size_t i) const;

  // A fresh SM process at SM i's port (IsSM set, as opening the issm device does); false when
  // its store cannot be opened.
  bool start(size_t i);
  // kill -9: the process is gone, its port stays. The kernel clears IsSM when the issm device
  // closes (ibsim does not; the standbys see silence either way).
  void kill(size_t i);
  bool alive(size_t i) const;
  const sm::SubnetManager& sm(size_t i) const;
  service::Service& service(size_t i);
  // Another endpoint on the fabric served with the SMs (a test's SA client); borrowed.
  void add_reactor(sim::EndpointId ep, mad::Reactor& r);
  void remove_reactor(sim::EndpointId ep);
  // Each SM's log lines, warnings and errors at least (whatever the level shown on stderr).
  const std::vector<std::string>& log_lines(size_t i) const;
  // Sees every line as it is logged: the SM's index, its level, the line (with its code).
  std::function<void(size_t sm, sm::Level level, const std::string& line)> on_log;

  // Runs every live SM and the fabric for `span` of virtual time, or until `stop()`.
  void run_for(mad::Nanos span, const std::function<bool()>& stop = {});
  // Runs until `cond()` holds (true) or `limit` has passed (false).
  bool run_until(const std::function<bool()>& cond, mad::Nanos limit);

  // Live SMs in Master state, and every live SM settled (Master or Standby, none sweeping).
  std::vector<size_t> masters() const;
  bool settled() const;

  struct HaEvent {
    mad::Nanos at;
    size_t sm;
    ha::Note note;
  };
  struct Sweep {
    mad::Nanos at;
    size_t sm;
    sm::SweepReport report;
  };
  const std::vector<HaEvent>& ha_events() const { return ha_events_; }
  const std::vector<Sweep>& sweeps() const { return sweeps_; }

 private:
  struct Slot;
  Cluster() = default;
  std::unique_ptr<sim::SimFabric> fabric_;
  std::unique_ptr<sim::MultiDriver> driver_;
  std::vector<std::unique_ptr<Slot>> slots_;
  sm::Level log_level_ = sm::Level::warn;
  std::vector<HaEvent> ha_events_;
  std::vector<Sweep> sweeps_;
};

// The rogue event: a host that runs no SM sends LID-routed SMPs to a switch on the master's
// path, as root on that host could: Gets of PortInfo with M_Key 0 (at protect level 0 they show
// the switch's key, which it then uses), then Sets of the LFT blocks holding CA LIDs (pointed at
// port 0: black holes) and of one external port's PortInfo (Down). A Set is refused when no
// answer comes within the timeout (the SMA drops it), taken when a GetResp with status 0 does.
struct RogueResult {
  std::string host;          // the rogue CA, and its LID
  std::string target;        // the switch attacked, its LID, the port set Down
  std::string key_read;      // what the PortInfo Get of port 0 showed (never the key itself)
  uint64_t attempts = 0;     // Sets sent
  uint64_t refused = 0;      // no answer within the timeout
  uint64_t taken = 0;        // answered, status 0
  bool routes_changed = false;         // the verifier right after the attack differs from before
  std::optional<double> reported_ms;   // until an SM logged the violation (E0610 or W0609)
  std::string reported_by;             // "sm1 E0610"
  std::optional<double> repaired_ms;   // when it landed: until the verifier showed the routes again
  // Every Set refused and the violation reported.
  bool ok() const { return attempts > 0 && refused == attempts && taken == 0 && reported_ms.has_value(); }
};

struct RogueOptions {
  mad::Nanos timeout = std::chrono::milliseconds(200);  // an attempt unanswered this long: refused
  mad::Nanos report_limit = std::chrono::seconds(60);   // how long to wait for the SMs' report
  mad::Nanos repair_limit = std::chrono::minutes(10);   // how long to wait for the repair
  size_t max_lft_blocks = 4;                            // LFT blocks overwritten
};

struct DrillOptions {
  std::vector<std::string> events{"kill", "return", "partition", "heal", "loss"};
  mad::Nanos settle = std::chrono::seconds(3);  // each event: how long the SMs run after it
  double loss = 0.05;                          // the "loss" event: fraction of MADs lost
  bool verify = true;                          // walk the LFTs after each event
  RogueOptions rogue;
};

struct EventResult {
  std::string event;       // as scripted
  std::string detail;      // which SM, which links
  double at_ms = 0;        // virtual time of the event since the drill began
  std::optional<double> detection_ms;  // until a standby declared the master lost
  std::optional<double> master_ms;     // until an SM entered Master
  std::optional<double> up_ms;         // until that master's sweep left the subnet up
  uint64_t lids_changed = 0;
  uint64_t lft_blocks = 0;             // LFT blocks the switches received
  uint64_t rereg_ports = 0;            // ports told to re-register (ClientReregister)
  uint64_t false_alarms = 0;           // masters declared lost that were not (loss event)
  std::vector<std::string> masters;    // live SMs in Master state at the end
  size_t partitions = 1;               // parts of the fabric that hold live SMs
  bool one_master = false;             // exactly one master in each of those parts
  std::optional<bool> routed;          // every CA pair routed (only where one part)
  std::vector<std::string> notes;      // HA log lines of the event, first few
  std::optional<RogueResult> rogue;    // the rogue event's figures
};

struct DrillResult {
  std::string fabric;
  std::vector<std::string> sms;  // "name@node priority P"
  EventResult bring_up;
  std::vector<EventResult> events;
  bool ok() const;
};

// The events a script may name (checked before a cluster is built: a usage error).
inline constexpr std::string_view kDrillEvents[] = {"kill",      "kill-standby", "return", "partition",
                                                    "heal",      "loss",         "rogue"};

mad::Result<DrillResult> run_drill(Cluster& c, const DrillOptions& opts);

// The rogue event against the fabric of SM `master` (drill_rogue.cpp). It runs the SMs while it
// attacks, until the violation was reported and (when the attack landed) the routes repaired,
// or the limits passed. Fails when there is no host to attack from.
mad::Result<RogueResult> rogue_attack(Cluster& c, size_t master, const RogueOptions& o);

}  // namespace cli
