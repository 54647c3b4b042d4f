// What the PerfMgr publishes after every counter sweep, as one immutable value shared by
// pointer (like sm::Subnet): every port it reads with both cable ends named, the counters
// accumulated since it first saw the port, the rates over the last interval, and the health
// findings. The store, the metrics endpoint, `fabricsm show counters/health` and the web view
// read this value, never the PerfMgr object.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sm/types.h"

namespace sm::perfmgr {

// The counters the PerfMgr keeps per port: PortCounters' fields, then PortCountersExtended's.
enum class Counter : uint8_t {
  symbol_errors,
  link_error_recovery,
  link_downed,
  rcv_errors,
  rcv_remote_phys_errors,
  rcv_switch_relay_errors,
  xmit_discards,
  xmit_constraint_errors,
  rcv_constraint_errors,
  local_link_integrity_errors,
  excessive_buffer_overrun_errors,
  vl15_dropped,
  xmit_wait,
  xmit_data,  // in bytes (the wire counts 4-byte words; the PerfMgr multiplies by 4)
  rcv_data,   // in bytes
  xmit_pkts,
  rcv_pkts,
  unicast_xmit_pkts,  // PortCountersExtended only (0 where the port has none)
  unicast_rcv_pkts,
  multicast_xmit_pkts,
  multicast_rcv_pkts,
};
inline constexpr size_t kCounters = 21;

struct CounterInfo {
  std::string_view name;      // snake case, for metric names and JSON: "symbol_error"
  std::string_view iba_name;  // as perfquery prints it: "SymbolErrorCounter"
  bool error;                 // an error counter (health rules look at these)
};

inline constexpr std::array<CounterInfo, kCounters> kCounterInfo{{
    {"symbol_error", "SymbolErrorCounter", true},
    {"link_error_recovery", "LinkErrorRecoveryCounter", true},
    {"link_downed", "LinkDownedCounter", true},
    {"port_rcv_errors", "PortRcvErrors", true},
    {"port_rcv_remote_physical_errors", "PortRcvRemotePhysicalErrors", true},
    {"port_rcv_switch_relay_errors", "PortRcvSwitchRelayErrors", true},
    {"port_xmit_discards", "PortXmitDiscards", true},
    {"port_xmit_constraint_errors", "PortXmitConstraintErrors", true},
    {"port_rcv_constraint_errors", "PortRcvConstraintErrors", true},
    {"local_link_integrity_errors", "LocalLinkIntegrityErrors", true},
    {"excessive_buffer_overrun_errors", "ExcessiveBufferOverrunErrors", true},
    {"vl15_dropped", "VL15Dropped", true},
    {"port_xmit_wait", "PortXmitWait", false},
    {"port_xmit_data", "PortXmitData", false},
    {"port_rcv_data", "PortRcvData", false},
    {"port_xmit_packets", "PortXmitPkts", false},
    {"port_rcv_packets", "PortRcvPkts", false},
    {"port_unicast_xmit_packets", "PortUnicastXmitPkts", false},
    {"port_unicast_rcv_packets", "PortUnicastRcvPkts", false},
    {"port_multicast_xmit_packets", "PortMulticastXmitPkts", false},
    {"port_multicast_rcv_packets", "PortMulticastRcvPkts", false},
}};

inline constexpr size_t index(Counter c) { return static_cast<size_t>(c); }

// One end of a cable.
struct PortEnd {
  Guid node;
  std::string description;  // NodeDescription
  uint8_t port = 0;
  uint16_t lid = 0;  // the LID the port answers at (a switch's port 0 LID for its ports)
  bool is_switch = false;
};

struct PortSample {
  PortEnd local;
  std::optional<PortEnd> remote;  // none: nothing linked (or not known)
  // Accumulated since the PerfMgr first read this port (monotonic across clears, resets and
  // wraps, so they are Prometheus counters).
  std::array<uint64_t, kCounters> totals{};
  // Per second over the last interval (data in bytes per second); 0 before the second read.
  std::array<double, kCounters> rates{};
  bool has_rates = false;
  bool extended = false;  // 64-bit data counters (PortCountersExtended) were read
  int64_t sampled_ms = 0;  // wall clock of the last good read
  uint64_t failures = 0;   // reads that got no answer, since the PerfMgr first saw the port
};

enum class Severity : uint8_t { warning, error };

// What a health rule saw on a cable.
struct Finding {
  std::string rule;  // "symbol_error", ..., "xmit_wait", "flapping", "degraded_link"
  Severity severity = Severity::warning;
  PortEnd at;                      // the port it was seen at
  std::optional<PortEnd> peer;     // the other end of its cable
  std::string what;                // "symbol errors +1,234 in 60 s"
  int64_t first_ms = 0;            // when the rule first fired (wall clock)
  int64_t last_ms = 0;             // when it last fired
  bool isolated = false;           // the SM routes around this cable
};

struct SweepFigures {
  uint64_t number = 0;
  int64_t started_ms = 0;
  double duration_ms = 0;  // wall time of the sweep
  uint64_t ports = 0;      // read this sweep
  uint64_t queries = 0;    // PMA MADs sent (resends included)
  uint64_t timeouts = 0;   // ports that did not answer
  uint64_t clears = 0;     // PortCounters Sets that cleared a saturating counter
};

struct Snapshot {
  SweepFigures sweep;
  uint64_t sweeps = 0;  // counter sweeps done since start
  std::vector<PortSample> ports;  // in (node GUID, port) order
  std::vector<Finding> findings;  // open findings, in (rule, node GUID, port) order
  std::vector<std::pair<std::string, uint64_t>> findings_by_rule;  // fired since start
};

}  // namespace sm::perfmgr
