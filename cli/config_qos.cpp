// QoS options (OpenSM's names): qos, then the tables of every class - qos_* for all ports,
// qos_ca_*, qos_sw0_* (switch port 0) and qos_swe_* (switch external ports) overriding them.
#include <fmt/format.h>

#include <array>
#include <deque>
#include <string>

#include "cli/config_option.h"
#include "sm/program/qos_config.h"

namespace cli::config_detail {

namespace {

struct ClassOf {
  const char* prefix;
  const char* what;
  sm::QosClassOptions sm::QosOptions::*field;
};

constexpr std::array<ClassOf, 4> kClasses = {{
    {"qos_", "every port", &sm::QosOptions::general},
    {"qos_ca_", "CA ports", &sm::QosOptions::ca},
    {"qos_sw0_", "switch port 0 (enhanced port 0)", &sm::QosOptions::sw0},
    {"qos_swe_", "switch external ports", &sm::QosOptions::swe},
}};

// Names and help texts live as long as the table (Option holds C strings).
const char* keep(std::string s) {
  static std::deque<std::string> kept;
  return kept.emplace_back(std::move(s)).c_str();
}

using TableParse = mad::Result<void> (*)(const std::string&);
mad::Result<void> vlarb_ok(const std::string& v) {
  auto r = sm::parse_vlarb(v);
  if (!r) return std::unexpected(r.error());
  return {};
}
mad::Result<void> sl2vl_ok(const std::string& v) {
  auto r = sm::parse_sl2vl(v);
  if (!r) return std::unexpected(r.error());
  return {};
}

Option table_text(const ClassOf& c, const char* suffix, const char* help, std::string sm::QosClassOptions::*member,
                  TableParse check) {
  return Option{keep(fmt::format("{}{}", c.prefix, suffix)), help,
                [=](const std::string& v, DaemonConfig& cfg) -> mad::Result<void> {
                  if (!v.empty())
                    if (auto r = check(v); !r) return r;
                  cfg.sm.qos.*c.field.*member = v;
                  return {};
                },
                [=](const DaemonConfig& cfg) { return cfg.sm.qos.*c.field.*member; }};
}

}  // namespace

const std::vector<Option>& qos_options() {
  static const std::vector<Option> t = [] {
    std::vector<Option> all = {flag("qos", "program the SL-to-VL mapping and VL arbitration tables (and VLHighLimit) of "
                                    "every port from the qos_* options; FALSE: leave them as they are",
                                    [](auto& c) -> auto& { return c.sm.qos.enabled; }),
                               text("qos_policy_file", "QoS policy, in a subset of OpenSM's qos-policy.conf syntax: the "
                                    "SL (and MTU, rate and packet-life limits) PathRecords answer by service ID, P_Key, "
                                    "QoS class and source and destination port groups, when qos is TRUE (empty: none, "
                                    "SL 0); re-read on SIGHUP, a bad file keeps the running policy",
                                    &DaemonConfig::qos_policy_file)};
    for (const ClassOf& c : kClasses) {
      const bool general = c.field == &sm::QosOptions::general;
      const std::string inherit = general ? "OpenSM's default" : "qos_*'s";
      all.push_back(Option{
          keep(fmt::format("{}max_vls", c.prefix)),
          keep(fmt::format("QoS, {}: data VLs to use at most, 1-15, which caps OperationalVLs (0: {}{})", c.what,
                           inherit, general ? ", 15" : "")),
          [f = c.field](const std::string& v, DaemonConfig& cfg) -> mad::Result<void> {
            auto x = integer(v, 0, 15);
            if (!x) return std::unexpected(x.error());
            (cfg.sm.qos.*f).max_vls = static_cast<int>(*x);
            return {};
          },
          [f = c.field](const DaemonConfig& cfg) { return std::to_string((cfg.sm.qos.*f).max_vls); }});
      all.push_back(Option{
          keep(fmt::format("{}high_limit", c.prefix)),
          keep(fmt::format("QoS, {}: VLHighLimit, high-priority 4 KB units sent before a low-priority packet may go, "
                           "0-255 (-1: {}{})", c.what, inherit, general ? ", 0" : "")),
          [f = c.field](const std::string& v, DaemonConfig& cfg) -> mad::Result<void> {
            auto x = integer(v, -1, 255);
            if (!x) return std::unexpected(x.error());
            (cfg.sm.qos.*f).high_limit = static_cast<int>(*x);
            return {};
          },
          [f = c.field](const DaemonConfig& cfg) { return std::to_string((cfg.sm.qos.*f).high_limit); }});
      all.push_back(table_text(c, "vlarb_high",
                               keep(fmt::format("QoS, {}: high-priority VL arbitration, VL:weight,... (weight in 64-byte "
                                                "units, at most 64 pairs; empty: {})", c.what, inherit)),
                               &sm::QosClassOptions::vlarb_high, vlarb_ok));
      all.push_back(table_text(c, "vlarb_low",
                               keep(fmt::format("QoS, {}: low-priority VL arbitration, VL:weight,... (empty: {})", c.what,
                                                inherit)),
                               &sm::QosClassOptions::vlarb_low, vlarb_ok));
      all.push_back(table_text(c, "sl2vl",
                               keep(fmt::format("QoS, {}: the VL of each SL, 16 comma-separated VLs (15: drop; VLs "
                                                "past a port's OperationalVLs are masked as OpenSM does; empty: {})",
                                                c.what, general ? "OpenSM's default, SL n on VL n and SL15 on VL7" : inherit)),
                               &sm::QosClassOptions::sl2vl, sl2vl_ok));
    }
    return all;
  }();
  return t;
}

}  // namespace cli::config_detail
