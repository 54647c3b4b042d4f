// A hand-built PerfMgr Snapshot (a switch port cabled to a CA port, with awkward names) and SM
// figures, for the unit tests and for the page promtool checks.
#pragma once

#include "metrics/sm_metrics.h"
#include "sm/perfmgr/snapshot.h"

namespace metrics_test {

namespace pm = sm::perfmgr;

inline pm::PortEnd switch_end() {
  return pm::PortEnd{.node = sm::Guid(0x0002c90300a1b2c3ULL), .description = "leaf \"1\" \\ rack\n2", .port = 7,
                     .lid = 3, .is_switch = true};
}
inline pm::PortEnd ca_end() {
  return pm::PortEnd{.node = sm::Guid(0x0002c90300000042ULL), .description = "node042 HCA-1", .port = 1, .lid = 12,
                     .is_switch = false};
}

inline pm::Snapshot two_ports() {
  pm::Snapshot s;
  s.sweeps = 3;
  s.sweep = pm::SweepFigures{.number = 3, .started_ms = 1700000000000, .duration_ms = 12.5, .ports = 2,
                             .queries = 4, .timeouts = 0, .clears = 1};
  pm::PortSample sw;
  sw.local = switch_end();
  sw.remote = ca_end();
  sw.totals[pm::index(pm::Counter::symbol_errors)] = 4321;
  sw.totals[pm::index(pm::Counter::xmit_data)] = 4000;
  sw.rates[pm::index(pm::Counter::xmit_data)] = 1024.5;
  sw.has_rates = true;
  pm::PortSample ca;
  ca.local = ca_end();
  ca.remote = switch_end();
  ca.totals[pm::index(pm::Counter::rcv_data)] = 4000;
  ca.failures = 2;
  s.ports = {ca, sw};  // (node GUID, port) order
  s.findings.push_back(pm::Finding{.rule = "symbol_error", .severity = pm::Severity::error, .at = switch_end(),
                                   .peer = ca_end(), .what = "symbol errors +4,321 in 60 s", .first_ms = 1,
                                   .last_ms = 2, .isolated = false});
  s.findings_by_rule = {{"symbol_error", 1}};
  return s;
}

inline metrics::SmFigures figures() {
  metrics::SmCollector c;
  sm::Subnet sub;
  sub.sweep.heavy = true;
  sub.sweep.up = true;
  sub.sweep.switches = 2;
  sub.sweep.cas = 4;
  sub.sweep.links = 5;
  sub.sweep.total.wall_ms = 42;
  sub.sweep.lids.lids = {{0, mad::PortNum(0), mad::Lid(1), 0}, {1, mad::PortNum(1), mad::Lid(2), 1}};
  sub.sm.state = mad::SmState::master;
  sub.sm.info.priority = 5;
  sub.sm.up = true;
  sub.sm.mkey_violations = 3;
  sub.sm.bad_mkey_traps = 2;
  sub.sm.mkey_refusing = 1;
  c.on_sweep(sub);
  sub.sweep.heavy = false;
  sub.sweep.total.wall_ms = 3;
  c.on_sweep(sub);
  c.on_ha_note(ha::Note{ha::Note::Kind::state, "entering Master"});
  c.on_perf(two_ports());
  c.on_perf(two_ports());  // the same Snapshot again: counted once
  metrics::SmFigures f = c.figures(nullptr);
  f.sa.answered_by_attr = {{0x0035, 7}, {0x7777, 1}};  // PathRecord, and one it has no name for
  f.has_store = true;
  f.store_commits = 2;
  return f;
}

}  // namespace metrics_test
