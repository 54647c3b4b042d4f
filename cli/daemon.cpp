#include "cli/daemon.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/control.h"
#include "cli/daemon_status.h"
#include "cli/json.h"
#include "cli/log_file.h"
#include "cli/metrics_server.h"
#include "cli/notify.h"
#include "cli/port_spec.h"
#include "cli/reload.h"
#include "cli/web_server.h"
#include "mad/umad_transport.h"
#include "metrics/sm_metrics.h"
#include "service/service.h"

namespace cli {

namespace {

// --once gives up after this many sweeps that did not bring the subnet up (one a second).
constexpr uint64_t kOnceMaxSweeps = 5;
constexpr auto kStatusEvery = std::chrono::milliseconds(250);
constexpr auto kHandoverWait = std::chrono::seconds(1);
// The loop publishes the metrics this often (scrapes are a second or more apart).
constexpr auto kMetricsEvery = std::chrono::milliseconds(200);
constexpr int kExitConfig = 2;  // as cmd_run's for a bad option

std::atomic<int> g_stop{0};
std::atomic<bool> g_reload{false};
std::atomic<bool> g_reopen{false};
extern "C" void on_stop_signal(int sig) { g_stop.store(sig); }
extern "C" void on_usr1_signal(int) { g_reopen.store(true); }

// What reading the configuration found worth a warning (at start and on SIGHUP).
void log_config_notes(sm::Logger& log, const DaemonConfig& cfg) {
  for (const std::string& n : cfg.notes) log.warn(sm::code::config_notes, "{}", n);
}
extern "C" void on_hup_signal(int) { g_reload.store(true); }

// For the drills only (tests/ibsim/ha_busy.sh): FABRICSM_TEST_ROUTING_DELAY=N:MS makes every
// routing from the Nth on take MS milliseconds longer on the worker (a slow or, with a huge MS,
// a hung engine). Malformed: ignored, with a warning.
std::function<void()> test_routing_delay(std::vector<std::string>& notes) {
  const char* v = std::getenv("FABRICSM_TEST_ROUTING_DELAY");
  if (!v || !*v) return nullptr;
  unsigned from = 0;
  unsigned long long ms = 0;
  if (std::sscanf(v, "%u:%llu", &from, &ms) != 2) {
    notes.push_back(fmt::format("FABRICSM_TEST_ROUTING_DELAY={}: not N:MS, ignored", v));
    return nullptr;
  }
  notes.push_back(fmt::format("routing from the {}th on takes {} ms longer (FABRICSM_TEST_ROUTING_DELAY)", from, ms));
  auto count = std::make_shared<std::atomic<unsigned>>(0);
  return [count, from, ms] {
    if (count->fetch_add(1) + 1 >= from) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
}

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
  // SIGUSR1 reopens log_file, as logrotate's configuration for OpenSM expects; without one it
  // does nothing (and never kills the SM).
  sa.sa_handler = on_usr1_signal;
  sigaction(SIGUSR1, &sa, nullptr);
}

class Daemon {
 public:
  Daemon(DaemonArgs args, sm::Logger& log, LogFile* log_file)
      : a_(std::move(args)), log_(log), log_file_(log_file) {}
  int run();

 private:
  void start_control();
  bool start_metrics();
  bool start_web();
  void watch_metrics();
  void publish_metrics();
  bool tick();  // between batches: signals, control requests, notify; true = stop
  void reload();
  void serve_control();
  std::string clear_health(const std::string& spec);

  DaemonArgs a_;
  sm::Logger& log_;
  LogFile* log_file_;  // log_file, when set
  std::unique_ptr<mad::UmadTransport> transport_;
  std::unique_ptr<service::Service> service_;
  std::unique_ptr<cli::ControlServer> control_;
  std::unique_ptr<cli::MetricsServer> metrics_;
  std::unique_ptr<cli::WebServer> web_;
  uint64_t web_events_ = UINT64_MAX;  // Service::events_logged() when the web view last got them
  std::shared_ptr<const std::vector<sm::store::Event>> web_event_list_;
  metrics::SmCollector collector_;
  std::chrono::steady_clock::time_point next_metrics_{};
  cli::Notifier notify_ = cli::Notifier::from_environment();
  StatusContext ctx_;
  bool ready_sent_ = false;
  std::optional<std::chrono::steady_clock::time_point> stop_by_;  // stopping: exit by then
  std::string last_status_;
  std::chrono::steady_clock::time_point next_status_{}, next_watchdog_{};
};

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

// Before the port is opened: an address that cannot be had stops the daemon with nothing sent.
bool Daemon::start_metrics() {
  if (a_.cfg.metrics_listen.empty()) return true;
  auto at = parse_listen_address(a_.cfg.metrics_listen);  // checked by config
  if (at && !at->loopback)
    log_.warn(sm::code::metrics_not_loopback, "metrics_listen {} is not a loopback address: /metrics is open to "
              "the network, as configured", at->str());
  auto m = at ? MetricsServer::start(*at) : std::unexpected(at.error());
  if (!m) {
    log_.error(sm::code::metrics_bind_failed, "{}", m.error().message);
    return false;
  }
  metrics_ = std::move(*m);
  log_.info(sm::code::metrics_listening, "metrics: http://{}/metrics", at->str());
  return true;
}

bool Daemon::start_web() {
  if (a_.cfg.web_listen.empty()) return true;
  auto at = parse_listen_address(a_.cfg.web_listen);  // checked by config, with the token rule
  auto w = at ? WebServer::start({.at = *at, .token = a_.cfg.web_token}) : std::unexpected(at.error());
  if (!w) {
    log_.error(sm::code::web_bind_failed, "{}", w.error().message);
    return false;
  }
  web_ = std::move(*w);
  log_.info(sm::code::web_listening, "web view: http://{}/ ({})", at->str(),
            a_.cfg.web_token.empty() ? "no token asked: loopback only" : "the token of web_token_file asked");
  return true;
}

// The collector hears every sweep, HA note and counter sweep; observers set before keep
// being called.
void Daemon::watch_metrics() {
  if (!metrics_ && !web_) return;
  auto sweep = std::move(service_->on_sweep_done);
  service_->on_sweep_done = [this, sweep](const std::shared_ptr<const sm::Subnet>& s) {
    if (sweep) sweep(s);
    if (s) collector_.on_sweep(*s);
  };
  auto note = std::move(service_->on_ha_note);
  service_->on_ha_note = [this, note](const ha::Note& n) {
    if (note) note(n);
    collector_.on_ha_note(n);
  };
  auto counters = std::move(service_->on_counters);
  service_->on_counters = [this, counters](const std::shared_ptr<const sm::perfmgr::Snapshot>& s) {
    if (counters) counters(s);
    if (s) collector_.on_perf(*s);
  };
}

// A copy of the figures (a few hundred bytes) and the Snapshot's pointer: the HTTP thread
// renders from them.
void Daemon::publish_metrics() {
  auto figures = std::make_shared<const metrics::SmFigures>(collector_.figures(service_.get()));
  if (metrics_) metrics_->publish(figures, service_->perf());
  if (!web_) return;
  if (service_->events_logged() != web_events_) {  // the list is copied only when it moved
    web_events_ = service_->events_logged();
    const auto& e = service_->recent_events();
    web_event_list_ = std::make_shared<const std::vector<sm::store::Event>>(e.begin(), e.end());
  }
  web_->publish({.subnet = service_->subnet(), .perf = service_->perf(), .sm = figures, .events = web_event_list_,
                 .loads = nullptr, .source = "fabricsm run"});
}

void Daemon::serve_control() {
  for (auto& req : control_->take()) {
    if (req.line == "status") {
      req.reply(status_json(*service_, ctx_));
    } else if (req.line == "status text") {
      req.reply(status_text(*service_, ctx_));
    } else if (req.line == "resweep") {
      service_->request_sweep("asked for on the control socket", true);  // reads every LFT block back
      req.reply(json_text({{"ok", true}}));
    } else if (req.line == "health clear" || req.line.starts_with("health clear ")) {
      req.reply(clear_health(req.line.size() > 13 ? req.line.substr(13) : std::string()));
    } else {
      req.reply(json_text({{"error", "unknown request; try status, status text, resweep or health clear"}}));
    }
  }
}

// "health clear [NODE:PORT]": the port as the last counter sweep knew it (either end of a cable).
std::string Daemon::clear_health(const std::string& spec) {
  std::optional<sm::perfmgr::Cable> port;
  if (!spec.empty()) {
    auto p = parse_port_spec(spec);
    if (!p) return json_text({{"error", p.error().message}});
    const auto snap = service_->perf();
    if (snap)
      for (const auto& s : snap->ports) {
        if (p->matches(s.local)) port = sm::perfmgr::Cable{s.local.node, s.local.port};
        else if (s.remote && p->matches(*s.remote)) port = sm::perfmgr::Cable{s.remote->node, s.remote->port};
        if (port) break;
      }
    if (!port) return json_text({{"error", "no port " + p->str() + " in the last counter sweep"}});
  }
  return json_text({{"cleared", service_->clear_health(port)}});
}

void Daemon::reload() {
  (void)notify_.send("RELOADING=1");
  auto next = load_config(a_.config_file, a_.command_line);
  if (!next) {
    log_.error(sm::code::reload_refused, "SIGHUP: configuration refused, the running settings stay: {}", next.error().message);
  } else {
    Reload r = plan_reload(a_.cfg, *next);
    log_config_notes(log_, *next);
    if (!r.restart.empty())
      log_.warn(sm::code::reload_restart_only, "SIGHUP: these take effect at the next start, not now: {}",
                fmt::join(r.restart, ", "));
    log_.set_level(sm::parse_level(r.apply.log_level));
    service_->reconfigure(r.apply.sm, r.apply.perf, r.apply.adapt);
    log_.info(sm::code::reload_done, "SIGHUP: configuration {} re-read: {}",
              a_.config_file.empty() ? "(none)" : a_.config_file,
              r.changed.empty() ? "nothing to change now" : fmt::format("{}", fmt::join(r.changed, ", ")));
    a_.cfg = std::move(r.apply);
  }
  (void)notify_.send("READY=1");
}

bool Daemon::tick() {
  const sm::SubnetManager& m = service_->manager();
  const auto now = std::chrono::steady_clock::now();
  // A job on the worker hung (worker_timeout): the SM stepped down; once the standby has the
  // subnet (or after the handover wait) the daemon ends with an error, for systemd to restart
  // it with a thread of its own stuck no more.
  if (m.wedged()) {
    if (!stop_by_) stop_by_ = now + kHandoverWait;
    if (m.state() != mad::SmState::master || now >= *stop_by_) return true;
  }
  if (g_stop.load() != 0) {
    if (stop_by_) return m.state() != mad::SmState::master || now >= *stop_by_;
    // A master with a standby hands the subnet over first, so the standby does not have to
    // wait out its heartbeat timeout.
    stop_by_ = now + kHandoverWait;
    if (!service_->resign()) return true;
    log_.info(sm::code::handover_wait, "stopping: waiting up to {} ms for the standby to take the subnet over",
              std::chrono::duration_cast<std::chrono::milliseconds>(kHandoverWait).count());
    return false;
  }
  if (g_reload.exchange(false)) reload();
  if (g_reopen.exchange(false) && log_file_) {
    if (auto r = log_file_->reopen(); r)
      log_.info(sm::code::log_file_reopened, "SIGUSR1: log file {} reopened", log_file_->path());
    else
      log_.error(sm::code::log_file_failed, "SIGUSR1: {}", r.error().message);
  }
  if (control_) serve_control();
  if ((metrics_ || web_) && now >= next_metrics_) {
    next_metrics_ = now + kMetricsEvery;
    publish_metrics();
  }
  if (!ready_sent_ && ((m.subnet_up() && m.state() == mad::SmState::master) || m.state() == mad::SmState::standby)) {
    ready_sent_ = true;
    (void)notify_.send(fmt::format("READY=1\nSTATUS={}", status_summary(*service_)));
  }
  if (now >= next_status_) {
    next_status_ = now + kStatusEvery;
    if (std::string s = status_summary(*service_); s != last_status_) {
      last_status_ = s;
      (void)notify_.send("STATUS=" + s);
    }
  }
  if (auto w = notify_.watchdog_interval(); w && now >= next_watchdog_) {
    next_watchdog_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(*w);
    (void)notify_.send("WATCHDOG=1");
  }
  if (!a_.cfg.once || m.sweeping()) return false;
  // As `opensm -o`: once is done when the subnet is up, or when another SM is master.
  return m.subnet_up() || m.sweeps() >= kOnceMaxSweeps || m.state() == mad::SmState::standby;
}

int Daemon::run() {
  if (!start_metrics() || !start_web()) return kExitConfig;
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
  log_config_notes(log_, a_.cfg);
  ctx_ = StatusContext{.port = p, .config_file = a_.config_file, .db_path = a_.cfg.db_path,
                       .started = std::chrono::steady_clock::now()};

  std::vector<std::string> hooks;
  a_.cfg.sm.routing_hook = test_routing_delay(hooks);
  if (const char* v = std::getenv("FABRICSM_TEST_WORKER_INLINE"); v && std::string_view(v) == "1") {
    a_.cfg.sm.inline_worker = true;  // the loop waits for its worker: the old, silent loop
    hooks.push_back("the event loop waits for every worker job (FABRICSM_TEST_WORKER_INLINE)");
  }
  for (const std::string& h : hooks) log_.warn(sm::code::test_hook, "test only: {}", h);
  auto svc = service::Service::create(
      *transport_, service::Config{.sm = a_.cfg.sm, .db_path = a_.cfg.db_path, .on_corrupt = a_.cfg.on_corrupt_db, .db_group = a_.cfg.db_gid,
                                   .store_thread = true, .perf = a_.cfg.perf, .adapt = a_.cfg.adapt, .imported_lids = a_.cfg.imported_lids},
      log_);
  if (!svc) return 1;  // the reason is logged
  service_ = std::move(*svc);
  if (web_ && !a_.cfg.db_path.empty())
    if (auto r = web_->attach_store(a_.cfg.db_path); !r)
      log_.warn(sm::code::web_no_store, "web view: the store {} cannot be read ({}): no counter history, no cables "
                "gone before this start", a_.cfg.db_path, r.error().message);
  start_control();
  watch_metrics();
  install_signal_handlers();
  service_->start();
  if (metrics_ || web_) publish_metrics();
  auto loop = mad::run_loop(*service_, *transport_, [this] { return tick(); });
  const sm::SubnetManager& m = service_->manager();

  (void)notify_.send("STOPPING=1");
  service_->flush();  // the store's writes end before the outcome is judged
  const mad::UmadStats st = transport_->stats();
  const auto& ms = m.mad_stats();
  log_.info(sm::code::umad_stats, "umad: {} MADs sent ({} failed), {} received, {} dropped (kernel timeouts), SMPs: {} sent, "
            "{} resent, {} unanswered", st.sent, st.send_errors, st.received, st.dropped, ms.sent, ms.retried,
            ms.timed_out);
  int rc = 0;
  if (!loop) {
    log_.error(sm::code::transport_failed, "transport failed: {}", loop.error().message);
    rc = 1;
  } else if (m.wedged()) {
    log_.error(sm::code::wedged_exit, "exiting: a job of the SM's worker did not end (code 410); the SM stepped "
               "down ({}); under systemd, Restart= starts it again", mad::sm_state_name(m.state()));
    rc = 1;
  } else if (const int sig = g_stop.load(); sig != 0) {
    log_.info(sm::code::stopping, "stopping on {}", sig == SIGINT ? "SIGINT" : "SIGTERM");
    rc = a_.cfg.once && !m.subnet_up() ? 1 : 0;
  } else if (a_.cfg.once && m.state() == mad::SmState::standby) {
    log_.info(sm::code::once_standing_by, "standing by: another SM is master");
  } else if (a_.cfg.once && !m.subnet_up()) {
    log_.error(sm::code::once_not_up, "subnet not up after {} sweeps: {}", m.sweeps(), m.last_sweep().failure);
    rc = 1;
  } else if (a_.cfg.once && !service_->store_status().error.empty()) {
    // Up, but nothing of it is in the store: a restart would not find its LIDs.
    log_.error(sm::code::once_store_failed, "subnet up, but the store {} did not take it: {}", a_.cfg.db_path,
               service_->store_status().error);
    rc = 1;
  }
  return rc;
}

// OpenSM's -B: the parent returns at once, the child runs detached with no terminal.
bool daemonize() {
  const pid_t pid = ::fork();
  if (pid < 0) {
    fmt::print(stderr, "fabricsm run: daemon: fork: {}\n", std::strerror(errno));
    std::exit(1);
  }
  if (pid > 0) {
    fmt::print("fabricsm: running in the background as PID {}\n", pid);
    return false;
  }
  (void)::setsid();
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    for (int fd : {0, 1, 2}) (void)::dup2(null, fd);
    if (null > 2) ::close(null);
  }
  return true;
}

}  // namespace

int run_daemon(DaemonArgs args) {
  sm::Logger log(sm::parse_level(args.cfg.log_level));
  std::unique_ptr<LogFile> file;
  if (!args.cfg.log_file.empty()) {
    auto f = LogFile::open({.path = args.cfg.log_file, .append = args.cfg.accum_log_file,
                            .max_bytes = args.cfg.log_max_size_mb << 20});
    if (!f) {  // before anything started: the operator sees it on the terminal or in the journal
      fmt::print(stderr, "fabricsm run: {}\n", f.error().message);
      return kExitConfig;
    }
    file = std::move(*f);
  }
  if (args.cfg.daemon && !daemonize()) return 0;
  if (file) {
    const bool to_stderr = !args.cfg.daemon;
    log.set_sink([&file, to_stderr](sm::Level, std::string_view line) {
      if (to_stderr) {
        std::fwrite(line.data(), 1, line.size(), stderr);
        std::fputc('\n', stderr);
        std::fflush(stderr);
      }
      file->write(line);
    });
  }
  Daemon d(std::move(args), log, file.get());
  return d.run();
}

}  // namespace cli
