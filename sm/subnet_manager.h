// The SM itself, as a reactor: it never blocks. Its owner feeds it MADs (on_mad) and time
// (on_tick) and asks when it next needs to wake (next_deadline); run_loop() in event_loop.h
// does that over any Transport.
//
// A sweep runs discovery -> LIDs -> routing -> programming. A heavy sweep walks the whole
// subnet (at start, after a failure, when a partial walk finds its routes stale); an
// incremental sweep re-reads only the switches a trap or a light sweep pointed at, and the
// programmer's diffs keep what is written to what changed. The first sweep that leaves every
// port Active and every switch programmed logs SUBNET UP.
//
// Only a master configures. The SM starts in Discovering: its first walk reads the subnet and
// stops before LIDs; the HA agent (ha/, through HaHost) asks the other SMs found and decides.
// As master the same sweep goes on to LIDs, routing and programming; as standby it ends
// there, and nothing is swept or written until the agent makes this SM master.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "ha/agent.h"
#include "mad/notice.h"
#include "mad/sm_info.h"
#include "mad/transactions.h"
#include "routing/engine.h"
#include "sm/discovery.h"
#include "sm/fabric_model.h"
#include "sm/ha_host.h"
#include "sm/lid_manager.h"
#include "sm/light_sweep.h"
#include "sm/partitions/partitions.h"
#include "sm/partitions/pkey_programmer.h"
#include "sm/log.h"
#include "sm/programmer.h"
#include "sm/smp_client.h"

namespace sm {

namespace multicast {
class Multicast;
struct MftStats;
}  // namespace multicast

struct SmConfig {
  mad::TransactionConfig mads;
  std::string routing_engine = "minhop";
  routing::RoutingOptions routing;
  // Incremental sweeps repair the previous routes after removals (routing/repair.h) instead
  // of routing in full; off = every sweep routes in full.
  bool repair_routes = true;
  PortPolicy ports;
  ha::Config ha;  // SMInfo priority and SM_Key, election, polling, handover
  // After a sweep that did not bring everything up, try again after this long.
  mad::Nanos retry_interval = std::chrono::seconds(1);
  // Light sweep (SwitchInfo of every switch, for port-state changes nobody trapped); 0 = off.
  mad::Nanos sweep_interval = std::chrono::seconds(10);
  // Traps arriving within this window are answered by one reaction.
  mad::Nanos trap_coalesce = std::chrono::milliseconds(2);
  // A port that changes state this often within `flap_window` is reported as flapping.
  int flap_threshold = 5;
  mad::Nanos flap_window = std::chrono::seconds(10);
  // The partitions whose P_Key tables every sweep programs (sm/partitions/).
  PartitionSet partitions = PartitionSet::defaults();
};

// Wall-clock milliseconds (what the sweep cost) and fabric milliseconds (how long it took on
// the transport's clock: virtual in the simulator, the same as wall on real hardware).
struct PhaseTime {
  double wall_ms = 0;
  double fabric_ms = 0;
};

struct SweepReport {
  uint64_t number = 0;
  bool heavy = true;
  std::string trigger;  // what asked for it
  bool up = false;
  std::string failure;  // why it is not up
  size_t nodes = 0, switches = 0, cas = 0, links = 0;
  size_t refreshed = 0, pruned = 0;  // incremental: switches re-read, nodes dropped
  uint16_t max_lid = 0;
  LidAssignment lids;
  std::string engine;
  // Routing repaired the previous sweep's routes instead of recomputing them: destination
  // LIDs re-routed somewhere, and LFT entries changed.
  bool repaired = false;
  size_t repaired_destinations = 0, repaired_entries = 0;
  ProgramStats program;
  uint64_t mft_blocks = 0;  // multicast forwarding blocks written (sm/multicast/)
  PKeyStats pkeys;
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
  // SIGHUP: takes the new routing, port parameters and sweep intervals (a heavy sweep follows
  // when routing or port parameters changed). Transactions and HA settings stay as they were
  // at start. Returns true when a sweep was asked for.
  bool reconfigure(const SmConfig& next);
  // Stopping (SIGTERM): a master hands the subnet to its best standby; watch state() leave
  // Master (NotActive once the standby took it). Returns false when there is nobody to ask.
  bool resign();
  const SmConfig& config() const { return cfg_; }

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
  // What this SM believes each switch's LFT holds (the store saves and restores it).
  LftMemory& lft_memory() { return lft_memory_; }
  const LftMemory& lft_memory() const { return lft_memory_; }
  const LidMap& lids_map() const { return lids_.map(); }
  const FabricModel& model() const { return model_; }
  // What this SM knows each port's P_Key table holds (the SA's P_KeyTableRecords).
  const PKeyMemory& pkey_memory() const { return pkey_memory_; }
  // HA: Discovering, Standby, Master or NotActive; only a master configures the subnet.
  mad::SmState state() const { return ha_.state(); }
  const ha::Role& ha_role() const { return ha_.role(); }
  const mad::TransactionStats& mad_stats() const { return tx_.stats(); }
  // For progress displays: the phase of the current sweep and its work done / known so far.
  struct Progress {
    std::string_view phase;
    uint64_t done = 0;
    uint64_t total = 0;
  };
  Progress progress() const;
  // Called at the end of every sweep (the CLI prints, the store commits, tests look).
  std::function<void(const SweepReport&)> on_sweep_done;
  // Called on every HA event (state changes, a master lost, handovers, security), after it
  // is logged.
  std::function<void(const ha::Note&)> on_ha_note;
  // SA MADs (class 0x03) that are not answers to this SM's own requests: the SA server's.
  std::function<void(const mad::Packet&)> on_sa_mad;
  // Multicast groups and their MFTs (borrowed; none: no multicast): programmed after the LFTs
  // of every sweep, and at the next tick after joins and leaves changed a group.
  void set_multicast(multicast::Multicast* m) { mc_ = m; }
  // Every well-formed trap Notice the SM received, after it acted on it (the SA reports it
  // to the subscribers).
  std::function<void(const mad::Notice&)> on_notice;

 private:
  void begin_sweep(bool heavy, std::string trigger);
  void heavy_sweep(std::string trigger);
  void incremental_sweep();
  void after_discovery();
  void assign_and_route();
  // Routes topo_ into tables_ (repair or full); false when the fabric cannot be routed.
  bool route();
  bool try_repair();
  void after_programming();
  void program_multicast();
  // subnet_manager_partitions.cpp: P_Key tables after the Programmer, then finish().
  void program_partitions(bool ok);
  // subnet_manager_ha.cpp
  void elect();
  void finish_walk(std::string why);
  void learn_own_guid();
  void finish(bool up, std::string failure);
  void start_next_if_wanted();
  // What the HA agent asks for (HaHost::Hooks).
  void ha_discover();
  void ha_become_master();
  void ha_stand_by();
  void on_trap(const mad::Packet& p, const mad::Smp& trap);
  void mark_dirty(Guid sw, std::string why);
  void note_port_changes(const std::vector<std::pair<Guid, uint8_t>>& changes);
  void start_light_sweep();
  PhaseTime since(int64_t wall_ns, mad::Nanos fabric) const;
  mad::Nanos now() const { return transport_.clock().now(); }

  mad::Transport& transport_;
  SmConfig cfg_;
  Logger& log_;
  mad::Transactions tx_;
  SmpClient client_;
  LidManager lids_;
  LftMemory lft_memory_;
  FabricModel model_;
  std::unique_ptr<Discovery> discovery_;
  std::unique_ptr<Programmer> programmer_;
  std::unique_ptr<PKeyProgrammer> pkey_programmer_;
  PKeyMemory pkey_memory_;
  std::unique_ptr<LightSweep> light_;
  Topology topo_;
  routing::RoutingTables tables_;
  // What tables_ were routed over, and by which engine of which chain: the base a repair
  // starts from. Empty until routing succeeds, and after anything that voids it. While
  // topo_routed_, that topology is topo_ itself; the next walk moves it here.
  struct Routed {
    Topology topo;
    std::string engine, chain;
  };
  std::optional<Routed> routed_;
  bool topo_routed_ = false;
  SweepReport report_;
  std::string_view phase_ = "idle";
  HaHost ha_host_;
  ha::Agent ha_;
  bool master_ = false;  // the agent made this SM master: it configures the subnet
  bool gated_ = false;   // a walk waits for the election before LIDs
  bool forget_tables_ = false;  // stood by while programming: forget lft_memory_ after it
  Guid port_guid_;
  bool up_ = false;
  bool sweeping_ = false;
  bool heavy_wanted_ = false;
  std::string heavy_why_;
  std::set<Guid> dirty_;                    // switches to re-read in the next reaction
  std::string dirty_why_;
  std::optional<mad::Nanos> react_at_;      // when the coalesced reaction runs
  std::optional<mad::Nanos> retry_at_;
  mad::Nanos next_light_{0};
  std::map<std::pair<Guid, uint8_t>, std::deque<mad::Nanos>> flaps_;
  std::set<std::pair<Guid, uint8_t>> flapping_;  // reported, until they calm down
  uint64_t sweeps_ = 0;
  int64_t sweep_wall_ns_ = 0, phase_wall_ns_ = 0;
  mad::Nanos sweep_fabric_{0}, phase_fabric_{0};
  mad::TransactionStats mads_at_start_;
  multicast::Multicast* mc_ = nullptr;
};

}  // namespace sm
