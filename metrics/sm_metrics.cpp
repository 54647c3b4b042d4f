#include "metrics/sm_metrics.h"

#include <fmt/format.h>

#include "mad/sa_mad.h"
#include "metrics/port_metrics.h"
#include "service/service.h"

namespace metrics {

std::string_view ha_kind_name(size_t kind) {
  static constexpr std::array<std::string_view, kHaKinds> names{"state", "master_lost", "handover",
                                                                "security", "peer", "warning"};
  return kind < names.size() ? names[kind] : "other";
}

std::string_view sm_state_label(mad::SmState s) {
  switch (s) {
    case mad::SmState::not_active: return "not_active";
    case mad::SmState::discovering: return "discovering";
    case mad::SmState::standby: return "standby";
    case mad::SmState::master: return "master";
  }
  return "unknown";
}

void SmCollector::on_sweep(const sm::Subnet& s) {
  const sm::SweepReport& r = s.sweep;
  SweepFigures& k = r.heavy ? acc_.heavy : acc_.incremental;
  ++k.count;
  if (!r.up) ++k.not_up;
  k.seconds.observe(r.total.wall_ms / 1000.0);
  acc_.switches = r.switches;
  acc_.cas = r.cas;
  acc_.links = r.links;
  uint64_t lids = 0;
  for (const auto& l : r.lids.lids) lids += uint64_t{1} << l.lmc;
  acc_.lids_in_use = lids;
  acc_.state = s.sm.state;
  acc_.priority = s.sm.info.priority;
  acc_.up = s.sm.up;
  acc_.mkey_violations = s.sm.mkey_violations;
  acc_.bad_mkey_traps = s.sm.bad_mkey_traps;
  acc_.mkey_refusing = s.sm.mkey_refusing;
}

void SmCollector::on_ha_note(const ha::Note& n) {
  const auto k = static_cast<size_t>(n.kind);
  if (k < kHaKinds) ++acc_.ha_events[k];
}

void SmCollector::on_perf(const sm::perfmgr::Snapshot& p) {
  // A sweep number seen before is the same Snapshot again: counted once.
  if (p.sweep.number == last_perf_sweep_ && acc_.perf_sweeps_seen != 0) return;
  last_perf_sweep_ = p.sweep.number;
  ++acc_.perf_sweeps_seen;
  acc_.perf_ports_read += p.sweep.ports;
  acc_.perf_queries += p.sweep.queries;
  acc_.perf_timeouts += p.sweep.timeouts;
  acc_.perf_clears += p.sweep.clears;
  acc_.perf_seconds.observe(p.sweep.duration_ms / 1000.0);
}

std::vector<double> loop_buckets() {
  std::vector<double> b;
  for (double ms : service::LoopFigures::kBounds) b.push_back(ms / 1000.0);
  return b;
}

SmFigures SmCollector::figures(const service::Service* svc) const {
  SmFigures f = acc_;
  if (!svc) return f;
  // The loop's own thread: these are the service's counters as of now, copied.
  const sm::SubnetManager& m = svc->manager();
  f.state = m.state();
  f.up = m.subnet_up();
  f.priority = m.config().ha.priority;
  f.smps = m.mad_stats();
  f.sa = svc->sa().stats();
  f.sa_master = svc->index() != nullptr;
  f.has_store = svc->has_store();
  f.store_commits = svc->store_status().commits;
  f.store_failed_commits = svc->store_status().failed_commits;
  f.store_last_commit_ms = svc->store_status().last_commit_ms;
  const service::LoopFigures& l = svc->loop_figures();
  f.loop_seconds.assign(std::vector<uint64_t>(l.buckets.begin(), l.buckets.end()), l.total_ms / 1000.0);
  f.loop_longest_ms = l.longest_ms;
  f.loop_long_turns = l.long_turns;
  return f;
}

namespace {

void one(Writer& w, std::string_view name, Type t, std::string_view help, double v) {
  w.family(name, t, help);
  w.sample({}, v);
}
void one(Writer& w, std::string_view name, Type t, std::string_view help, uint64_t v) {
  w.family(name, t, help);
  w.sample({}, v);
}

}  // namespace

void write_sm(Writer& w, const SmFigures& f) {
  w.family("fabricsm_sm_state", Type::gauge, "1 for the SMInfo state the SM is in, 0 for the others");
  for (auto s : {mad::SmState::not_active, mad::SmState::discovering, mad::SmState::standby, mad::SmState::master})
    w.sample({{"state", sm_state_label(s)}}, uint64_t{f.state == s});
  one(w, "fabricsm_sm_priority", Type::gauge, "SMInfo priority of this SM", uint64_t{f.priority});
  one(w, "fabricsm_subnet_up", Type::gauge, "1 once this SM as master brought the subnet up (SUBNET UP)",
      uint64_t{f.up});

  w.family("fabricsm_sweeps", Type::counter, "sweeps ended, by kind (heavy: the whole subnet walked)");
  w.sample({{"kind", "heavy"}}, f.heavy.count);
  w.sample({{"kind", "incremental"}}, f.incremental.count);
  w.family("fabricsm_sweeps_not_up", Type::counter, "sweeps that ended without the subnet up, by kind");
  w.sample({{"kind", "heavy"}}, f.heavy.not_up);
  w.sample({{"kind", "incremental"}}, f.incremental.not_up);
  w.family("fabricsm_sweep_duration_seconds", Type::histogram, "wall time of sweeps, by kind");
  w.histogram({{"kind", "heavy"}}, f.heavy.seconds);
  w.histogram({{"kind", "incremental"}}, f.incremental.seconds);

  w.family("fabricsm_nodes", Type::gauge, "nodes the last sweep found, by type");
  w.sample({{"type", "switch"}}, f.switches);
  w.sample({{"type", "ca"}}, f.cas);
  one(w, "fabricsm_links", Type::gauge, "links the last sweep found", f.links);
  one(w, "fabricsm_lids_in_use", Type::gauge, "LIDs the last sweep assigned (each of an LMC range)", f.lids_in_use);

  one(w, "fabricsm_smps_sent", Type::counter, "MADs the SM's transaction layer sent, resends included", f.smps.sent);
  one(w, "fabricsm_smps_retried", Type::counter, "resends", f.smps.retried);
  one(w, "fabricsm_smps_timed_out", Type::counter, "requests given up after every resend", f.smps.timed_out);

  w.family("fabricsm_ha_events", Type::counter,
           "HA events by kind (master_lost: a standby saw its master go, a failover began)");
  for (size_t k = 0; k < kHaKinds; ++k) w.sample({{"kind", ha_kind_name(k)}}, f.ha_events[k]);

  w.family("fabricsm_loop_turn_duration_seconds", Type::histogram,
           "wall time of the SM's event loop turns: a MAD (an SMInfo poll, an SA query) arriving in one waits for its end");
  w.histogram({}, f.loop_seconds);
  one(w, "fabricsm_loop_turn_longest_seconds", Type::gauge, "the longest turn of the event loop since start",
      f.loop_longest_ms / 1000.0);
  one(w, "fabricsm_loop_turns_long", Type::counter, "event loop turns over 50 ms (each logged, code 133)",
      f.loop_long_turns);

  one(w, "fabricsm_mkey_violations", Type::counter,
      "M_KeyViolations counted by ports that hold this SM's M_Key (SMPs with a wrong key reached them)",
      f.mkey_violations);
  one(w, "fabricsm_bad_mkey_traps", Type::counter,
      "Bad M_Key traps (256) for SMPs not this SM's own: someone sent a port a Get or Set with a wrong key",
      f.bad_mkey_traps);
  one(w, "fabricsm_mkey_ports_refusing", Type::gauge,
      "ports that hold an M_Key this SM does not know, left alone until their lease runs out", f.mkey_refusing);

  one(w, "fabricsm_sa_master", Type::gauge, "1 while the SA answers (this SM is master with an index)",
      uint64_t{f.sa_master});
  w.family("fabricsm_sa_queries", Type::counter, "SA requests answered, by attribute");
  for (const auto& [attr, n] : f.sa.answered_by_attr) {
    const std::string_view name = mad::sa_attr::name(attr);
    const std::string label = name == "Unknown" ? fmt::format("0x{:04x}", attr) : std::string(name);
    w.sample({{"attribute", label}}, n);
  }
  one(w, "fabricsm_sa_requests", Type::counter, "SA requests received", f.sa.requests);
  one(w, "fabricsm_sa_errors", Type::counter, "SA answers with an error status", f.sa.errors);
  one(w, "fabricsm_sa_dropped", Type::counter, "SA requests dropped (a full queue)", f.sa.dropped);

  if (f.has_store) {
    one(w, "fabricsm_store_commits", Type::counter, "sweeps the store committed", f.store_commits);
    one(w, "fabricsm_store_failed_commits", Type::counter, "store commits that failed", f.store_failed_commits);
    one(w, "fabricsm_store_last_commit_seconds", Type::gauge, "wall time of the last store commit",
        f.store_last_commit_ms / 1000.0);
  }

  if (f.perf_sweeps_seen != 0) {
    w.family("fabricsm_perfmgr_sweep_duration_seconds", Type::histogram, "wall time of counter sweeps");
    w.histogram({}, f.perf_seconds);
    one(w, "fabricsm_perfmgr_ports_read", Type::counter, "port reads by counter sweeps", f.perf_ports_read);
    one(w, "fabricsm_perfmgr_queries", Type::counter, "PMA MADs counter sweeps sent, resends included",
        f.perf_queries);
    one(w, "fabricsm_perfmgr_port_timeouts", Type::counter, "port reads that got no answer", f.perf_timeouts);
    one(w, "fabricsm_perfmgr_clears", Type::counter, "PortCounters Sets clearing a saturating counter",
        f.perf_clears);
  }
}

std::string render_page(const SmFigures* sm, const sm::perfmgr::Snapshot* perf,
                        const std::function<bool(std::string_view)>& sink, size_t chunk) {
  Writer w;
  if (sink) w.set_sink(sink, chunk);
  if (sm) write_sm(w, *sm);
  if (perf) write_perf(w, *perf);
  return w.take();
}

}  // namespace metrics
