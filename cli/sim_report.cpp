#include "cli/sim_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/json.h"

namespace cli {

namespace {

double per_second(const SimOutcome& o) {
  return o.sm_s > 0 ? static_cast<double>(o.mads.sent) / o.sm_s : 0.0;
}

// The routing metrics of an engine that brought the subnet up (a failed one has none worth a
// figure: whatever its LFTs hold is not its routing).
const sim::MetricsReport* measured(const SimOutcome& o) { return o.up && o.metrics ? &*o.metrics : nullptr; }

std::string shifts_note(const sim::MetricsReport& m) {
  return m.shifts_sampled ? fmt::format("{} sampled shifts", m.shifts) : fmt::format("all {} shifts", m.shifts);
}

// A measured figure beside its cut bound: " (cut bound 1626, 1.07x)", nothing without a bound.
std::string beside_bound(double measured, double bound, const std::string& bound_text) {
  return bound > 0 ? fmt::format(" (cut bound {}, {:.2f}x)", bound_text, measured / bound) : "";
}

std::string cut_text(const fabric::BoundCut& c) {
  return fmt::format("{} ({} CAs, {} channels out)", c.what, c.cas, c.channels);
}

// Where the bounds come from, one line.
std::string text_bounds(const fabric::CutBounds& b, double wall_s) {
  if (!b.max_link_load)
    return fmt::format("cut bounds  none: no cut has CAs on both sides and channels across ({} cuts tried)\n", b.cuts);
  std::string s = fmt::format("cut bounds  all-to-all {} from {}", b.max_link_load, cut_text(b.max_link_load_cut));
  if (b.shifts)
    s += fmt::format("; shifts {:.3f} (worst {}), {} in {} of {} shifts", b.shift_congestion, b.shift_congestion_max,
                     b.shift_cut_shifts ? cut_text(b.shift_cut) : "no cut", b.shift_cut_shifts, b.shifts);
  return s + fmt::format("; {} cuts tried in {:.2f} s\n", b.cuts, wall_s);
}

// The run that measured the fabric's bounds (--compare: the first).
const SimOutcome* with_bounds(const std::vector<SimOutcome>& runs) {
  for (const auto& o : runs)
    if (o.bounds) return &o;
  return nullptr;
}

Json json_cut(const fabric::BoundCut& c, bool any) {
  return any ? Json{{"what", c.what}, {"cas", c.cas}, {"channels", c.channels}} : Json(nullptr);
}

Json json_bounds(const SimOutcome* o) {
  if (!o || !o->bounds) return nullptr;
  const fabric::CutBounds& b = *o->bounds;
  Json shift_cut = json_cut(b.shift_cut, b.shift_cut_shifts > 0);
  if (b.shift_cut_shifts) shift_cut["shifts"] = b.shift_cut_shifts;
  return {{"max_link_load", b.max_link_load}, {"max_link_load_cut", json_cut(b.max_link_load_cut, b.max_link_load > 0)},
          {"shift_congestion", rounded(b.shift_congestion, 6)}, {"shift_congestion_max", b.shift_congestion_max},
          {"shift_cut", std::move(shift_cut)}, {"shifts", b.shifts}, {"shifts_sampled", b.shifts_sampled},
          {"cuts", b.cuts}, {"wall_s", rounded(o->bounds_s, 3)}};
}

// With VL layers: "vls         2 VLs used by the SA's SLs: deadlock-free per VL (...)".
std::string text_vls(const fabric::VlCdgReport& v, const SimOutcome& o) {
  const sim::SlQuery& q = o.sl_query;
  std::string per;
  for (const fabric::VlChannelFigures& f : v.vls)
    per += fmt::format("{}VL{} {} channels {} dependencies {}", per.empty() ? "" : "; ", f.vl, f.channels, f.edges,
                       f.acyclic ? "acyclic" : "CYCLIC");
  std::string s = fmt::format("vls         {} VL(s) used with the SA's SLs: {} ({} dependencies, {} across VLs{})\n",
                              v.vls.size(), v.acyclic ? "deadlock-free per VL" : "HAS A CYCLE", v.edges,
                              v.cross_vl_edges, v.dropped ? fmt::format(", {} routes DROPPED for their VL", v.dropped) : "");
  s += fmt::format("            {}\n", per);
  if (o.sls_imported)
    s += fmt::format("            SLs imported: {} paths, {} SL-to-VL tables\n", o.sls_imported->paths, o.sls_imported->sl2vl_tables);
  else
    s += fmt::format("            SLs from {} PathRecord GetTable(s), {} records{}, {:.2f} s\n", q.queries, q.records,
                     q.unanswered ? fmt::format(", {} UNANSWERED", q.unanswered) : "", o.sl_query_s);
  return s;
}

// With VL layers: what each VL carries and whether the whole (link, VL) graph is acyclic.
Json json_vls(const fabric::VlCdgReport& v, const SimOutcome& o) {
  const sim::SlQuery& q = o.sl_query;
  Json per = Json::array();
  for (const fabric::VlChannelFigures& f : v.vls)
    per.push_back({{"vl", f.vl}, {"channels", f.channels}, {"dependencies", f.edges}, {"acyclic", f.acyclic}});
  return {{"vls_used", v.vls.size()}, {"deadlock_free_per_vl", v.acyclic}, {"dependencies", v.edges},
          {"cross_vl_dependencies", v.cross_vl_edges}, {"dropped_routes", v.dropped}, {"per_vl", std::move(per)},
          {"sa_queries", q.queries}, {"sa_records", q.records}, {"sa_unanswered", q.unanswered},
          {"sls_imported", o.sls_imported ? Json{{"paths", o.sls_imported->paths}, {"sl2vl_tables", o.sls_imported->sl2vl_tables}}
                                          : Json()}};
}

}  // namespace

std::string text_summary(const std::string& fabric, const SimOutcome& o, long rss_kb) {
  const sm::SweepReport& r = o.sweep;
  const sim::VerifyReport& v = o.verify;
  std::string s;
  s += fmt::format("fabric      {}: {} switches, {} CAs, {} links (SM on {})\n", fabric, r.switches,
                   r.cas, r.links, o.sm_node);
  s += fmt::format("subnet      {} after {} sweep(s); LIDs 1..{} ({} ports), routing {}\n",
                   o.up ? "UP" : "NOT UP", r.number, r.max_lid, r.lids.lids.size(),
                   r.engine.empty() ? o.engine : r.engine);
  if (!o.up) s += fmt::format("failure     {}\n", r.failure.empty() ? "the subnet did not come up" : r.failure);
  if (o.imported)
    s += fmt::format("imported    {}: {} LFTs, {} entries, {} ports' LIDs{}\n", o.engine, o.imported->switches,
                     o.imported->entries, o.imported->lids,
                     o.imported->without_lid ? fmt::format("; {} port(s) the dump gives no LID (unrouted)", o.imported->without_lid) : "");
  s += fmt::format("SMPs        {} sent, {} resent, {} lost for good; {:.0f} SMPs/s\n", o.mads.sent,
                   o.mads.retried, o.mads.timed_out, per_second(o));
  // Every sweep's work: with losses the first sweeps may fail and leave part of it to the next.
  sm::ProgramStats done;
  for (const sm::SweepReport& w : o.sweeps) {
    done.lft_blocks_written += w.program.lft_blocks_written;
    done.port_sets += w.program.port_sets;
    done.activations += w.program.activations;
    if (o.sweeps.size() > 1)
      s += fmt::format("sweep {:<5} {}: {}; {} SMPs, {} LFT blocks, {} port Sets, {} activations, {:.1f} ms\n",
                       w.number, w.heavy ? "heavy" : "incremental", w.up ? "up" : "NOT UP (" + w.failure + ")",
                       w.smps_sent, w.program.lft_blocks_written, w.program.port_sets, w.program.activations,
                       w.total.wall_ms);
  }
  if (o.sweeps.empty()) done = r.program;
  s += fmt::format("programmed  {} LFT blocks, {} port Sets, {} activations{}\n", done.lft_blocks_written,
                   done.port_sets, done.activations,
                   o.sweeps.size() > 1 ? fmt::format(" over {} sweeps", o.sweeps.size()) : "");
  s += fmt::format("phases ms   {}discovery {:.1f}, LIDs {:.1f}, routing {:.1f}, programming {:.1f}, verify {:.1f}\n",
                   o.sweeps.size() > 1 ? "(the last sweep) " : "", r.discovery.wall_ms, r.lid_assignment.wall_ms,
                   r.routing.wall_ms, r.programming.wall_ms, o.verify_s * 1e3);
  s += fmt::format("fabric time {:.1f} ms on the simulated clock\n", r.total.fabric_ms);
  if (!o.store_error.empty()) s += fmt::format("store       FAILED: {}\n", o.store_error);
  else if (o.commit_ms > 0) s += fmt::format("store       last sweep committed in {:.1f} ms\n", o.commit_ms);
  for (const auto& c : o.counters)
    s += fmt::format("counters    sweep {}: {} ports, {} PMA queries, {} unanswered, {} cleared, {:.1f} ms SM time\n",
                     c.number, c.ports, c.queries, c.timeouts, c.clears, c.duration_ms);
  if (!o.counters.empty())
    s += fmt::format("counters    {} sweep(s) in {:.2f} s wall{}\n", o.counters.size(), o.counters_wall_s,
                     o.counters_db_bytes > 0 ? fmt::format(", store +{:.1f} MB, last commit {:.1f} ms",
                                                           static_cast<double>(o.counters_db_bytes) / 1e6,
                                                           o.counters_commit_ms)
                                             : std::string());
  if (o.bringup_loop)
    s += fmt::format("bring-up    loop: {} turns, longest {:.1f} ms wall ({}), p99 {:.2f} ms, {} over 50 ms\n",
                     o.bringup_loop->turns, o.bringup_loop->longest_ms, o.bringup_loop->longest_doing,
                     o.bringup_loop->p99_ms(), o.bringup_loop->long_turns);
  if (o.steady)
    s += fmt::format("steady      {:.1f} s after SUBNET UP (simulated): {} loop turns, longest {:.1f} ms wall ({}), "
                     "p99 {:.2f} ms, {} over 50 ms, {:.0f} ms in all\n",
                     o.steady->first, o.steady->second.turns, o.steady->second.longest_ms,
                     o.steady->second.longest_doing, o.steady->second.p99_ms(), o.steady->second.long_turns,
                     o.steady->second.total_ms);
  s += fmt::format("verified    {} CA pairs: {} routed, {} unrouted, {} in loops; hops max {}, mean {:.2f}\n",
                   v.pairs, v.routed, v.unrouted, v.loops, v.max_hops, v.mean_hops);
  for (const auto& line : v.samples) s += fmt::format("  {}\n", line);
  if (o.metrics) {
    const auto& m = *o.metrics;
    const fabric::CutBounds b = o.bounds ? *o.bounds : fabric::CutBounds{};
    s += fmt::format("link load   all-to-all routes per switch link: max {}{}, mean {:.1f} over {} links\n",
                     m.max_link_load, beside_bound(static_cast<double>(m.max_link_load), static_cast<double>(b.max_link_load),
                                                 fmt::format("{}", b.max_link_load)),
                     m.mean_link_load, m.switch_links);
    s += fmt::format("shifts      mean max congestion {:.3f}{} (worst {}), {} in leaf order\n",
                     m.shift_congestion, beside_bound(m.shift_congestion, b.shift_congestion, fmt::format("{:.3f}", b.shift_congestion)),
                     m.shift_congestion_max, shifts_note(m));
    s += fmt::format("stretch     mean {:.4f}, max {:.2f}; {} pairs longer than shortest\n",
                     m.stretch_mean, m.stretch_max, m.stretched_pairs);
    s += fmt::format("deadlock    channel dependency graph {} ({} dependencies)\n",
                     m.cdg_acyclic ? "acyclic: deadlock-free on one VL" : "HAS A CYCLE", m.cdg_edges);
    if (o.vl) s += text_vls(*o.vl, o);
  }
  if (o.bounds) s += text_bounds(*o.bounds, o.bounds_s);
  if (o.traffic) s += text_traffic(*o.traffic);
  if (o.adapt) s += text_adapt(*o.adapt);
  if (o.perf_busiest)
    s += fmt::format("perfmgr saw \"{}\"[{}] sending most: {:.1f} Gb/s, PortXmitWait {:.0f}/s\n", o.perf_busiest->node,
                     o.perf_busiest->port, o.perf_busiest->xmit_gbps, o.perf_busiest->xmit_wait_per_s);
  const double traffic_s = o.traffic ? o.traffic->wall_s : 0.0;
  s += fmt::format("total       {:.2f} s wall (build {:.2f}, SM {:.2f}, verify {:.2f}{}{}{}), peak RSS {} MB\n",
                   o.build_s + o.sm_s + o.verify_s + o.metrics_s + o.bounds_s + traffic_s, o.build_s, o.sm_s, o.verify_s,
                   o.metrics ? fmt::format(", metrics {:.2f}", o.metrics_s) : "",
                   o.bounds ? fmt::format(", bounds {:.2f}", o.bounds_s) : "",
                   o.traffic ? fmt::format(", traffic {:.2f}", traffic_s) : "", rss_kb / 1024);
  return s;
}

std::string text_comparison(const std::string& fabric, const std::vector<SimOutcome>& runs) {
  std::string s = fmt::format("{} — routing metrics measured on the simulated switches' LFTs\n\n", fabric);
  s += fmt::format("{:<32}", "");
  for (const auto& o : runs) s += fmt::format("{:>16}", o.engine);
  s += "\n";
  auto row = [&](const std::string& name, auto cell) {
    s += fmt::format("{:<32}", name);
    for (const auto& o : runs) s += fmt::format("{:>16}", cell(o));
    s += "\n";
  };
  row("subnet up", [](const SimOutcome& o) { return std::string(o.up ? "yes" : "NO (failed)"); });
  row("engine that routed", [](const SimOutcome& o) { return o.sweep.engine.empty() ? "-" : o.sweep.engine; });
  row("unrouted CA pairs", [](const SimOutcome& o) { return fmt::format("{}", o.verify.unrouted + o.verify.loops); });
  row("max routes on a switch link", [](const SimOutcome& o) {
    return measured(o) ? fmt::format("{}", measured(o)->max_link_load) : "-";
  });
  const SimOutcome* bounded = with_bounds(runs);
  const fabric::CutBounds* bounds = bounded ? &*bounded->bounds : nullptr;
  if (bounds && bounds->max_link_load)
    row(fmt::format("  x its cut bound ({})", bounds->max_link_load), [&](const SimOutcome& o) {
      return measured(o) ? fmt::format("{:.2f}", static_cast<double>(measured(o)->max_link_load) / static_cast<double>(bounds->max_link_load)) : "-";
    });
  row("mean routes per switch link", [](const SimOutcome& o) {
    return measured(o) ? fmt::format("{:.1f}", measured(o)->mean_link_load) : "-";
  });
  row("shift congestion (mean max)", [](const SimOutcome& o) {
    return measured(o) ? fmt::format("{:.3f}", measured(o)->shift_congestion) : "-";
  });
  if (bounds && bounds->shift_congestion > 0)
    row(fmt::format("  x its cut bound ({:.3f})", bounds->shift_congestion), [&](const SimOutcome& o) {
      return measured(o) ? fmt::format("{:.2f}", measured(o)->shift_congestion / bounds->shift_congestion) : "-";
    });
  row("path stretch (mean)", [](const SimOutcome& o) {
    return measured(o) ? fmt::format("{:.4f}", measured(o)->stretch_mean) : "-";
  });
  row("deadlock-free (acyclic CDG)", [](const SimOutcome& o) {
    return measured(o) ? std::string(measured(o)->cdg_acyclic ? "yes" : "NO") : "-";
  });
  if (std::any_of(runs.begin(), runs.end(), [](const SimOutcome& o) { return o.traffic.has_value(); })) {
    auto traffic = [](const SimOutcome& o) { return o.up && o.traffic ? &*o.traffic : nullptr; };
    row("EBB (mean over bisections)", [&](const SimOutcome& o) {
      return traffic(o) && traffic(o)->ebb ? fmt::format("{:.4f}", traffic(o)->ebb->mean) : "-";
    });
    row("EBB min / max", [&](const SimOutcome& o) {
      return traffic(o) && traffic(o)->ebb ? fmt::format("{:.3f}/{:.3f}", traffic(o)->ebb->min, traffic(o)->ebb->max) : "-";
    });
    row("traffic throughput (Gb/s)", [&](const SimOutcome& o) {
      return traffic(o) ? fmt::format("{:.1f}", traffic(o)->result.aggregate_gbps) : "-";
    });
    row("traffic flow rate (mean)", [&](const SimOutcome& o) {
      return traffic(o) ? fmt::format("{:.4f}", traffic(o)->result.mean_rate) : "-";
    });
    row("traffic completion (ms)", [&](const SimOutcome& o) {
      return traffic(o) ? fmt::format("{:.3f}", traffic(o)->result.completion_s * 1e3) : "-";
    });
    row("max link utilisation", [&](const SimOutcome& o) {
      return traffic(o) ? fmt::format("{:.3f}", traffic(o)->result.max_utilisation) : "-";
    });
  }
  row("routing time (ms)", [](const SimOutcome& o) { return fmt::format("{:.1f}", o.sweep.routing.wall_ms); });
  bool any_failed = false;
  for (const auto& o : runs)
    if (!o.up) {
      s += fmt::format("{}{} FAILED: {}\n", any_failed ? "" : "\n", o.engine,
                       o.sweep.failure.empty() ? "the subnet did not come up" : o.sweep.failure);
      any_failed = true;
    }
  for (const auto& o : runs) {  // what traffic ran, once
    if (!o.traffic) continue;
    const TrafficOutcome& t = *o.traffic;
    s += fmt::format("\ntraffic {} over {} CAs, seed {}{}{}\n", t.pattern, t.cas, t.seed,
                     t.ebb ? fmt::format(", {} bisections", t.ebb->bisections) : "",
                     t.adaptive ? ", adaptive switches" : ", static routing");
    break;
  }
  if (bounded) s += "\n" + text_bounds(*bounds, bounded->bounds_s);  // the fabric's, once
  for (const auto& o : runs) {  // the first measured engine says how the shifts were sampled
    if (!measured(o)) continue;
    if (measured(o)->shifts_sampled)
      s += fmt::format("\nshift congestion over {} sampled shifts (of {})\n", measured(o)->shifts,
                       measured(o)->ca_ports - 1);
    break;
  }
  return s;
}

Json json_outcome(const SimOutcome& o) {
  const sm::SweepReport& r = o.sweep;
  const sim::VerifyReport& v = o.verify;
  auto phase = [](const sm::PhaseTime& p) {
    return Json{{"wall_ms", rounded(p.wall_ms, 3)}, {"fabric_ms", rounded(p.fabric_ms, 3)}};
  };
  Json metrics = nullptr;  // not measured, or the engine failed
  if (o.metrics) {
    const auto& m = *o.metrics;
    metrics = {{"max_link_load", m.max_link_load}, {"mean_link_load", rounded(m.mean_link_load, 4)},
               {"switch_links", m.switch_links}, {"shift_congestion", rounded(m.shift_congestion, 6)},
               {"shift_congestion_max", m.shift_congestion_max}, {"shifts", m.shifts},
               {"shifts_sampled", m.shifts_sampled}, {"stretch_mean", rounded(m.stretch_mean, 6)},
               {"stretch_max", rounded(m.stretch_max, 4)}, {"stretched_pairs", m.stretched_pairs},
               {"deadlock_free", m.cdg_acyclic}, {"cdg_edges", m.cdg_edges}};
    if (o.vl) metrics["vls"] = json_vls(*o.vl, o);
  }
  Json j = {{"routing", o.engine}, {"engine_used", r.engine}, {"switches", r.switches}, {"cas", r.cas},
            {"links", r.links}, {"lids", r.lids.lids.size()}, {"max_lid", r.max_lid}, {"subnet_up", o.up},
            {"failure", o.up ? Json(nullptr) : Json(r.failure)}, {"sweeps", r.number}, {"pairs", v.pairs},
            {"routed", v.routed}, {"unrouted", v.unrouted}, {"loops", v.loops},
            {"ports_not_active", v.ports_not_active}, {"max_hops", v.max_hops},
            {"mean_hops", rounded(v.mean_hops, 4)}};
  j["mads"] = {{"sent", o.mads.sent}, {"retried", o.mads.retried}, {"lost", o.mads.timed_out},
               {"per_second", rounded(per_second(o), 0)}};
  j["mkey_refused"] = o.mkey_refused;
  j["imported"] = o.imported ? Json{{"switches", o.imported->switches}, {"entries", o.imported->entries},
                                    {"lids", o.imported->lids}, {"without_lid", o.imported->without_lid}}
                             : Json();
  j["lft_blocks_written"] = r.program.lft_blocks_written;
  j["port_sets"] = r.program.port_sets;
  j["activations"] = r.program.activations;
  j["phases"] = {{"discovery", phase(r.discovery)}, {"lids", phase(r.lid_assignment)},
                 {"routing", phase(r.routing)}, {"programming", phase(r.programming)},
                 {"verify", {{"wall_ms", rounded(o.verify_s * 1e3, 3)}}}};
  j["metrics"] = std::move(metrics);
  j["traffic"] = o.traffic ? json_traffic(*o.traffic) : Json(nullptr);
  if (o.adapt) j["adapt"] = json_adapt(*o.adapt);
  if (o.perf_busiest)
    j["traffic"]["perfmgr_busiest"] = {{"node", o.perf_busiest->node}, {"port", o.perf_busiest->port},
                                       {"xmit_gbps", rounded(o.perf_busiest->xmit_gbps, 3)},
                                       {"xmit_wait_per_s", rounded(o.perf_busiest->xmit_wait_per_s, 1)}};
  j["commit_ms"] = rounded(o.commit_ms, 1);
  j["store_error"] = o.store_error;
  j["build_s"] = rounded(o.build_s, 3);
  j["sm_s"] = rounded(o.sm_s, 3);
  j["verify_s"] = rounded(o.verify_s, 3);
  j["metrics_s"] = rounded(o.metrics_s, 3);
  j["wall_s"] = rounded(o.build_s + o.sm_s + o.verify_s + o.metrics_s + o.bounds_s + (o.traffic ? o.traffic->wall_s : 0.0), 3);
  return j;
}

std::string json_summary(const std::string& fabric, const std::vector<SimOutcome>& runs, long rss_kb) {
  if (runs.size() == 1) {  // the fabric-wide fields in the engine's object
    Json one = json_outcome(runs.front());
    one["fabric"] = fabric;
    one["sm_node"] = runs.front().sm_node;
    one["peak_rss_kb"] = rss_kb;
    one["bounds"] = json_bounds(&runs.front());
    return json_text(one);
  }
  Json engines = Json::array();
  for (const auto& o : runs) engines.push_back(json_outcome(o));
  return json_text(Json{{"fabric", fabric}, {"peak_rss_kb", rss_kb}, {"bounds", json_bounds(with_bounds(runs))},
                        {"engines", std::move(engines)}});
}

std::string csv_link_loads(const std::vector<SimOutcome>& runs) {
  std::string s = "engine,from,from_port,to,to_port,routes\n";
  for (const auto& o : runs)
    for (const auto& l : o.links)
      s += fmt::format("\"{}\",\"{}\",{},\"{}\",{},{}\n", o.engine, l.from, l.from_port, l.to,
                       l.to_port, l.routes);
  return s;
}

}  // namespace cli
