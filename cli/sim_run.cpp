#include "cli/sim_run.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "cli/progress.h"
#include "service/service.h"
#include "sim/sim_transport.h"
#include "sim/vl_verifier.h"

namespace cli {

namespace {
// The database and its WAL, in bytes (0 without one).
int64_t file_bytes(const std::string& db) {
  if (db.empty()) return 0;
  std::error_code ec;
  int64_t n = 0;
  for (const char* suffix : {"", "-wal"}) {
    const auto sz = std::filesystem::file_size(db + suffix, ec);
    if (!ec) n += static_cast<int64_t>(sz);
  }
  return n;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// --flaps: `n` switch-to-switch cables, spread over the fabric's (every len/n-th, in node and
// port order, so the same fabric flaps the same cables), each down at from + k * span / n and up
// again half a step later.
class Flaps {
 public:
  Flaps(sim::SimFabric& f, int n, mad::Nanos from, mad::Nanos until) : f_(f) {
    if (n <= 0) return;
    std::vector<std::pair<sim::NodeIdx, uint8_t>> cables;
    for (sim::NodeIdx i = 0; i < f.nodes().size(); ++i)
      if (f.node(i).is_switch())
        for (const auto& p : f.node(i).ports)
          if (p.num && p.link_up() && p.peer > i && f.node(p.peer).is_switch()) cables.emplace_back(i, p.num);
    if (cables.empty()) return;
    const mad::Nanos step = (until - from) / n;
    for (int k = 0; k < n; ++k) {
      const auto c = cables[static_cast<size_t>(k) * cables.size() / static_cast<size_t>(n)];
      events_.push_back({from + step * k, c, false});
      events_.push_back({from + step * k + step / 2, c, true});
    }
  }
  // Takes down and brings up what is due by `now`.
  void at(mad::Nanos now) {
    for (; next_ < events_.size() && events_[next_].when <= now; ++next_) {
      const Event& e = events_[next_];
      if (e.up) (void)f_.link_up(e.cable.first, e.cable.second);
      else (void)f_.link_down(e.cable.first, e.cable.second);
    }
  }

 private:
  struct Event {
    mad::Nanos when;
    std::pair<sim::NodeIdx, uint8_t> cable;
    bool up;
  };
  sim::SimFabric& f_;
  std::vector<Event> events_;
  size_t next_ = 0;
};
}  // namespace

mad::Result<SimOutcome> run_sim(const sim::FabricSpec& spec, const SimRunOptions& o) {
  SimOutcome out;
  out.engine = o.engine;
  const auto t_build = std::chrono::steady_clock::now();
  auto built = sim::SimFabric::build(spec, sim::SimConfig{.drop_rate = o.loss, .seed = o.seed});
  if (!built) return std::unexpected(built.error());
  sim::SimFabric& f = **built;
  out.sm_node = o.sm_node.empty() ? (spec.nodes.empty() ? "" : spec.nodes.front().name) : o.sm_node;
  auto at = f.find(out.sm_node);
  if (!at) return mad::fail(mad::Errc::not_found, fmt::format("no node \"{}\" in the fabric", out.sm_node));
  auto ep = f.attach(*at, f.node(*at).is_switch() ? 0 : 1);
  if (!ep) return std::unexpected(ep.error());
  f.set_is_sm(*ep, true);  // what opening the issm device does
  out.build_s = seconds_since(t_build);

  sim::SimTransport transport(f, *ep);
  sm::Logger log(o.log_level);
  sm::SmConfig cfg;
  cfg.routing_engine = o.engine;
  cfg.mads.window = o.window;
  cfg.ports.lmc = static_cast<uint8_t>(o.lmc);
  cfg.m_key_secret = o.m_key_secret;
  cfg.ports.m_key_protect = o.m_key_protect;
  // The same stack `fabricsm run` runs: with --db, the store a daemon would leave.
  sm::perfmgr::Config perf;
  perf.enabled = o.counter_sweeps > 0 || o.adapt_rounds > 0;
  perf.sweep_time = std::chrono::seconds(10);
  sm::adapt::Config adapt;
  adapt.enabled = o.adapt_rounds > 0;
  adapt.min_interval = perf.sweep_time;  // virtual time: rounds as soon as a clean measurement allows
  auto svc = service::Service::create(transport, service::Config{.sm = cfg, .db_path = o.db, .store_thread = true, .perf = perf, .adapt = adapt}, log);
  if (!svc) return std::unexpected(svc.error());
  service::Service& service = **svc;
  const sm::SubnetManager& manager = service.manager();
  Progress progress(o.progress);
  const auto t_sm = std::chrono::steady_clock::now();
  service.on_sweep_done = [&out](const std::shared_ptr<const sm::Subnet>& s) {
    if (s) out.sweeps.push_back(s->sweep);
  };
  service.start();
  auto loop = mad::run_loop(service, transport, [&] {
    progress.update(manager);
    if (manager.sweeping()) return false;
    return manager.subnet_up() || manager.sweeps() >= static_cast<uint64_t>(o.max_sweeps);
  });
  // Another SM's routes, in place before the traffic runs over them (cmd_sim keeps the
  // PerfMgr and adaptive switches out: both need this SM's LIDs).
  if (loop && !o.import_lfts.empty()) {
    auto dump = sim::load_lft_dump(o.import_lfts);
    if (!dump) return std::unexpected(dump.error());
    auto r = sim::import_lfts(f, *dump);
    if (!r) return mad::fail(r.error().code, fmt::format("{}: {}", o.import_lfts, r.error().message));
    out.imported = *r;
    if (!o.import_sls.empty()) {
      auto sls = sim::load_sl_dump(o.import_sls);
      if (!sls) return std::unexpected(sls.error());
      auto si = sim::import_sls(f, *sls);
      if (!si) return mad::fail(si.error().code, fmt::format("{}: {}", o.import_sls, si.error().message));
      out.sls_imported = std::move(*si);
    }
  }
  if (loop && manager.subnet_up() && !o.traffic.pattern.empty()) {
    progress.phase("traffic");
    const std::shared_ptr<const sm::Subnet> published = manager.subnet();
    auto t = run_traffic(f, published.get(), o.traffic);
    if (!t) return std::unexpected(t.error());
    out.traffic = std::move(*t);
    if (o.adapt_rounds > 0) {
      progress.phase("adapting");
      auto a = run_adapt_loop(service, f, transport, o.traffic, *out.traffic, AdaptOptions{.max_rounds = static_cast<size_t>(o.adapt_rounds)});
      if (!a) return std::unexpected(a.error());
      out.adapt = std::move(*a);
    }
  }
  if (loop && manager.subnet_up() && (o.counter_sweeps > 0 || o.steady_s > 0)) {
    progress.phase(o.counter_sweeps > 0 ? "counter sweeps" : "steady");
    service.flush();  // the sweep's commit (on the store's thread) is not the counters' growth
    const int64_t db_before = file_bytes(o.db);
    const auto t_counters = std::chrono::steady_clock::now();
    service.on_counters = [&](const std::shared_ptr<const sm::perfmgr::Snapshot>& snap) {
      out.counters.push_back(snap->sweep);
      if (out.traffic) {
        using sm::perfmgr::Counter, sm::perfmgr::index;
        out.perf_busiest.reset();
        for (const auto& p : snap->ports) {
          const double gbps = p.rates[index(Counter::xmit_data)] * 8 / 1e9;
          if (p.has_rates && (!out.perf_busiest || gbps > out.perf_busiest->xmit_gbps))
            out.perf_busiest = SimOutcome::PerfSeen{p.local.description, p.local.port, gbps, p.rates[index(Counter::xmit_wait)]};
        }
      }
    };
    const mad::Nanos from = transport.clock().now();
    const mad::Nanos until = from + std::chrono::duration_cast<mad::Nanos>(std::chrono::duration<double>(o.steady_s));
    out.bringup_loop = service.loop_figures();
    service.reset_loop_figures();
    if (o.resweep) service.request_sweep("--resweep", true);
    Flaps flaps(f, o.flaps, from, until);
    loop = mad::run_loop(service, transport, [&] {
      flaps.at(transport.clock().now());
      return out.counters.size() >= static_cast<size_t>(o.counter_sweeps) && transport.clock().now() >= until;
    });
    out.steady = {std::chrono::duration<double>(transport.clock().now() - from).count(), service.loop_figures()};
    if (o.counter_sweeps > 0) {
      out.counters_wall_s = seconds_since(t_counters);
      service.flush();  // the last counter sweep's commit too
      out.counters_db_bytes = file_bytes(o.db) - db_before;
    }
  }
  service.flush();
  out.counters_commit_ms = service.store_status().last_counters_ms;
  out.commit_ms = service.store_status().last_commit_ms;
  out.store_error = service.store_status().error;
  out.sm_s = seconds_since(t_sm) - (out.traffic ? out.traffic->wall_s : 0.0);  // the traffic's own time apart
  if (!loop) return std::unexpected(loop.error());
  progress.phase("verifying");
  const auto t_verify = std::chrono::steady_clock::now();
  out.verify = sim::verify_routing(f);
  out.verify_s = seconds_since(t_verify);
  if (o.metrics && (manager.subnet_up() || out.imported)) {  // a failed engine's LFTs are not its routing
    progress.phase("measuring routes");
    const auto t_metrics = std::chrono::steady_clock::now();
    out.metrics = sim::measure_routing(f, sim::MetricsOptions{.keep_link_loads = o.link_loads});
    out.metrics_s = seconds_since(t_metrics);
    for (const sim::LinkLoad& l : out.metrics->links)
      out.links.push_back(NamedLinkLoad{f.node(l.from).name, l.from_port, f.node(l.to).name,
                                        l.to_port, l.routes});
    out.metrics->links.clear();
    // The SLs as applications get them, from the SA over the fabric; per-VL deadlock freedom
    // only when some SL is not 0 (one VL: the graph above is the whole story). Asked only up
    // to 20M records (the one-VL engines on the largest fabrics would spend minutes on it).
    if (!out.imported) {
      const auto t_sl = std::chrono::steady_clock::now();
      auto q = sim::ask_sls(f, *ep, service, 20'000'000);
      if (!q) return std::unexpected(q.error());
      out.sl_query = std::move(*q);
      if (out.sl_query.any_nonzero) out.vl = sim::verify_vls(f, out.sl_query.sls);
      out.sl_query_s = seconds_since(t_sl);
      out.metrics_s += out.sl_query_s;
    } else if (out.sls_imported) {  // the dump's SLs, on the SL2VL tables it wrote
      if (out.sls_imported->any_nonzero) out.vl = sim::verify_vls(f, out.sls_imported->sls);
      out.sls_imported->sls = {};
    }
  }
  if (o.metrics && o.bounds) {  // the fabric's: also beside an engine that failed
    progress.phase("cut bounds");
    const auto t_bounds = std::chrono::steady_clock::now();
    out.bounds = sim::cut_bounds(f);
    out.bounds_s = seconds_since(t_bounds);
  }
  progress.done();
  out.up = manager.subnet_up();
  out.sweep = manager.last_sweep();
  out.mads = manager.mad_stats();
  out.mkey_refused = f.stats().mkey_refused;
  if (o.serve && !o.serve(service, f, out)) return mad::fail(mad::Errc::io, "the web view could not be served");
  return out;
}

}  // namespace cli
