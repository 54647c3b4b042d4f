// The PerfMgr's options (OpenSM's perfmgr_* names) and the health rules' (health_*).
#include <fmt/ranges.h>

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "cli/config_option.h"
#include "sm/perfmgr/health.h"

namespace cli::config_detail {

namespace {

std::string trimmed(std::string_view v) {
  const size_t b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(v.substr(b, e - b + 1));
}

// "rule,rule": every name a health rule.
mad::Result<std::set<std::string>> parse_rules(const std::string& v) {
  std::set<std::string> out;
  std::stringstream in(v);
  for (std::string item; std::getline(in, item, ',');) {
    item = trimmed(item);
    if (item.empty()) continue;
    if (!sm::perfmgr::default_threshold(item))
      return mad::fail(mad::Errc::parse, fmt::format("{} is not a health rule ({})", mad::quoted(item),
                                                     fmt::join(sm::perfmgr::rule_names(), ", ")));
    out.insert(item);
  }
  return out;
}

// "rule=N,rule=N".
mad::Result<std::map<std::string, uint64_t>> parse_thresholds(const std::string& v) {
  std::map<std::string, uint64_t> out;
  std::stringstream in(v);
  for (std::string item; std::getline(in, item, ',');) {
    if (trimmed(item).empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return mad::fail(mad::Errc::parse, fmt::format("{} is not rule=N", mad::quoted(item)));
    auto rule = parse_rules(item.substr(0, eq));
    if (!rule) return std::unexpected(rule.error());
    auto n = integer(trimmed(item.substr(eq + 1)), 1, INT64_MAX);
    if (!n) return std::unexpected(n.error());
    if (!rule->empty()) out[*rule->begin()] = static_cast<uint64_t>(*n);
  }
  return out;
}

}  // namespace

const std::vector<Option>& perfmgr_options() {
  static const std::vector<Option> t = {
      flag("perfmgr", "read every port's counters (PMA) and check the fabric's health",
           [](auto& c) -> auto& { return c.perf.enabled; }),
      num("perfmgr_sweep_time_s", "seconds between counter sweeps (OpenSM: 180)", 1, 86400,
          [](DaemonConfig& c, int64_t v) { c.perf.sweep_time = std::chrono::seconds(v); },
          [](const DaemonConfig& c) { return std::chrono::duration_cast<std::chrono::seconds>(c.perf.sweep_time).count(); }),
      num("perfmgr_max_outstanding_queries", "counter queries in flight at once (OpenSM: 500)", 1, 4096,
          [](DaemonConfig& c, int64_t v) { c.perf.max_outstanding = static_cast<int>(v); },
          [](const DaemonConfig& c) { return c.perf.max_outstanding; }),
      flag("perfmgr_ignore_cas", "read switch ports only", [](auto& c) -> auto& { return c.perf.ignore_cas; }),
      flag("perfmgr_rm_nodes", "forget the counters of ports that left the fabric",
           [](auto& c) -> auto& { return c.perf.rm_nodes; }),
      flag("perfmgr_log_errors", "log every health finding", [](auto& c) -> auto& { return c.perf.log_errors; }),
      flag("perfmgr_xmit_wait_log", "report congestion: PortXmitWait past perfmgr_xmit_wait_threshold in a sweep",
           [](auto& c) -> auto& { return c.perf.xmit_wait_log; }),
      num("perfmgr_xmit_wait_threshold", "PortXmitWait increase within one sweep that counts as congestion", 1,
          0xFFFFFFFF, [](DaemonConfig& c, int64_t v) { c.perf.xmit_wait_threshold = static_cast<uint32_t>(v); },
          [](const DaemonConfig& c) { return c.perf.xmit_wait_threshold; }),
      flag("perfmgr_on_standby", "run counter sweeps as a standby SM too",
           [](auto& c) -> auto& { return c.perf.on_standby; }),
      num("perfmgr_sample_interval_s", "the store keeps a sample of every port's counters this often", 1, 86400,
          [](DaemonConfig& c, int64_t v) { c.perf.sample_interval = std::chrono::seconds(v); },
          [](const DaemonConfig& c) {
            return std::chrono::duration_cast<std::chrono::seconds>(c.perf.sample_interval).count();
          }),
      num("perfmgr_retention_h", "hours of counter samples the store keeps", 1, 24 * 366,
          [](DaemonConfig& c, int64_t v) { c.perf.retention = std::chrono::hours(v); },
          [](const DaemonConfig& c) { return std::chrono::duration_cast<std::chrono::hours>(c.perf.retention).count(); }),
      {"health_thresholds",
       "rule=N,...: the increase within one counter sweep that makes a finding (the README lists rules and defaults)",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         auto th = parse_thresholds(v);
         if (!th) return std::unexpected(th.error());
         c.perf.thresholds = std::move(*th);
         return {};
       },
       [](const DaemonConfig& c) {
         std::vector<std::string> v;
         for (const auto& [rule, n] : c.perf.thresholds) v.push_back(fmt::format("{}={}", rule, n));
         return fmt::format("{}", fmt::join(v, ","));
       }},
      {"health_isolate", "rule,...: rules whose findings take the cable out of the routes (switch-to-switch "
                         "cables with another path only); others are reported",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         auto r = parse_rules(v);
         if (!r) return std::unexpected(r.error());
         c.perf.isolate = std::move(*r);
         return {};
       },
       [](const DaemonConfig& c) { return fmt::format("{}", fmt::join(c.perf.isolate, ",")); }},
      num("health_clean_time_s", "a finding closes, and an isolated cable comes back, after this long without "
          "firing (0: isolated cables stay out until `fabricsm health clear`)", 0, 30 * 86400,
          [](DaemonConfig& c, int64_t v) { c.perf.clean_time = std::chrono::seconds(v); },
          [](const DaemonConfig& c) { return std::chrono::duration_cast<std::chrono::seconds>(c.perf.clean_time).count(); }),
      flag("traffic_hints", "with perfmgr and adaptive-hint: move the busiest destinations off the channels the "
           "counters show hot, onto equally good ports", [](auto& c) -> auto& { return c.adapt.enabled; }),
      num("traffic_hot_pct", "traffic hints: a switch-to-switch channel this busy (percent) is hot ...",
          1, 100, [](DaemonConfig& c, int64_t v) { c.adapt.hot = static_cast<double>(v) / 100; },
          [](const DaemonConfig& c) { return std::lround(c.adapt.hot * 100); }),
      num("traffic_skew_pct", "... and at least this percentage of the loaded channels' mean utilisation", 100, 10000,
          [](DaemonConfig& c, int64_t v) { c.adapt.skew = static_cast<double>(v) / 100; },
          [](const DaemonConfig& c) { return std::lround(c.adapt.skew * 100); }),
      num("traffic_release_pct", "traffic hints: the moves are given back when the CAs send less than this "
          "percentage of their peak since the first", 1, 99,
          [](DaemonConfig& c, int64_t v) { c.adapt.release = static_cast<double>(v) / 100; },
          [](const DaemonConfig& c) { return std::lround(c.adapt.release * 100); }),
      num("traffic_interval_s", "traffic hints: seconds at least between two rounds", 1, 86400,
          [](DaemonConfig& c, int64_t v) { c.adapt.min_interval = std::chrono::seconds(v); },
          [](const DaemonConfig& c) {
            return std::chrono::duration_cast<std::chrono::seconds>(c.adapt.min_interval).count();
          }),
  };
  return t;
}

}  // namespace cli::config_detail
