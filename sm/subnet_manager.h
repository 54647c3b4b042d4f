// The SM itself, as a reactor: it never blocks. Its owner feeds it MADs (on_mad) and time
// (on_tick) and asks when it next needs to wake (next_deadline); mad::run_loop() does that
// over any Transport, and the service stack (service/) runs it with its services.
//
// A sweep runs discovery -> LIDs -> routing -> programming. A heavy sweep walks the whole
// subnet (at start, after a failure, when a partial walk finds its routes stale); an
// incremental sweep re-reads only the switches a trap or a light sweep pointed at, and the
// programming plans keep what is written to what changed. The first sweep that leaves every
// port Active and every switch programmed logs SUBNET UP. Every sweep ends by publishing what
// it left the subnet as (subnet.h), an immutable value the store and the SA read.
//
// Only a master configures. The SM starts in Discovering: its first walk reads the subnet and
// stops before LIDs; the HA agent (ha/, through HaHost) asks the other SMs found and decides.
// As master the same sweep goes on to LIDs, routing and programming; as standby it ends
// there, and nothing is swept or written until the agent makes this SM master.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "ha/agent.h"
#include "mad/notice.h"
#include "mad/reactor.h"
#include "mad/transactions.h"
#include "routing/engine.h"
#include "routing/retune.h"
#include "sm/discovery.h"
#include "sm/fabric_model.h"
#include "sm/flap_detector.h"
#include "sm/ha_host.h"
#include "sm/lid_manager.h"
#include "sm/light_sweep.h"
#include "sm/log.h"
#include "sm/memory.h"
#include "sm/multicast_tables.h"
#include "sm/partitions/partitions.h"
#include "sm/qos_policy/policy.h"
#include "sm/route_job.h"
#include "sm/pending_sweeps.h"
#include "sm/program/lft_verifier.h"
#include "sm/program/pkey_writer.h"
#include "sm/program/port_plan.h"
#include "sm/program/programmer.h"
#include "sm/program/qos_writer.h"
#include "sm/program/vl_plan.h"
#include "sm/smp_client.h"
#include "sm/subnet.h"
#include "sm/sweep_clock.h"
#include "sm/sweep_report.h"
#include "sm/topology_changes.h"
#include "sm/mkey/port_audit.h"
#include "sm/reaper.h"
#include "sm/worker.h"

namespace sm {

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
  // Each light sweep also reads back 1/lft_verify_pass of every switch's LFT blocks (at most
  // lft_verify_max), rewriting what differs: a full pass every lft_verify_pass light sweeps.
  // 0 = off.
  int lft_verify_pass = 32;
  size_t lft_verify_max = 32768;
  // Traps arriving within this window are answered by one reaction.
  mad::Nanos trap_coalesce = std::chrono::milliseconds(2);
  // A port that changes state this often within `flap_window` is reported as flapping.
  int flap_threshold = 5;
  mad::Nanos flap_window = std::chrono::seconds(10);
  // The partitions whose P_Key tables every sweep programs (sm/partitions/).
  PartitionSet partitions = PartitionSet::defaults();
  // Per-port M_Keys from this secret (sm/mkey/); empty: ports.m_key for every port.
  mkey::Secret m_key_secret;
  // SL-to-VL and VL arbitration tables (qos_config.h); off: the SM leaves them as they are.
  QosOptions qos;
  // The QoS policy (qos_policy_file, sm/qos_policy/): the SL and limits the SA answers in
  // PathRecords when qos is on; null: none (SL 0). Shared: a SIGHUP swaps it whole.
  std::shared_ptr<const qos::Policy> qos_policy;
  // Routing and the programming plans run off the loop (sm/worker.h); a job that has not ended
  // after this long is taken for hung: the SM says so and steps down, so that a standby takes
  // the subnet over.
  mad::Nanos worker_timeout = std::chrono::seconds(120);
  // On virtual time the loop waits for a job this long (wall) at most, then lets time go on
  // without it (a hung-engine drill in the simulator).
  std::chrono::milliseconds worker_wait_limit{std::chrono::seconds(600)};
  // Test-only: the loop waits for every job, as it did when all ran on it (the drills' negative control).
  bool inline_worker = false;
  // Test-only: runs on the worker before each routing (a hook that never returns is a hung engine).
  std::function<void()> routing_hook;
};

// What this SM remembers from before it started (the store keeps it): the GUID -> LID map,
// and what it last wrote into each switch's LFT.
struct Remembered {
  LidMap lids;
  LftMemory lfts;
  uint64_t last_sweep = 0;  // the store's last sweep number: this run's sweeps go on from it
};

class SubnetManager final : public mad::Reactor {
 public:
  SubnetManager(mad::Transport& transport, SmConfig cfg, Logger& log, Remembered remembered = {});

  // Starts the first heavy sweep.
  void start();
  // Asks for a heavy sweep: now if idle, else right after the current one. With `verify`, it
  // reads back every LFT block it relies on (as the first heavy sweep after a start does).
  void request_sweep(std::string why, bool verify = false);
  // SIGHUP: takes the new routing, port parameters and sweep intervals (a heavy sweep follows
  // when routing or port parameters changed). Transactions, HA settings and the LMC stay as
  // they were at start. Returns true when a sweep was asked for.
  bool reconfigure(const SmConfig& next);
  // Stopping (SIGTERM): a master hands the subnet to its best standby; watch state() leave
  // Master (NotActive once the standby took it). Returns false when there is nobody to ask.
  bool resign();
  const SmConfig& config() const { return cfg_; }

  void on_mad(const mad::Packet& p) override;
  void on_tick() override;
  std::optional<mad::Nanos> next_deadline() const override;

  bool subnet_up() const { return up_; }
  // A job on the worker did not end within worker_timeout: this SM stepped down and sweeps no more (its
  // process should end, and be restarted, with the worker's thread stuck).
  bool wedged() const { return wedged_; }
  // The time the loop spent waiting for the worker since the last call (virtual time only).
  double take_waited_ms() { return worker_.take_waited_ms(); }
  bool sweeping() const { return sweeping_; }
  uint64_t sweeps() const { return sweeps_; }
  const SweepReport& last_sweep() const { return report_; }
  // What the last sweep left the subnet as (null until the first sweep ends).
  std::shared_ptr<const Subnet> subnet() const { return published_; }
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
  // Called at the end of every sweep with what it published (the service commits and
  // re-indexes, the CLI prints, tests look).
  std::function<void(const std::shared_ptr<const Subnet>&)> on_sweep_done;
  // Called on every HA event (state changes, a master lost, handovers, security), after it
  // is logged.
  std::function<void(const ha::Note&)> on_ha_note;
  // SA MADs (class 0x03) that are not answers to this SM's own requests: the SA server's.
  std::function<void(const mad::Packet&)> on_sa_mad;
  // Multicast (borrowed; none: no multicast): MFTs programmed after the LFTs of every sweep,
  // and at the next tick after joins and leaves changed a group.
  void set_multicast(MulticastTables* m) { mc_ = m; }
  // Cables to route around (both ends: node GUID, port), for health findings (sm/perfmgr/):
  // a change re-routes at once (an incremental sweep of the switches at their ends, which
  // repairs the routes), and every later sweep routes without them until they are given back.
  void set_isolated(std::set<std::pair<Guid, uint8_t>> cables);
  const std::set<std::pair<Guid, uint8_t>>& isolated() const { return isolated_; }
  // Traffic hints (sm/adapt/, routing/retune.h): the hot channels and the loads measured. A
  // change re-reads a switch at a hot channel, and that sweep's routing moves the busiest
  // destinations off them onto equally good ports (tables with alternatives: adaptive-hint),
  // numbering it `generation` (SweepReport::hints_generation); programming writes only the LFT
  // blocks that changed. The moves stay pinned on later routes until hints come empty.
  void set_traffic_hints(routing::TrafficLoad load, uint64_t generation);
  size_t pinned() const { return pins_.size(); }
  // The ports flapping now, with their state changes within the flap window.
  std::vector<FlapDetector::Flap> flapping() const { return flaps_.current(); }
  // Every well-formed trap Notice the SM received, after it acted on it (the SA reports it
  // to the subscribers).
  std::function<void(const mad::Notice&)> on_notice;

 private:
  // A sweep, step by step (subnet_manager.cpp).
  void begin_sweep(bool heavy, std::string trigger);
  void heavy_sweep(std::string trigger);
  void incremental_sweep(PendingSweeps::Next what);
  void after_discovery();
  // What the worker makes of a walk: the snapshot, what changed since the last one, its SM ports.
  struct Walked {  // what the worker's end of the walk gives
    WalkSummary walk;
    std::shared_ptr<Topology> topo;
    std::vector<TopologyChange> changes;
    HaHost::Scan scan;
  };
  void learn_walk_paths(std::shared_ptr<Walked> w, NodeId from);
  void walked(Walked w);
  void assign_and_route();
  struct Addressed {  // what the worker's LID assignment gives
    LidAssignment lids;
    std::string error;  // LIDs ran out (lids has those assigned)
    std::shared_ptr<const Topology> topo;  // the walk's, with them
  };
  void addressed(Addressed a);
  // Routes topo_ on the worker (route_job.h, repair or full); routed() takes the result on the
  // loop and goes on to programming, or ends the sweep when the fabric cannot be routed.
  void route();
  void routed(RouteOutput r);
  // Traffic hints (subnet_manager_hints.cpp): what the route did with them, logged and kept.
  void note_traffic(const RouteOutput& r);
  void check_worker();  // the routing deadline
  void finish(bool up, std::string failure);
  // The subnet as this sweep left it, to on_sweep_done; then `then`.
  void publish(std::function<void()> then);
  void start_next_if_wanted();
  void start_light_sweep();
  void verify_lfts();
  // Another SM acting as master (an SM with another SM_Key in Master state, or this SM's port
  // pointed elsewhere): what shows it, or "" when nothing does.
  std::string rogue_evidence(const LightSweep::Result& r) const;
  void check_is_sm(const LightSweep::Result& r);
  void log_changes(const std::vector<TopologyChange>& changes);
  void check_rogue(const LightSweep::Result& r);
  void log_tampered(const Tampered& t, std::string_view found_by);
  void mark_dirty(Guid sw, std::string why);
  void note_port_changes(const std::vector<std::pair<Guid, uint8_t>>& changes);
  void note_holes(const WalkSummary& walk);
  void on_trap(const mad::Packet& p, const mad::Smp& trap);
  // Traps that came while the worker borrowed the model: handled when it is done.
  std::vector<mad::Packet> held_traps_;
  // Steps of a sweep that need no MAD, each a few ms at 43k nodes (the P_Key enforcement plan,
  // the multicast plan, publishing): one loop turn each, not one turn for all of them.
  std::vector<std::function<void()>> next_turn_;
  void next_turn(std::function<void()> step) { next_turn_.push_back(std::move(step)); }
  // Programming (subnet_manager_program.cpp): LFTs and ports, then P_Keys, then multicast.
  void program();
  void start_programming(ProgramPlans plans);
  void after_programming();
  void program_partitions(bool ok);
  void write_pkeys(PKeyPlan plan, bool ok, double started_ms);
  void program_qos(bool ok);
  void program_multicast();
  void retry_failed(const std::set<Guid>& nodes);
  // M_Key (subnet_manager_mkey.cpp): audits the walk's ports on the worker and probes those
  // that hide their key, then program() again. Trap 256; the lease retry.
  void audit_keys();
  void audited(mkey::AuditResult a);
  void on_bad_mkey(const mad::Notice& notice, const mad::Trap256& t);
  bool own_bad_mkey(const mad::Notice& notice, const mad::Trap256& t) const;  // this SM's SMP
  void key_tick();
  void learn_paths(const Topology& t, NodeId from, NodeId to);
  // High availability (subnet_manager_ha.cpp): the election gate and what the agent asks.
  void elect(const HaHost::Scan& scan);
  void finish_walk(std::string why);
  void learn_own_guid();
  void ha_discover();
  void ha_become_master();
  void ha_stand_by();
  mad::Nanos now() const { return transport_.clock().now(); }

  mad::Transport& transport_;
  SmConfig cfg_;
  Logger& log_;
  mad::Transactions tx_;
  mkey::KeyRing keys_;  // which M_Key each SMP carries (before client_, which borrows it)
  SmpClient client_;
  // What the SM knows of the fabric and its tables, shared with the subnets it publishes.
  FabricModel model_;
  LidManager lids_;
  LftMemory lft_memory_;
  PKeyMemory pkey_memory_;
  // This sweep's topology and tables, the routes a repair starts from (route_job.h; empty
  // until routing succeeds and after anything that voids them), and the last subnet published.
  std::shared_ptr<const Topology> topo_;
  std::shared_ptr<Topology> walked_;  // topo_ while it waits for its LIDs
  std::shared_ptr<const routing::RoutingTables> tables_;
  // The VL layers of tables_ when its engine set SLs (vl_plan.h): the QoS tables carry them.
  std::optional<VlLayers> layers_;
  bool told_sl2vl_wins_ = false;  // logged once: the engine's SL2VL replaces qos_sl2vl
  std::optional<Routed> routed_;
  std::shared_ptr<const Subnet> published_;
  // The sweep in progress, what comes next, and the steps that run it.
  SweepReport report_;
  std::string_view phase_ = "idle";
  bool sweeping_ = false;
  bool up_ = false;
  uint64_t sweeps_ = 0;      // this run's
  uint64_t sweep_base_ = 0;  // the sweeps of earlier runs (their numbers go on)
  mad::TransactionStats mads_at_start_;
  SweepClock clock_;
  PendingSweeps pending_;
  FlapDetector flaps_;
  std::set<std::pair<Guid, uint8_t>> isolated_;  // cables routing leaves out (set_isolated)
  routing::TrafficLoad traffic_;  // set_traffic_hints
  uint64_t hints_generation_ = 0;
  Pins pins_;  // (switch, LID) -> port the traffic moved it to
  // Holes (walk_holes.h): how many walks in a row each one stayed unanswered; those that
  // stayed so for kLeaveOut walks are left out (a hung agent), the rest block SUBNET UP. A
  // sweep that failed only for holes and failed Sets retries just those nodes.
  static constexpr int kLeaveOut = 4;
  std::map<Hole, int> misses_;
  HoleSet left_out_;
  size_t blocking_holes_ = 0;
  std::set<Guid> retry_;
  bool retry_in_part_ = false;  // the sweep failed for holes and failed Sets only
  bool retry_all_ = false;      // ... but one was the SM's own node: walk it all again
  std::unique_ptr<Discovery> discovery_;
  std::unique_ptr<Programmer> programmer_;
  std::unique_ptr<PKeyWriter> pkey_writer_;
  std::unique_ptr<QosWriter> qos_writer_;
  QosMemory qos_memory_;
  std::unique_ptr<LightSweep> light_;
  std::unique_ptr<LftVerifier> verifier_;
  // M_Key: this sweep's ports audited, probes out, the earliest lease expiry of a port left
  // alone, ports reported once, M_KeyViolations as last read, what was reported.
  bool keys_checked_ = false;
  size_t key_probes_ = 0;
  std::optional<mad::Nanos> key_retry_at_;
  mkey::AuditState audit_;
  uint64_t violations_seen_ = 0;
  uint64_t bad_mkey_traps_ = 0;
  std::string rogue_;               // while another SM acts as master: what showed it
  bool is_sm_lost_ = false;         // the own port's IsSM was clear and could not be taken again
  size_t verify_cursor_ = 0;       // where the next light sweep's share of LFT blocks starts
  bool verify_next_heavy_ = true;  // the first heavy sweep after a start reads every block back
  MulticastTables* mc_ = nullptr;
  // High availability.
  HaHost ha_host_;
  ha::Agent ha_;
  bool master_ = false;         // the agent made this SM master: it configures the subnet
  bool gated_ = false;          // a walk waits for the election before LIDs
  bool forget_tables_ = false;  // stood by while programming: forget lft_memory_ after it
  Guid port_guid_;
  // Off the loop: routing, with its deadline.
  Worker worker_;
  Reaper reaper_;  // the subnets published before are freed there
  mad::Nanos job_due_{0};
  std::string_view job_what_;  // "routing", "planning": for the deadline's log line
  // Posts a job with the deadline; one that borrows the model or the memories by reference
  // (all but routing) is waited for if the SM ends meanwhile.
  template <class T>
  void post_job(std::string_view what, std::function<T()> work, std::function<void(T)> then, bool borrows = true) {
    job_due_ = now() + cfg_.worker_timeout;
    job_what_ = what;
    worker_.post<T>(std::move(work), std::move(then), borrows);
  }
  // The same for a step that may be asked for while a job is out (none is, where these run:
  // a refresh's re-routing, publishing): then at once, on the loop.
  template <class T>
  void post_job_or_run(std::string_view what, std::function<T()> work, std::function<void(T)> then) {
    if (worker_.busy()) return then(work());
    post_job<T>(what, std::move(work), std::move(then));
  }
  bool wedged_ = false;
};

}  // namespace sm
