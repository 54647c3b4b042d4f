#include "cli/sim_report.h"

#include <fmt/format.h>

#include "cli/json.h"

namespace cli {

namespace {

double per_second(const SimOutcome& o) {
  return o.sm_s > 0 ? static_cast<double>(o.mads.sent) / o.sm_s : 0.0;
}

std::string shifts_note(const sim::MetricsReport& m) {
  return m.shifts_sampled ? fmt::format("{} sampled shifts", m.shifts) : fmt::format("all {} shifts", m.shifts);
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
  s += fmt::format("verified    {} CA pairs: {} routed, {} unrouted, {} in loops; hops max {}, mean {:.2f}\n",
                   v.pairs, v.routed, v.unrouted, v.loops, v.max_hops, v.mean_hops);
  for (const auto& line : v.samples) s += fmt::format("  {}\n", line);
  if (o.metrics) {
    const auto& m = *o.metrics;
    s += fmt::format("link load   all-to-all routes per switch link: max {}, mean {:.1f} over {} links\n",
                     m.max_link_load, m.mean_link_load, m.switch_links);
    s += fmt::format("shifts      mean max congestion {:.3f} (worst {}), {} in leaf order\n",
                     m.shift_congestion, m.shift_congestion_max, shifts_note(m));
    s += fmt::format("stretch     mean {:.4f}, max {:.2f}; {} pairs longer than shortest\n",
                     m.stretch_mean, m.stretch_max, m.stretched_pairs);
    s += fmt::format("deadlock    channel dependency graph {} ({} dependencies)\n",
                     m.cdg_acyclic ? "acyclic: deadlock-free on one VL" : "HAS A CYCLE", m.cdg_edges);
  }
  s += fmt::format("total       {:.2f} s wall (build {:.2f}, SM {:.2f}, verify {:.2f}{}), peak RSS {} MB\n",
                   o.build_s + o.sm_s + o.verify_s + o.metrics_s, o.build_s, o.sm_s, o.verify_s,
                   o.metrics ? fmt::format(", metrics {:.2f}", o.metrics_s) : "", rss_kb / 1024);
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
  row("subnet up", [](const SimOutcome& o) { return std::string(o.up ? "yes" : "NO"); });
  row("engine that routed", [](const SimOutcome& o) { return o.sweep.engine.empty() ? "-" : o.sweep.engine; });
  row("unrouted CA pairs", [](const SimOutcome& o) { return fmt::format("{}", o.verify.unrouted + o.verify.loops); });
  row("max routes on a switch link", [](const SimOutcome& o) {
    return o.metrics ? fmt::format("{}", o.metrics->max_link_load) : "-";
  });
  row("mean routes per switch link", [](const SimOutcome& o) {
    return o.metrics ? fmt::format("{:.1f}", o.metrics->mean_link_load) : "-";
  });
  row("shift congestion (mean max)", [](const SimOutcome& o) {
    return o.metrics ? fmt::format("{:.3f}", o.metrics->shift_congestion) : "-";
  });
  row("path stretch (mean)", [](const SimOutcome& o) {
    return o.metrics ? fmt::format("{:.4f}", o.metrics->stretch_mean) : "-";
  });
  row("deadlock-free (acyclic CDG)", [](const SimOutcome& o) {
    return o.metrics ? std::string(o.metrics->cdg_acyclic ? "yes" : "NO") : "-";
  });
  row("routing time (ms)", [](const SimOutcome& o) { return fmt::format("{:.1f}", o.sweep.routing.wall_ms); });
  if (!runs.empty() && runs.front().metrics && runs.front().metrics->shifts_sampled)
    s += fmt::format("\nshift congestion over {} sampled shifts (of {})\n", runs.front().metrics->shifts,
                     runs.front().metrics->ca_ports - 1);
  return s;
}

std::string json_outcome(const SimOutcome& o) {
  const sm::SweepReport& r = o.sweep;
  const sim::VerifyReport& v = o.verify;
  auto phase = [](const sm::PhaseTime& p) {
    return fmt::format("{{\"wall_ms\": {:.3f}, \"fabric_ms\": {:.3f}}}", p.wall_ms, p.fabric_ms);
  };
  std::string metrics = "null";
  if (o.metrics) {
    const auto& m = *o.metrics;
    metrics = fmt::format(
        "{{\"max_link_load\": {}, \"mean_link_load\": {:.4f}, \"switch_links\": {}, "
        "\"shift_congestion\": {:.6f}, \"shift_congestion_max\": {}, \"shifts\": {}, "
        "\"shifts_sampled\": {}, \"stretch_mean\": {:.6f}, \"stretch_max\": {:.4f}, "
        "\"stretched_pairs\": {}, \"deadlock_free\": {}, \"cdg_edges\": {}}}",
        m.max_link_load, m.mean_link_load, m.switch_links, m.shift_congestion, m.shift_congestion_max,
        m.shifts, m.shifts_sampled, m.stretch_mean, m.stretch_max, m.stretched_pairs, m.cdg_acyclic,
        m.cdg_edges);
  }
  return fmt::format(
      "{{\"routing\": {}, \"engine_used\": {}, \"switches\": {}, \"cas\": {}, \"links\": {}, "
      "\"lids\": {}, \"max_lid\": {}, \"subnet_up\": {}, \"sweeps\": {}, \"pairs\": {}, "
      "\"routed\": {}, \"unrouted\": {}, \"loops\": {}, \"ports_not_active\": {}, "
      "\"max_hops\": {}, \"mean_hops\": {:.4f}, "
      "\"mads\": {{\"sent\": {}, \"retried\": {}, \"lost\": {}, \"per_second\": {:.0f}}}, "
      "\"lft_blocks_written\": {}, \"port_sets\": {}, \"activations\": {}, "
      "\"phases\": {{\"discovery\": {}, \"lids\": {}, \"routing\": {}, \"programming\": {}, "
      "\"verify\": {{\"wall_ms\": {:.3f}}}}}, \"metrics\": {}, "
      "\"commit_ms\": {:.1f}, \"store_error\": {}, \"build_s\": {:.3f}, \"sm_s\": {:.3f}, \"verify_s\": {:.3f}, "
      "\"metrics_s\": {:.3f}, \"wall_s\": {:.3f}}}",
      json_quote(o.engine), json_quote(r.engine), r.switches, r.cas, r.links, r.lids.lids.size(),
      r.max_lid, o.up, r.number, v.pairs, v.routed, v.unrouted, v.loops, v.ports_not_active,
      v.max_hops, v.mean_hops, o.mads.sent, o.mads.retried, o.mads.timed_out, per_second(o),
      r.program.lft_blocks_written, r.program.port_sets, r.program.activations, phase(r.discovery),
      phase(r.lid_assignment), phase(r.routing), phase(r.programming), o.verify_s * 1e3, metrics,
      o.commit_ms, json_quote(o.store_error), o.build_s, o.sm_s, o.verify_s, o.metrics_s, o.build_s + o.sm_s + o.verify_s + o.metrics_s);
}

std::string json_summary(const std::string& fabric, const std::vector<SimOutcome>& runs, long rss_kb) {
  if (runs.size() == 1) {
    std::string one = json_outcome(runs.front());
    one.pop_back();  // add the fabric-wide fields to the same object
    return one + fmt::format(", \"fabric\": {}, \"sm_node\": {}, \"peak_rss_kb\": {}}}", json_quote(fabric),
                             json_quote(runs.front().sm_node), rss_kb);
  }
  std::string s = fmt::format("{{\"fabric\": {}, \"peak_rss_kb\": {}, \"engines\": [", json_quote(fabric), rss_kb);
  for (size_t i = 0; i < runs.size(); ++i) s += (i ? ", " : "") + json_outcome(runs[i]);
  return s + "]}";
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
