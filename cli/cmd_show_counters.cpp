// `fabricsm show counters` and `fabricsm show health`: what the PerfMgr's last counter sweep
// stored, as tables or JSON (read-only; works while the daemon runs).
#include <fmt/format.h>

#include <algorithm>

#include "cli/show_counters.h"

namespace cli {

namespace {

namespace pm = sm::perfmgr;

std::string end_name(const pm::PortEnd& e) { return fmt::format("{}[{}]", e.description, e.port); }
Cell rate(double bytes_per_s) { return Cell::real(bytes_per_s / 1e6, 2); }

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
      std::vector<Cell> r = {p.local.description, fmt::format("{}", p.local.node), Cell::number(p.local.port),
                             Cell::number(p.local.lid), p.remote ? Cell(p.remote->description) : Cell::none(""),
                             p.remote ? Cell(fmt::format("{}", p.remote->node)) : Cell::none(""),
                             p.remote ? Cell::number(p.remote->port) : Cell::none(""), Cell::number(p.sampled_ms),
                             Cell::flag(p.extended)};
      for (size_t i = 0; i < pm::kCounters; ++i) {
        r.push_back(Cell::number(v[i]));
        r.push_back(Cell::real(p.rates[i], 3));
      }
      t.rows.push_back(std::move(r));
      continue;
    }
    using pm::Counter;
    using pm::index;
    t.rows.push_back({p.local.description, Cell::number(p.local.port), Cell::number(p.local.lid),
                      p.remote ? Cell(end_name(*p.remote)) : Cell::none(), Cell::number(v[index(Counter::symbol_errors)]),
                      Cell::number(v[index(Counter::link_error_recovery)]),
                      Cell::number(v[index(Counter::link_downed)]), Cell::number(v[index(Counter::rcv_errors)]),
                      Cell::number(v[index(Counter::xmit_discards)]), Cell::number(v[index(Counter::xmit_wait)]),
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
                      fmt::format("{}", f.at.node), Cell::number(f.at.lid),
                      f.peer ? Cell(end_name(*f.peer)) : Cell::none(),
                      f.peer ? Cell(fmt::format("{}", f.peer->node)) : Cell::none(""),
                      f.peer ? Cell::number(f.peer->lid) : Cell::none(""), f.what,
                      f.first_ms > 0 ? Cell(when_ms(f.first_ms)) : Cell::none(),
                      f.last_ms > 0 ? Cell(when_ms(f.last_ms)) : Cell::none(), Cell::flag(f.isolated)});
  return t;
}

}  // namespace cli
