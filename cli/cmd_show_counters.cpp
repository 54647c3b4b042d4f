// `fabricsm show counters` and `fabricsm show health`: what the PerfMgr's last counter sweep
// stored, as tables or JSON (read-only; works while the daemon runs).
#include <fmt/format.h>

#include <algorithm>

#include "cli/show_counters.h"

namespace cli {

namespace {

namespace pm = sm::perfmgr;

std::string end_name(const pm::PortEnd& e) { return fmt::format("{}[{}]", e.description, e.port); }
std::string rate(double bytes_per_s) { return fmt::format("{:.2f}", bytes_per_s / 1e6); }

std::optional<size_t> counter_index(std::string_view name) {
  for (size_t i = 0; i < pm::kCounters; ++i)
    if (pm::kCounterInfo[i].name == name) return i;
  return std::nullopt;
}

std::string counter_names() {
  std::string s;
  for (const auto& c : pm::kCounterInfo) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

}  // namespace

mad::Result<Table> counters_table(sm::store::Store& store, const CountersQuery& q, bool json) {
  auto ports = store.load_port_counters();
  if (!ports) return std::unexpected(ports.error());
  std::vector<pm::PortSample> rows = std::move(*ports);
  if (q.port) std::erase_if(rows, [&](const pm::PortSample& p) { return !q.port->matches(p.local); });
  if (q.top > 0) {
    auto by = counter_index(q.by);
    if (!by)
      return mad::fail(mad::Errc::invalid, fmt::format("--by {}: not a counter (one of: {})", q.by, counter_names()));
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const pm::PortSample& a, const pm::PortSample& b) { return a.rates[*by] > b.rates[*by]; });
    if (rows.size() > q.top) rows.resize(q.top);
  }
  Table t;
  if (json) {  // every counter, its total and its rate
    t.columns = {"node", "node_guid", "port", "lid", "remote", "remote_guid", "remote_port", "sampled_ms", "extended"};
    t.numeric = {false, false, true, true, false, false, true, true, false};
    for (const auto& c : pm::kCounterInfo) {
      t.columns.push_back(std::string(c.name) + "_total");
      t.columns.push_back(std::string(c.name) + "_per_s");
      t.numeric.insert(t.numeric.end(), {true, true});
    }
  } else {
    t.columns = {"node", "port", "lid", "remote", "symbol_err", "link_recov", "link_down", "rcv_err",
                 "xmit_disc", "xmit_wait", "xmit_MB/s", "rcv_MB/s"};
    t.numeric = {false, true, true, false, true, true, true, true, true, true, true, true};
  }
  for (const pm::PortSample& p : rows) {
    const auto& v = p.totals;
    if (json) {
      std::vector<std::string> r = {p.local.description, fmt::format("{}", p.local.node), std::to_string(p.local.port),
                                    std::to_string(p.local.lid), p.remote ? p.remote->description : "",
                                    p.remote ? fmt::format("{}", p.remote->node) : "",
                                    p.remote ? std::to_string(p.remote->port) : "", std::to_string(p.sampled_ms),
                                    p.extended ? "yes" : "no"};
      for (size_t i = 0; i < pm::kCounters; ++i) {
        r.push_back(std::to_string(v[i]));
        r.push_back(fmt::format("{:.3f}", p.rates[i]));
      }
      t.rows.push_back(std::move(r));
      continue;
    }
    using pm::Counter;
    using pm::index;
    t.rows.push_back({p.local.description, std::to_string(p.local.port), std::to_string(p.local.lid),
                      p.remote ? end_name(*p.remote) : "-", std::to_string(v[index(Counter::symbol_errors)]),
                      std::to_string(v[index(Counter::link_error_recovery)]),
                      std::to_string(v[index(Counter::link_downed)]), std::to_string(v[index(Counter::rcv_errors)]),
                      std::to_string(v[index(Counter::xmit_discards)]), std::to_string(v[index(Counter::xmit_wait)]),
                      rate(p.rates[index(Counter::xmit_data)]), rate(p.rates[index(Counter::rcv_data)])});
  }
  return t;
}

mad::Result<Table> health_table(sm::store::Store& store) {
  auto findings = store.load_findings();
  if (!findings) return std::unexpected(findings.error());
  Table t{{"rule", "severity", "at", "at_guid", "at_lid", "peer", "peer_guid", "peer_lid", "what", "first", "last",
           "isolated"},
          {},
          {false, false, false, false, true, false, false, true, false, false, false, false}};
  for (const pm::Finding& f : *findings)
    t.rows.push_back({f.rule, f.severity == pm::Severity::error ? "error" : "warning", end_name(f.at),
                      fmt::format("{}", f.at.node), std::to_string(f.at.lid), f.peer ? end_name(*f.peer) : "-",
                      f.peer ? fmt::format("{}", f.peer->node) : "", f.peer ? std::to_string(f.peer->lid) : "",
                      f.what, when_ms(f.first_ms), when_ms(f.last_ms), f.isolated ? "yes" : "no"});
  return t;
}

}  // namespace cli
