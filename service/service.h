// The SM and its services as one transport-agnostic object: the SubnetManager; the SA server
// with its handlers (multicast's MCMemberRecord, ServiceRecords, subscriptions) and the Reports
// to subscribers; the multicast groups and their MFTs; and the store (one commit per sweep, SA
// state, events, SM peers), read back at start and, when SMs share a database, on taking over
// from the last master. One next_deadline() covers all of them. `fabricsm run` wires it to
// libibumad, `fabricsm sim` and `fabricsm drill` to the simulated fabric, so what operators run
// is what the simulator tests.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/reactor.h"
#include "sm/adapt/hint_loop.h"
#include "sm/log.h"
#include "sm/multicast/multicast.h"
#include "sm/perfmgr/perfmgr.h"
#include "sm/reaper.h"
#include "sm/sa/reports.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "sm/sa/subscriptions.h"
#include "sm/store/store.h"
#include "sm/subnet_manager.h"
#include "service/loop_timer.h"
#include "service/store_writer.h"

namespace service {

struct Config {
  sm::SmConfig sm;
  std::string db_path;  // the store; empty: none
  sm::store::OnCorrupt on_corrupt = sm::store::OnCorrupt::refuse;
  std::optional<unsigned> db_group;  // the group that may read the store; none: owner only
  // The store writes on a thread of its own (`fabricsm run`, `fabricsm sim`: the loop goes on
  // answering meanwhile); false: inline, where a test reads the store right after a sweep.
  bool store_thread = false;
  sm::sa::ServerConfig sa;
  sm::perfmgr::Config perf;  // port counters and health (off unless perf.enabled)
  sm::adapt::Config adapt;   // traffic hints from the counters, for adaptive-hint (sm/adapt/)
  // LIDs from OpenSM's guid2lid file (sm/guid2lid.h), for the ports the store does not remember.
  sm::LidMap imported_lids;
  // Milliseconds since the epoch, for what the store keeps (the transport's clock starts anew
  // with each process); empty: the system clock.
  std::function<int64_t()> wall_ms;
};

struct StoreStatus {
  uint64_t commits = 0;         // that went in
  uint64_t failed_commits = 0;  // that did not
  double last_commit_ms = 0;
  double last_counters_ms = 0;  // the last counter sweep's commit (PerfMgr)
  uint64_t counter_rows = 0;    // port rows the counter commits wrote, since start
  std::string error;  // the last commit's, if it failed (empty once one goes in again)
};

class Service final : public mad::Reactor {
 public:
  // Opens the store (if any) and reads back what it keeps (LIDs, what the switches hold, SA
  // state). Fails (logged) when the store cannot be opened or read; nothing has been sent then.
  static mad::Result<std::unique_ptr<Service>> create(mad::Transport& transport, Config cfg, sm::Logger& log);
  ~Service() override;
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  void start() { manager_->start(); }
  void on_mad(const mad::Packet& p) override;
  void on_tick() override;
  std::optional<mad::Nanos> next_deadline() const override;

  void request_sweep(std::string why, bool verify = false) { manager_->request_sweep(std::move(why), verify); }
  // SIGHUP: the SM's new settings (what it takes: SubnetManager::reconfigure), partitions,
  // the PerfMgr's settings (all but its window of queries) and the traffic hints'.
  void reconfigure(const sm::SmConfig& next, const sm::perfmgr::Config& perf, const sm::adapt::Config& adapt);
  // SIGTERM: a master hands the subnet over first (SubnetManager::resign).
  bool resign() { return manager_->resign(); }
  // Writes what waits for the next commit (events, SM peers, SA state) and waits for the
  // store's writes to end: before exit, and before reading the store.
  void flush();

  const sm::SubnetManager& manager() const { return *manager_; }
  // What the last sweep published, and the SA's index of it (null when not master).
  std::shared_ptr<const sm::Subnet> subnet() const { return manager_->subnet(); }
  std::shared_ptr<const sm::sa::Index> index() const { return sa_->index(); }
  const StoreStatus& store_status() const { return store_status_; }
  bool has_store() const { return store_ != nullptr; }
  const sm::multicast::Multicast& multicast() const { return *multicast_; }
  // What the last counter sweep published (null until one ended, and when the PerfMgr is off).
  std::shared_ptr<const sm::perfmgr::Snapshot> perf() const { return perf_->snapshot(); }
  const sm::perfmgr::PerfMgr& perfmgr() const { return *perf_; }
  const sm::adapt::HintLoop& traffic_hints() const { return hints_; }
  // `fabricsm health clear`: closes findings (all, or at or facing one port); how many.
  size_t clear_health(std::optional<sm::perfmgr::Cable> port) { return perf_->clear(port); }
  // The events logged lately (the store's event log keeps them all), the newest last, and how
  // many were logged since start (a reader copies the list when that moved).
  const std::deque<sm::store::Event>& recent_events() const { return recent_events_; }
  uint64_t events_logged() const { return events_logged_; }
  const sm::sa::Server& sa() const { return *sa_; }
  const sm::sa::Services& services() const { return *services_; }
  const sm::sa::Subscriptions& subscriptions() const { return *subscriptions_; }
  // How long the loop's turns took (loop_timer.h), since start or the last reset.
  const LoopFigures& loop_figures() const { return loop_.figures(); }
  void reset_loop_figures() { loop_.reset(); }

  // Observers, called after the service has done its part.
  std::function<void(const std::shared_ptr<const sm::Subnet>&)> on_sweep_done;
  std::function<void(const ha::Note&)> on_ha_note;
  std::function<void(const std::shared_ptr<const sm::perfmgr::Snapshot>&)> on_counters;

 private:
  Service(mad::Transport& transport, Config cfg, sm::Logger& log);
  mad::Result<sm::Remembered> open_store();
  // Posts `job` (a commit, a flush) with what notes_ holds, which it writes.
  void post_store(std::function<StoreWriter::Done(sm::store::Store&)> job);
  void wire(sm::Remembered remembered, std::vector<sm::store::SaObject> stored);
  void on_sweep(const std::shared_ptr<const sm::Subnet>& s);
  void on_counter_sweep(const std::shared_ptr<const sm::perfmgr::Snapshot>& s);
  void adapt_to(const sm::perfmgr::Snapshot& s);
  void note_hints_in_place(const sm::Subnet& s);
  sm::perfmgr::View perf_view() const;
  bool perf_may_query() const;
  void on_log(sm::Level l, const sm::LogCode& code, std::string_view msg);
  void restore_sa_state(const std::vector<sm::store::SaObject>& objects);
  void log_lids(const sm::Subnet& s) const;
  void note_peers(const std::vector<ha::Peer>& peers);
  void note_groups();
  // The QoS policy the SA answers PathRecord SLs from: `sm`'s when qos is on (at start, SIGHUP).
  void use_qos_policy(const sm::SmConfig& sm);
  void write_buffered();
  void index_if_wanted();
  struct Indexed {
    std::shared_ptr<const sm::sa::Index> index;
    sm::sa::Reporter::Changes changes;          // since `before`
    std::shared_ptr<const sm::sa::Index> before;  // the SA's index when it was built
  };
  void indexed(Indexed built);
  void begin_turn();
  void end_turn();
  void tick();  // on_tick's work, timed as part of the turn
  int64_t wall_ms() const { return cfg_.wall_ms(); }

  mad::Transport& transport_;
  Config cfg_;
  sm::Logger& log_;
  std::unique_ptr<StoreWriter> store_;
  StoreNotes notes_;  // for the store's next job
  std::unique_ptr<sm::SubnetManager> manager_;
  std::unique_ptr<sm::multicast::Multicast> multicast_;
  std::unique_ptr<sm::sa::Server> sa_;
  std::unique_ptr<sm::sa::Services> services_;
  std::unique_ptr<sm::sa::Subscriptions> subscriptions_;
  std::unique_ptr<sm::sa::Reporter> reporter_;
  std::unique_ptr<sm::perfmgr::PerfMgr> perf_;
  uint64_t isolation_epoch_ = 0;  // of the PerfMgr's isolated cables the SM was last given
  sm::adapt::HintLoop hints_;
  uint64_t hints_noted_ = 0;  // the last round of traffic hints logged as in place
  mad::Nanos next_sample_{0};     // the store keeps counter samples from then on
  mad::Nanos perf_settle_until_{0};  // no counter sweep starts before (kPerfSettle after a sweep)
  // The index of the last sweep that configured the subnet: the SA answers from it while this
  // SM is master, and the next such sweep is compared with it (traps 64/65).
  std::shared_ptr<const sm::sa::Index> index_;
  // The SA's index of a sweep is built off the loop: the next subnet to index, the worker.
  std::shared_ptr<const sm::Subnet> index_next_;
  sm::Worker indexer_;
  sm::Reaper reaper_;  // the indexes let go of are freed there
  bool qos_sls_unused_said_ = false;  // W0908 once per policy loaded
  bool sa_current_ = true;   // false after standing by: another SM may have changed the store
  StoreStatus store_status_;
  mad::Nanos next_flush_{0};
  std::deque<sm::store::Event> recent_events_;
  uint64_t events_logged_ = 0;
  LoopTimer loop_;
  size_t turn_mads_ = 0;
  std::string_view turn_began_;  // the SM's phase as the turn began
};

}  // namespace service
