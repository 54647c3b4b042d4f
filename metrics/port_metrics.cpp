#include "metrics/port_metrics.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <utility>

namespace metrics {

namespace pm = sm::perfmgr;

namespace {

bool is_data(pm::Counter c) { return c == pm::Counter::xmit_data || c == pm::Counter::rcv_data; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// The exporter's labels (its init_metrics()): component, local_name, local_guid, local_port,
// remote_guid, remote_port, remote_name; GUIDs as ibqueryerrors prints them (0x + 16 digits).
// A port with nothing linked has empty remote labels (Prometheus reads those as absent).
std::string port_labels(Writer& w, const pm::PortEnd& local, const std::optional<pm::PortEnd>& remote,
                        std::initializer_list<Label> first = {}) {
  const std::string guid = local.node.str(), port = std::to_string(local.port);
  const std::string rguid = remote ? remote->node.str() : "", rport = remote ? std::to_string(remote->port) : "";
  std::vector<Label> l(first);
  l.insert(l.end(), {{"component", local.is_switch ? "switch" : "ca"},
                     {"local_name", local.description},
                     {"local_guid", guid},
                     {"local_port", port},
                     {"remote_guid", rguid},
                     {"remote_port", rport},
                     {"remote_name", remote ? std::string_view(remote->description) : std::string_view()}});
  return w.render_labels(l);
}

std::string_view severity_name(pm::Severity s) { return s == pm::Severity::error ? "error" : "warning"; }

}  // namespace

std::string port_counter_family(pm::Counter c) {
  const pm::CounterInfo& info = pm::kCounterInfo[pm::index(c)];
  return "infiniband_" + lower(info.iba_name) + (is_data(c) ? "_bytes" : "");
}

std::string port_rate_family(pm::Counter c) {
  std::string_view n = pm::kCounterInfo[pm::index(c)].name;
  if (n.starts_with("port_")) n.remove_prefix(5);
  return fmt::format("fabricsm_port_{}{}", n, is_data(c) ? "_bytes_per_second" : "_per_second");
}

void write_perf(Writer& w, const pm::Snapshot& s) {
  // Each port's labels once: 21 counters and 21 rates share them.
  std::vector<std::string> labels;
  labels.reserve(s.ports.size());
  for (const pm::PortSample& p : s.ports) labels.push_back(port_labels(w, p.local, p.remote));

  for (size_t i = 0; i < pm::kCounters && !w.stopped(); ++i) {
    const auto c = static_cast<pm::Counter>(i);
    const pm::CounterInfo& info = pm::kCounterInfo[i];
    w.family(port_counter_family(c), Type::counter,
             fmt::format("{}{}, accumulated by the SM's PerfMgr since it first read the port (across clears "
                         "and resets)", info.iba_name, is_data(c) ? " in bytes" : ""));
    for (size_t p = 0; p < s.ports.size(); ++p) w.sample_rendered(labels[p], s.ports[p].totals[i]);
  }
  for (size_t i = 0; i < pm::kCounters && !w.stopped(); ++i) {
    const auto c = static_cast<pm::Counter>(i);
    w.family(port_rate_family(c), Type::gauge,
             fmt::format("{} per second over the PerfMgr's last interval", pm::kCounterInfo[i].iba_name));
    for (size_t p = 0; p < s.ports.size(); ++p)
      if (s.ports[p].has_rates) w.sample_rendered(labels[p], s.ports[p].rates[i]);
  }
  w.family("fabricsm_port_read_failures", Type::counter, "PMA reads of the port that got no answer");
  for (size_t p = 0; p < s.ports.size(); ++p) w.sample_rendered(labels[p], s.ports[p].failures);
  labels = {};

  w.family("fabricsm_health_findings", Type::counter, "health findings fired since start, by rule");
  for (const auto& [rule, n] : s.findings_by_rule) w.sample({{"rule", rule}}, n);
  std::map<std::pair<std::string, pm::Severity>, uint64_t> open;
  for (const pm::Finding& f : s.findings) ++open[{f.rule, f.severity}];
  w.family("fabricsm_health_open_findings", Type::gauge, "findings open now, by rule and severity");
  for (const auto& [key, n] : open) w.sample({{"rule", key.first}, {"severity", severity_name(key.second)}}, n);
  w.family("fabricsm_health_finding", Type::gauge,
           "1 for each open finding, at the port it was seen at (isolated: the SM routes around the cable)");
  for (const pm::Finding& f : s.findings)
    w.sample_rendered(port_labels(w, f.at, f.peer,
                                  {{"rule", f.rule}, {"severity", severity_name(f.severity)},
                                   {"isolated", f.isolated ? "true" : "false"}}),
                      uint64_t{1});

  w.family("fabricsm_perfmgr_sweeps", Type::counter, "counter sweeps done since start");
  w.sample({}, s.sweeps);
  w.family("fabricsm_perfmgr_last_sweep_duration_seconds", Type::gauge, "wall time of the last counter sweep");
  w.sample({}, s.sweep.duration_ms / 1000.0);
  w.family("fabricsm_perfmgr_last_sweep_ports", Type::gauge, "ports the last counter sweep read");
  w.sample({}, s.sweep.ports);
  w.family("fabricsm_perfmgr_last_sweep_timeouts", Type::gauge, "ports that did not answer the last counter sweep");
  w.sample({}, s.sweep.timeouts);
  w.family("fabricsm_perfmgr_ports", Type::gauge, "ports the PerfMgr reads");
  w.sample({}, static_cast<uint64_t>(s.ports.size()));
}

}  // namespace metrics
