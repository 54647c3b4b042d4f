#include "cli/sim_traffic.h"

#include <fmt/format.h>

#include <chrono>

#include "routing/engine.h"
#include "sim/traffic/flows_file.h"

namespace cli {

namespace tr = sim::traffic;

mad::Result<tr::Pattern> check_pattern(const std::string& text, const sim::FabricSpec& spec) {
  auto p = tr::parse_pattern(text);
  if (!p || p->kind != tr::PatternKind::file) return p;
  auto f = sim::SimFabric::build(spec);  // its CAs by name, links up (Init): what a file can name
  if (!f) return std::unexpected(f.error());
  auto flows = tr::load_flows_file(p->path, tr::Net::of(**f));
  if (!flows) return std::unexpected(flows.error());
  return p;
}

mad::Result<std::string> carry_ar_groups(sim::SimFabric& f, const sm::Subnet& subnet) {
  if (!subnet.tables || !subnet.topology) return mad::fail(mad::Errc::invalid, "--adaptive: the SM programmed no tables");
  const fabric::Topology& topo = *subnet.topology;
  std::shared_ptr<const routing::RoutingTables> tables = subnet.tables;
  std::string source = subnet.sweep.engine.empty() ? "the engine" : subnet.sweep.engine;
  if (!tables->has_alternatives()) {
    auto engine = routing::make_engine("adaptive-hint");
    if (!engine) return std::unexpected(engine.error());
    auto hint = (*engine)->compute(topo, {});
    if (!hint) return mad::fail(mad::Errc::invalid, fmt::format("--adaptive: adaptive-hint's groups: {}", hint.error().message));
    tables = std::make_shared<const routing::RoutingTables>(std::move(*hint));
    source = "adaptive-hint";
  }
  for (fabric::NodeId id : topo.switches()) {
    auto node = f.find_guid(topo.node(id).guid);
    if (!node) continue;
    if (auto r = f.set_ar_table(*node, tables->ar_table(id)); !r) return std::unexpected(r.error());
    if (auto r = f.set_adaptive(*node, true); !r) return std::unexpected(r.error());
  }
  return source;
}

mad::Result<TrafficOutcome> run_traffic(sim::SimFabric& f, const sm::Subnet* subnet, const TrafficRunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  TrafficOutcome out;
  out.pattern = o.pattern;
  out.adaptive = o.adaptive;
  out.seed = o.seed;
  out.message_bytes = o.message_bytes;
  auto pattern = tr::parse_pattern(o.pattern);
  if (!pattern) return std::unexpected(pattern.error());
  if (o.adaptive) {
    if (!subnet) return mad::fail(mad::Errc::invalid, "--adaptive: no subnet was published");
    auto src = carry_ar_groups(f, *subnet);
    if (!src) return std::unexpected(src.error());
    out.ar_source = *src;
  }
  const tr::Net net = tr::Net::of(f);
  out.adaptive_switches = net.adaptive_switches();
  out.cas = net.cas().size();
  tr::TrafficOptions topts{.message_bytes = o.message_bytes};
  topts.placement.seed = o.seed;
  std::vector<tr::Phase> phases;
  if (pattern->kind == tr::PatternKind::file) {
    auto flows = tr::load_flows_file(pattern->path, net);
    if (!flows) return std::unexpected(flows.error());
    phases.push_back(tr::Phase{std::move(*flows), 1, 1});
  } else if (pattern->kind == tr::PatternKind::random_bisection) {
    tr::EbbOptions eo{.bisections = o.bisections, .seed = o.seed};
    out.ebb = tr::effective_bisection_bandwidth(net, eo);
    // The first bisection in full: its links, rates and completion.
    const uint64_t first = tr::bisection_seed(o.seed, 0);
    topts.placement.seed = first;
    phases.push_back(tr::Phase{tr::random_bisection(net.cas().size(), first), 1, 1});
  } else {
    auto made = tr::make_phases(*pattern, net.cas().size(), o.seed);
    if (!made) return std::unexpected(made.error());
    phases = std::move(*made);
  }
  out.result = tr::run_phases(net, phases, topts);
  for (tr::ChannelId c : tr::hottest(out.result.utilisation, o.hottest)) {
    const tr::Channel& ch = net.channels()[c];
    if (out.result.utilisation[c] <= 0) break;
    out.hottest.push_back(HotLink{net.node_name(ch.from), ch.from_port, net.node_name(ch.to), ch.to_port,
                                  out.result.utilisation[c], ch.gbps});
  }
  out.channels = net.channels().size();
  for (tr::ChannelId c = 0; c < out.result.demand.size(); ++c)
    out.max_offered = std::max(out.max_offered, out.result.demand[c] / net.channels()[c].gbps);
  std::vector<bool> ca_link(net.channels().size(), false);
  for (const tr::CaEnd& e : net.cas()) ca_link[e.up] = ca_link[e.down] = true;
  for (tr::ChannelId c = 0; c < out.result.utilisation.size(); ++c)
    if (!ca_link[c]) out.max_switch_utilisation = std::max(out.max_switch_utilisation, out.result.utilisation[c]);
  for (tr::ChannelId c = 0; c < net.channels().size(); ++c)
    if (out.result.utilisation[c] > 0)
      out.ports.push_back({net.channels()[c].from, net.channels()[c].from_port, out.result.utilisation[c]});
  // The counters run with it from now on (virtual time), for the PerfMgr to read.
  if (auto r = f.set_traffic(tr::port_rates(net, out.result)); !r) return std::unexpected(r.error());
  out.result.utilisation.clear();
  out.result.rate.clear();
  out.result.demand.clear();
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

namespace {

std::string bytes_text(double b) {
  if (b >= 1 << 30) return fmt::format("{:g} GiB", b / (1 << 30));
  if (b >= 1 << 20) return fmt::format("{:g} MiB", b / (1 << 20));
  if (b >= 1 << 10) return fmt::format("{:g} KiB", b / (1 << 10));
  return fmt::format("{:g} B", b);
}

}  // namespace

std::string completion_text(double s) {
  if (!std::isfinite(s)) return "never (a flow has no route)";
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} us", s * 1e6);
}

std::string text_traffic(const TrafficOutcome& t) {
  const tr::TrafficResult& r = t.result;
  std::string s;
  s += fmt::format("traffic     {} over {} CAs: {} flows ({} unrouted){}; {}; {:.2f} s wall\n", t.pattern, t.cas, r.flows,
                   r.unrouted, r.phases > 1 ? fmt::format(" in {} phases", r.phases) : "",
                   t.adaptive ? fmt::format("{} adaptive switches ({}'s AR groups)", t.adaptive_switches, t.ar_source)
                              : "static routing (the LFTs)",
                   t.wall_s);
  if (t.ebb)
    s += fmt::format("EBB         {:.4f} over {} bisections (seed {}): min {:.4f}, max {:.4f}, stddev {:.4f}{}\n", t.ebb->mean,
                     t.ebb->bisections, t.ebb->seed, t.ebb->min, t.ebb->max, t.ebb->stddev,
                     t.ebb->unrouted ? fmt::format("; {} flows unrouted", t.ebb->unrouted) : "");
  s += fmt::format("throughput  {:.1f} Gb/s aggregate{}; flow rate / link rate: mean {:.4f}, min {:.4f}\n", r.aggregate_gbps,
                   t.ebb ? " (the first bisection)" : "", r.mean_rate, r.min_rate);
  s += fmt::format("offered     the busiest channel is offered {:.2f}x its capacity; the busiest switch-to-switch "
                   "channel is {:.1f}% utilised\n", t.max_offered, t.max_switch_utilisation * 100);
  s += fmt::format("completion  {} per flow: {}{}\n", bytes_text(t.message_bytes), completion_text(r.completion_s),
                   r.completion_exact ? "" : " (approximate: many rounds of flows finishing)");
  for (size_t i = 0; i < t.hottest.size(); ++i) {
    const HotLink& h = t.hottest[i];
    s += fmt::format("{}\"{}\"[{}] -> \"{}\"[{}] {:.1f}% of {:g} Gb/s\n", i == 0 ? "hot links   " : "            ", h.from,
                     h.from_port, h.to, h.to_port, h.utilisation * 100, h.gbps);
  }
  return s;
}

Json json_traffic(const TrafficOutcome& t) {
  const tr::TrafficResult& r = t.result;
  Json hot = Json::array();
  for (const HotLink& h : t.hottest)
    hot.push_back(Json{{"from", h.from}, {"from_port", h.from_port}, {"to", h.to}, {"to_port", h.to_port},
                       {"utilisation", rounded(h.utilisation, 6)}, {"gbps", h.gbps}});
  Json ebb = nullptr;
  if (t.ebb)
    ebb = Json{{"mean", rounded(t.ebb->mean, 6)}, {"min", rounded(t.ebb->min, 6)}, {"max", rounded(t.ebb->max, 6)},
               {"stddev", rounded(t.ebb->stddev, 6)}, {"bisections", t.ebb->bisections}, {"seed", t.ebb->seed},
               {"unrouted", t.ebb->unrouted}};
  return Json{{"pattern", t.pattern}, {"cas", t.cas}, {"flows", r.flows}, {"unrouted", r.unrouted}, {"phases", r.phases},
              {"adaptive", t.adaptive}, {"adaptive_switches", t.adaptive_switches},
              {"ar_groups_from", t.adaptive ? Json(t.ar_source) : Json(nullptr)}, {"seed", t.seed},
              {"message_bytes", t.message_bytes}, {"aggregate_gbps", rounded(r.aggregate_gbps, 3)},
              {"mean_rate", rounded(r.mean_rate, 6)}, {"min_rate", rounded(r.min_rate, 6)},
              {"completion_s", std::isfinite(r.completion_s) ? Json(r.completion_s) : Json(nullptr)},
              {"completion_exact", r.completion_exact}, {"max_utilisation", rounded(r.max_utilisation, 6)},
              {"max_offered", rounded(t.max_offered, 6)}, {"max_switch_utilisation", rounded(t.max_switch_utilisation, 6)},
              {"ebb", std::move(ebb)}, {"hottest", std::move(hot)}, {"wall_s", rounded(t.wall_s, 3)}};
}

}  // namespace cli
