// The SM itself, as a reactor: it never blocks. Its owner feeds it MADs (on_mad) and time
// (on_tick) and asks when it next needs to wake (next_deadline); run_loop() in event_loop.h
// does that over any Transport. A heavy sweep runs discovery -> LIDs -> routing ->
// programming; the first one that leaves every port Active and every switch programmed logs
// SUBNET UP.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "mad/sm_info.h"
#include "mad/transactions.h"
#include "routing/engine.h"
#include "sm/discovery.h"
#include "sm/lid_manager.h"
#include "sm/log.h"
#include "sm/programmer.h"
#include "sm/smp_client.h"

namespace sm {

struct SmConfig {
  mad::TransactionConfig mads;
  std::string routing_engine = "minhop";
  routing::RoutingOptions routing;
  PortPolicy ports;
  uint8_t priority = 0;  // SMInfo priority, 0..15
  uint64_t sm_key = 0;
  // After a sweep that did not bring everything up, try again after this long.
  mad::Nanos retry_interval = std::chrono::seconds(1);
};

// Wall-clock milliseconds (what the sweep cost) and virtual/transport milliseconds (how long
// it took on the fabric's clock: the same as wall on real hardware).
struct PhaseTime {
  double wall_ms = 0;
  double fabric_ms = 0;
};

struct SweepReport {
  uint64_t number = 0;
  bool up = false;
  std::string failure;  // why it is not up
  size_t nodes = 0, switches = 0, cas = 0, links = 0;
  uint16_t max_lid = 0;
  LidAssignment lids;
  std::string engine;
  ProgramStats program;
  PhaseTime discovery, lid_assignment, routing, programming, total;
  uint64_t smps_sent = 0, smps_retried = 0, smps_timed_out = 0;
  std::vector<std::string> problems;
};

class SubnetManager {
 public:
  SubnetManager(mad::Transport& transport, SmConfig cfg, Logger& log);

  // Starts the first heavy sweep.
  void start();
  // Asks for a heavy sweep: now if idle, else right after the current one.
  void request_sweep(std::string why);

  void on_mad(const mad::Packet& p);
  void on_tick();
  std::optional<mad::Nanos> next_deadline() const;

  bool subnet_up() const { return up_; }
  bool sweeping() const { return sweeping_; }
  uint64_t sweeps() const { return sweeps_; }
  const SweepReport& last_sweep() const { return report_; }
  const Topology& topology() const { return topo_; }
  const routing::RoutingTables& tables() const { return tables_; }
  LidManager& lids() { return lids_; }
  mad::SmState state() const { return state_; }
  const mad::TransactionStats& mad_stats() const { return tx_.stats(); }
  // For progress displays: the phase of the current sweep and its SMPs done / known so far.
  struct Progress {
    std::string_view phase;
    uint64_t done = 0;
    uint64_t total = 0;
  };
  Progress progress() const;
  // Called at the end of every sweep (the CLI prints, the store commits, tests look).
  std::function<void(const SweepReport&)> on_sweep_done;

 private:
  void heavy_sweep();
  void after_discovery();
  void after_programming();
  void finish(bool up, std::string failure);
  void answer_sm_info(const mad::Packet& p, const mad::Smp& req);
  void on_trap(const mad::Packet& p, const mad::Smp& trap);
  PhaseTime since(int64_t wall_ns, mad::Nanos fabric) const;

  mad::Transport& transport_;
  SmConfig cfg_;
  Logger& log_;
  mad::Transactions tx_;
  SmpClient client_;
  LidManager lids_;
  LftMemory lft_memory_;
  std::unique_ptr<Discovery> discovery_;
  std::unique_ptr<Programmer> programmer_;
  Discovered seen_;
  Topology topo_;
  routing::RoutingTables tables_;
  SweepReport report_;
  std::string_view phase_ = "idle";
  mad::SmState state_ = mad::SmState::discovering;
  mad::Guid port_guid_;
  uint32_t act_count_ = 0;
  bool up_ = false;
  bool sweeping_ = false;
  bool sweep_wanted_ = false;
  std::optional<mad::Nanos> retry_at_;
  uint64_t sweeps_ = 0;
  int64_t sweep_wall_ns_ = 0, phase_wall_ns_ = 0;
  mad::Nanos sweep_fabric_{0}, phase_fabric_{0};
  mad::TransactionStats mads_at_start_;
};

}  // namespace sm
