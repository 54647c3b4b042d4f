#include "cli/daemon.h"

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include "mad/umad_transport.h"
#include "cli/daemon_status.h"
#include "sm/event_loop.h"
#include "sm/multicast/multicast.h"
#include "sm/sa/reports.h"
#include "sm/sa/server.h"
#include "sm/sa/services.h"
#include "sm/sa/subscriptions.h"
#include "cli/control.h"
#include "cli/notify.h"
#include "sm/store/store.h"

namespace cli {

namespace {

// --once gives up after this many sweeps that did not bring the subnet up (one a second).
constexpr uint64_t kOnceMaxSweeps = 5;
// Events and SM peers a standby (no sweeps, no commits) keeps are written this often.
constexpr auto kFlushEvery = std::chrono::seconds(2);
constexpr auto kStatusEvery = std::chrono::milliseconds(250);
constexpr auto kHandoverWait = std::chrono::seconds(1);

std::atomic<int> g_stop{0};
std::atomic<bool> g_reload{false};
extern "C" void on_stop_signal(int sig) { g_stop.store(sig); }
extern "C" void on_hup_signal(int) { g_reload.store(true); }

void install_signal_handlers() {
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_stop_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sa.sa_handler = on_hup_signal;
  sigaction(SIGHUP, &sa, nullptr);
  sa.sa_handler = SIG_IGN;  // a `fabricsm status` that hangs up early must not kill the SM
  sigaction(SIGPIPE, &sa, nullptr);
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

// Settings the running SM cannot take over: a SIGHUP that changes them says they need a restart.
const std::set<std::string>& restart_only() {
  static const std::set<std::string> keys = {
      "ca", "port", "guid", "sm_priority", "sm_key", "sticky_master", "sminfo_polling_timeout",
      "polling_retry_number", "activity_stall_polls", "max_wire_smps", "transaction_timeout",
      "transaction_retries", "db_path", "on_corrupt_db", "control_socket"};
  return keys;
}

class Daemon {
 public:
  Daemon(DaemonArgs args, sm::Logger& log) : a_(std::move(args)), log_(log) {}
  int run();

 private:
  mad::Result<void> open_store();
  void start_control();
  void on_sweep(const sm::SweepReport& r);
  void on_log(sm::Level l, const sm::LogCode& code, std::string_view msg);
  bool tick();  // between batches: signals, control requests, notify, flushes; true = stop
  void reload();
  void serve_control();
  void note_peers();
  void log_lids() const;
  void note_groups();
  void start_sa_state();
  void restore_sa_state(const std::vector<sm::store::SaObject>& objects);

  DaemonArgs a_;
  sm::Logger& log_;
  std::unique_ptr<mad::UmadTransport> transport_;
  std::unique_ptr<sm::SubnetManager> manager_;
  std::unique_ptr<sm::store::Store> store_;
  std::unique_ptr<cli::ControlServer> control_;
  std::unique_ptr<sm::sa::Server> sa_;
  std::unique_ptr<sm::multicast::Multicast> multicast_;
  // SA state clients create (services, subscriptions) and the Reports to subscribers.
  std::unique_ptr<sm::sa::Services> services_;
  std::unique_ptr<sm::sa::Subscriptions> subscriptions_;
  std::unique_ptr<sm::sa::Reporter> reporter_;
  std::shared_ptr<const sm::sa::Index> index_;  // of the last sweep that configured the subnet
  std::vector<sm::store::SaObject> restored_;     // read from the store, until handed out
  bool sa_current_ = true;  // false after standing by: another SM may have changed the store
  cli::Notifier notify_ = cli::Notifier::from_environment();
  StatusContext ctx_;
  bool ready_sent_ = false;
  std::optional<std::chrono::steady_clock::time_point> stop_by_;  // stopping: exit by then
  std::string last_status_;
  std::chrono::steady_clock::time_point next_status_{}, next_watchdog_{}, next_flush_{};
};

mad::Result<void> Daemon::open_store() {
  sm::store::OpenReport rep;
  auto s = sm::store::Store::open({.path = a_.cfg.db_path, .on_corrupt = a_.cfg.on_corrupt_db}, &rep);
  if (!s) return std::unexpected(s.error());
  store_ = std::move(*s);
  if (!rep.set_aside.empty())
    log_.error(sm::code::store_set_aside, "store: {} was not a healthy database; kept as {}, starting from the fabric", a_.cfg.db_path,
               rep.set_aside);
  auto lids = store_->load_lids();
  if (!lids) return std::unexpected(lids.error());
  auto tables = store_->load_lft_memory();
  if (!tables) return std::unexpected(tables.error());
  log_.info(sm::code::store_opened, "store: {} ({}schema v{}{}): {} LIDs, {} switches' tables known", a_.cfg.db_path,
            rep.created ? "new, " : "", rep.version,
            rep.from_version && rep.from_version != rep.version ? fmt::format(", upgraded from v{}", rep.from_version)
                                                                : "",
            lids->size(), tables->size());
  manager_->lids().load(std::move(*lids));
  manager_->lft_memory() = std::move(*tables);
  auto objects = store_->load_sa_objects();
  if (!objects) return std::unexpected(objects.error());
  restored_ = std::move(*objects);  // start_sa_state() hands them out
  return {};
}

void Daemon::start_control() {
  if (a_.cfg.control_socket.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(a_.cfg.control_socket).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec)) fs::create_directories(dir, ec);
  auto c = cli::ControlServer::listen(a_.cfg.control_socket);
  // The SM runs without it: the status command is a convenience, the subnet is not.
  if (!c) {
    log_.warn(sm::code::control_socket_failed, "control socket: {}; `fabricsm status` will not reach this SM", c.error().message);
    return;
  }
  control_ = std::move(*c);
}

void Daemon::on_log(sm::Level l, const sm::LogCode& code, std::string_view msg) {
  if (!store_ || !code.event || l == sm::Level::debug) return;
  const char* level = l == sm::Level::error ? "error" : l == sm::Level::warn ? "warn" : "info";
  store_->add_event({wall_ms(), level, code.number, std::string(msg)});
}

void Daemon::note_peers() {
  if (!store_) return;
  const mad::Nanos now = transport_->clock().now();
  const int64_t ms_now = wall_ms();
  for (const ha::Peer& p : manager_->ha_role().peers()) {
    const auto lid = manager_->lids_map().find(p.port);
    store_->note_peer({.guid = p.port.value(),
                       .lid = lid == manager_->lids_map().end() ? uint16_t{0} : lid->second.lid.value(),
                       .priority = p.info.priority,
                       .state = static_cast<uint8_t>(p.info.state),
                       .act_count = p.info.act_count,
                       .sm_key_ok = p.believed,
                       .heard_ms = ms_now - std::chrono::duration_cast<std::chrono::milliseconds>(now - p.last_heard).count()});
  }
}

void Daemon::log_lids() const {
  if (!log_.enabled(sm::Level::debug)) return;
  const sm::Topology& t = manager_->topology();
  for (const auto& s : manager_->last_sweep().lids.lids) {
    const sm::Node& n = t.node(s.node);
    log_.debug(sm::code::lid_of_port, "LID {} {} {} port {} port-GUID {}", s.lid, n.is_switch() ? "switch" : "ca", n.guid, s.port,
               t.port(s.node, s.port).guid);
  }
}

// Groups clients created, joined or left go to the store with the next commit or flush.
void Daemon::note_groups() {
  if (!store_) return;
  for (auto& [key, record] : multicast_->take_store_changes())
    store_->note_sa_object({.kind = "mcgroup", .key = std::move(key), .record = std::move(record)});
}

void Daemon::start_sa_state() {
  services_ = std::make_unique<sm::sa::Services>(sm::sa::Clocks{transport_->clock(), wall_ms});
  subscriptions_ = std::make_unique<sm::sa::Subscriptions>();
  reporter_ = std::make_unique<sm::sa::Reporter>(*transport_, *subscriptions_, log_);
  sa_->add_handler(*services_);
  sa_->add_handler(*subscriptions_);
  if (!store_) return;
  auto keep = [this](sm::store::SaObject o) { store_->note_sa_object(std::move(o)); };
  services_->on_change = keep;
  subscriptions_->on_change = keep;
  restore_sa_state(restored_);
  restored_.clear();
}

// SA state clients created, as the store has it, replacing what this SM holds: at start, and
// when it becomes master after standing by (with a database the SMs share, the last master's
// groups, services and subscriptions, MLIDs and leases included).
void Daemon::restore_sa_state(const std::vector<sm::store::SaObject>& objects) {
  std::vector<std::vector<uint8_t>> groups;
  for (const auto& o : objects)
    if (o.kind == "mcgroup") groups.push_back(o.record);
  const size_t g = multicast_->restore(groups), s = services_->load(objects), i = subscriptions_->load(objects);
  if (!objects.empty())
    log_.info(sm::code::sa_state_restored, "store: {} multicast group(s), {} service record(s), {} event subscription(s) read back", g, s, i);
}

void Daemon::on_sweep(const sm::SweepReport& r) {
  log_lids();
  // What a master's sweep configured: the SA answers from it, the store commits it. A
  // standby's walk changes nothing it owns (no SA answers); its events still go out.
  const bool configured = manager_->state() == mad::SmState::master && !r.engine.empty();
  if (configured && !sa_current_ && store_) {
    sa_current_ = true;
    store_->forget_written();  // the last master may have written other rows
    if (auto objs = store_->load_sa_objects(); objs) restore_sa_state(*objs);
    else log_.error(sm::code::sa_state_not_restored, "store: SA state not read back on taking over: {}", objs.error().message);
  }
  if (configured) {
    auto ix = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(*manager_, a_.cfg.sm.ports.switch_life_time));
    reporter_->on_index(index_.get(), ix);  // traps 64/65 for the end ports that came and went
    index_ = ix;
    sa_->set_index(ix);
  } else {
    sa_->set_index(nullptr);  // index_ stays: the next configured sweep is compared with it
  }
  if (!store_) return;
  note_peers();
  note_groups();
  if (!configured) {
    if (auto f = store_->flush_events(); !f) log_.error(sm::code::store_flush_failed, "store: {}", f.error().message);
    return;
  }
  auto c = store_->commit(*manager_, wall_ms());
  if (!c) {
    ctx_.store_error = c.error().message;
    log_.error(sm::code::store_commit_failed, "store: commit of sweep {} failed: {}", r.number, c.error().message);
    return;
  }
  ++ctx_.commits;
  ctx_.last_commit_ms = c->ms;
  ctx_.store_error.clear();
  log_.info_if(r.heavy, sm::code::store_committed,
           "store: sweep {} committed: {} nodes, {} ports, {} LIDs, {} switch tables, {} events, {:.1f} ms",
           r.number, c->nodes, c->ports, c->lids, c->switches, c->events, c->ms);
}

void Daemon::serve_control() {
  for (auto& req : control_->take()) {
    if (req.line == "status") {
      req.reply(status_json(*manager_, ctx_));
    } else if (req.line == "status text") {
      req.reply(status_text(*manager_, ctx_));
    } else if (req.line == "resweep") {
      manager_->request_sweep("asked for on the control socket");
      req.reply("{\"ok\": true}");
    } else {
      req.reply(R"({"error": "unknown request; try status, status text or resweep"})");
    }
  }
}

void Daemon::reload() {
  (void)notify_.send("RELOADING=1");
  auto next = load_config(a_.config_file, a_.command_line);
  if (!next) {
    log_.error(sm::code::reload_refused, "SIGHUP: configuration refused, the running settings stay: {}", next.error().message);
  } else {
    next->once = a_.cfg.once;
    std::vector<std::string> changed, need_restart;
    const auto before = describe(a_.cfg), after = describe(*next);
    for (size_t i = 0; i < before.size(); ++i) {
      if (before[i].second == after[i].second) continue;
      (restart_only().count(before[i].first) ? need_restart : changed)
          .push_back(fmt::format("{} = {}", after[i].first, after[i].second));
    }
    if (!need_restart.empty())
      log_.warn(sm::code::reload_restart_only, "SIGHUP: these take effect at the next start, not now: {}", fmt::join(need_restart, ", "));
    log_.set_level(sm::parse_level(next->log_level));
    manager_->reconfigure(next->sm);
    multicast_->set_partitions(next->sm.partitions);
    log_.info(sm::code::reload_done, "SIGHUP: configuration {} re-read: {}", a_.config_file.empty() ? "(none)" : a_.config_file,
              changed.empty() ? "nothing to change now" : fmt::format("{}", fmt::join(changed, ", ")));
    // Keep the restart-only settings as running, so a later SIGHUP reports them again.
    DaemonConfig kept = *next;
    kept.ca = a_.cfg.ca;
    kept.port = a_.cfg.port;
    kept.guid = a_.cfg.guid;
    kept.sm.ha = a_.cfg.sm.ha;
    kept.sm.mads = a_.cfg.sm.mads;
    kept.db_path = a_.cfg.db_path;
    kept.on_corrupt_db = a_.cfg.on_corrupt_db;
    kept.control_socket = a_.cfg.control_socket;
    a_.cfg = std::move(kept);
  }
  (void)notify_.send("READY=1");
}

bool Daemon::tick() {
  sm::SubnetManager& m = *manager_;
  const auto now = std::chrono::steady_clock::now();
  if (g_stop.load() != 0) {
    if (stop_by_) return m.state() != mad::SmState::master || now >= *stop_by_;
    // A master with a standby hands the subnet over first, so the standby does not have to
    // wait out its heartbeat timeout.
    stop_by_ = now + kHandoverWait;
    if (!m.resign()) return true;
    log_.info(sm::code::handover_wait, "stopping: waiting up to {} ms for the standby to take the subnet over",
              std::chrono::duration_cast<std::chrono::milliseconds>(kHandoverWait).count());
    return false;
  }
  if (g_reload.exchange(false)) reload();
  if (control_) serve_control();
  if (m.state() != mad::SmState::master) {
    if (m.state() == mad::SmState::standby) sa_current_ = false;
    sa_->set_index(nullptr);
    if (index_) {  // a new master has no earlier view to compare with
      index_.reset();
      reporter_->on_index(nullptr, nullptr);
    }
  }
  sa_->on_tick(!m.sweeping());
  services_->expire();
  reporter_->on_tick();
  if (!ready_sent_ && ((m.subnet_up() && m.state() == mad::SmState::master) || m.state() == mad::SmState::standby)) {
    ready_sent_ = true;
    (void)notify_.send(fmt::format("READY=1\nSTATUS={}", status_summary(m)));
  }
  if (now >= next_status_) {
    next_status_ = now + kStatusEvery;
    if (std::string s = status_summary(m); s != last_status_) {
      last_status_ = s;
      (void)notify_.send("STATUS=" + s);
    }
  }
  if (auto w = notify_.watchdog_interval(); w && now >= next_watchdog_) {
    next_watchdog_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(*w);
    (void)notify_.send("WATCHDOG=1");
  }
  if (store_ && !m.sweeping() && now >= next_flush_) {
    next_flush_ = now + kFlushEvery;
    note_peers();
    note_groups();
    if (auto f = store_->flush_events(); !f) log_.error(sm::code::store_flush_failed, "store: {}", f.error().message);
  }
  if (!a_.cfg.once || m.sweeping()) return false;
  // As `opensm -o`: once is done when the subnet is up, or when another SM is master.
  return m.subnet_up() || m.sweeps() >= kOnceMaxSweeps || m.state() == mad::SmState::standby;
}

int Daemon::run() {
  mad::UmadOptions uo;
  uo.ca = a_.cfg.ca;
  uo.port = a_.cfg.port;
  if (!a_.cfg.guid.empty()) uo.port_guid = mad::Guid(std::stoull(a_.cfg.guid, nullptr, 16));  // checked by config
  // The kernel must keep each request until the longest attempt is over, or drops its answer.
  uo.request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(a_.cfg.sm.mads.max_timeout) +
                       std::chrono::milliseconds(100);
  auto t = mad::UmadTransport::open(uo);
  if (!t) {
    log_.error(sm::code::port_open_failed, "{}", t.error().message);
    return 1;
  }
  transport_ = std::move(*t);
  const mad::UmadPort& p = transport_->port();
  log_.info(sm::code::port_opened, "on {} port {} (port GUID {}, LID {}, SM LID {}, state {}) through {}, IsSM set", p.ca, p.port,
            p.guid, p.lid, p.sm_lid, p.state, p.device);
  ctx_ = StatusContext{.port = p, .config_file = a_.config_file, .db_path = a_.cfg.db_path,
                       .started = std::chrono::steady_clock::now()};

  manager_ = std::make_unique<sm::SubnetManager>(*transport_, a_.cfg.sm, log_);
  // One IPoIB broadcast group per ipoib partition of the partitions file.
  multicast_ = std::make_unique<sm::multicast::Multicast>(
      log_, sm::multicast::MulticastConfig{.sa = {.pkt_life = a_.cfg.sm.ports.subnet_timeout},
                                           .partitions = a_.cfg.sm.partitions});
  manager_->set_multicast(multicast_.get());
  if (!a_.cfg.db_path.empty()) {
    if (auto r = open_store(); !r) {
      log_.error(sm::code::store_open_failed, "store: {}", r.error().message);
      return 1;
    }
  }
  log_.set_observer([this](sm::Level l, const sm::LogCode& c, std::string_view msg) { on_log(l, c, msg); });
  manager_->on_sweep_done = [this](const sm::SweepReport& r) { on_sweep(r); };
  sa_ = std::make_unique<sm::sa::Server>(*transport_, log_);
  sa_->add_handler(multicast_->mcmember_handler());
  start_sa_state();
  manager_->on_sa_mad = [this](const mad::Packet& mad) {
    if (mad.mad[3] == mad::sa_method::report_resp) reporter_->on_report_resp(mad);
    else sa_->on_mad(mad);
  };
  manager_->on_notice = [this](const mad::Notice& n) { reporter_->on_notice(n); };
  start_control();
  install_signal_handlers();
  manager_->start();
  auto loop = sm::run_loop(*manager_, *transport_, [this] { return tick(); });

  (void)notify_.send("STOPPING=1");
  const mad::UmadStats st = transport_->stats();
  const auto& ms = manager_->mad_stats();
  log_.info(sm::code::umad_stats, "umad: {} MADs sent ({} failed), {} received, {} dropped (kernel timeouts), SMPs: {} sent, "
            "{} resent, {} unanswered", st.sent, st.send_errors, st.received, st.dropped, ms.sent, ms.retried,
            ms.timed_out);
  int rc = 0;
  if (!loop) {
    log_.error(sm::code::transport_failed, "transport failed: {}", loop.error().message);
    rc = 1;
  } else if (const int sig = g_stop.load(); sig != 0) {
    log_.info(sm::code::stopping, "stopping on {}", sig == SIGINT ? "SIGINT" : "SIGTERM");
    rc = a_.cfg.once && !manager_->subnet_up() ? 1 : 0;
  } else if (a_.cfg.once && manager_->state() == mad::SmState::standby) {
    log_.info(sm::code::once_standing_by, "standing by: another SM is master");
  } else if (a_.cfg.once && !manager_->subnet_up()) {
    log_.error(sm::code::once_not_up, "subnet not up after {} sweeps: {}", manager_->sweeps(), manager_->last_sweep().failure);
    rc = 1;
  }
  if (store_) {
    note_peers();
    note_groups();
    if (auto f = store_->flush_events(); !f) log_.error(sm::code::store_flush_failed, "store: {}", f.error().message);
  }
  log_.set_observer(nullptr);
  return rc;
}

}  // namespace

int run_daemon(DaemonArgs args) {
  sm::Logger log(sm::parse_level(args.cfg.log_level));
  Daemon d(std::move(args), log);
  return d.run();
}

}  // namespace cli
