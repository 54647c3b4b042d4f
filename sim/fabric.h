// The in-process simulated fabric: switches and CAs whose subnet management agents answer
// SMPs, and whose performance management agents answer PMA queries, as hardware (and ibsim)
// does; links with real port-state rules, LFT-following LID routing, traps, and SM endpoints
// attached at ports. Everything runs on a virtual clock, one event at a time in (time,
// sequence) order, so a run is deterministic.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/error.h"
#include "mad/pma.h"
#include "mad/port_info.h"
#include "mad/transport.h"
#include "mad/types.h"
#include "fabric/ar_table.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/spec.h"

namespace mad {
struct Notice;
}  // namespace mad

namespace sim {

using NodeIdx = uint32_t;
inline constexpr NodeIdx kNoNode = UINT32_MAX;
using EndpointId = uint32_t;
inline constexpr EndpointId kNoEndpoint = UINT32_MAX;

// A port's performance counters as its PMA keeps them (see pma.cpp). The PortCounters ones at
// full precision, saturating at 2^64-1: a PortCounters read shows each saturated at its wire
// width, as IBA counters stop at all ones. The PortCountersExtended ones are separate registers
// (as in ibsim: clearing one attribute's counter leaves the other's), 64 bits, wrapping.
struct SimCounters {
  uint64_t symbol_errors = 0, link_error_recovery = 0, link_downed = 0, rcv_errors = 0;
  uint64_t rcv_remote_phys_errors = 0, rcv_switch_relay_errors = 0, xmit_discards = 0;
  uint64_t xmit_constraint_errors = 0, rcv_constraint_errors = 0;
  uint64_t local_link_integrity_errors = 0, excessive_buffer_overrun_errors = 0, vl15_dropped = 0;
  uint64_t xmit_data = 0, rcv_data = 0, xmit_pkts = 0, rcv_pkts = 0;  // data in 4-byte words
  uint64_t xmit_wait = 0;
  uint64_t ext_xmit_data = 0, ext_rcv_data = 0, ext_xmit_pkts = 0, ext_rcv_pkts = 0;
  uint64_t unicast_xmit_pkts = 0, unicast_rcv_pkts = 0, multicast_xmit_pkts = 0, multicast_rcv_pkts = 0;
  bool operator==(const SimCounters&) const = default;
};

// One counter register of SimCounters, for set_counter / add_counter.
enum class Counter : uint8_t {
  symbol_errors, link_error_recovery, link_downed, rcv_errors, rcv_remote_phys_errors,
  rcv_switch_relay_errors, xmit_discards, xmit_constraint_errors, rcv_constraint_errors,
  local_link_integrity_errors, excessive_buffer_overrun_errors, vl15_dropped,
  xmit_data, rcv_data, xmit_pkts, rcv_pkts, xmit_wait,
  ext_xmit_data, ext_rcv_data, ext_xmit_pkts, ext_rcv_pkts,
  unicast_xmit_pkts, unicast_rcv_pkts, multicast_xmit_pkts, multicast_rcv_pkts,
};

// What happened on a port, as add_counters injects it. Traffic (xmit/rcv data and packets)
// moves both the PortCounters and the PortCountersExtended registers, as it does in hardware.
struct SimCounterDelta {
  uint64_t symbol_errors = 0, link_error_recovery = 0, link_downed = 0, rcv_errors = 0;
  uint64_t rcv_remote_phys_errors = 0, rcv_switch_relay_errors = 0, xmit_discards = 0;
  uint64_t xmit_constraint_errors = 0, rcv_constraint_errors = 0;
  uint64_t local_link_integrity_errors = 0, excessive_buffer_overrun_errors = 0, vl15_dropped = 0;
  uint64_t xmit_data = 0, rcv_data = 0, xmit_pkts = 0, rcv_pkts = 0;  // data in 4-byte words
  uint64_t xmit_wait = 0;
  uint64_t unicast_xmit_pkts = 0, unicast_rcv_pkts = 0, multicast_xmit_pkts = 0, multicast_rcv_pkts = 0;
};

// The PMA's ClassPortInfo CapabilityMask by default: AllPortSelect, PortCountersExtended
// (IsExtendedWidthSupported) and PortXmitWait.
inline constexpr uint16_t kDefaultPmaCap =
    mad::pma_cap::all_port_select | mad::pma_cap::ext_width | mad::pma_cap::xmit_wait;

// PortXmitWait counts ticks of this many nanoseconds (IBA leaves the tick to the device): a
// 32-bit PortXmitWait then holds over four minutes of waiting.
inline constexpr int64_t kXmitWaitTickNs = 64;

// Traffic through a port as set_traffic gives it: data rates each way and the fraction of
// time the port has data it cannot send (congestion), from `since` on in virtual time; the
// counters take it in when they are read (carry: the parts of words, packets, ticks not yet
// counted).
struct PortRate;
struct SimPortTraffic {
  double xmit_bytes_per_s = 0, rcv_bytes_per_s = 0, xmit_wait = 0;
  mad::Nanos since{0};
  std::array<double, 5> carry{};
  bool active() const { return xmit_bytes_per_s > 0 || rcv_bytes_per_s > 0 || xmit_wait > 0; }
};

// One port's traffic for SimFabric::set_traffic.
struct PortRate {
  NodeIdx node;
  uint8_t port;
  double xmit_gbps = 0, rcv_gbps = 0;
  double xmit_wait = 0;  // fraction of the time, 0..1
};

// SimPort::mkey_lease_deadline when the M_Key lease timer is not running.
inline constexpr mad::Nanos kMkeyLeaseNotRunning = mad::Nanos::max();

// What a port holds: the PortInfo fields an SM reads and writes, plus the cable.
struct SimPort {
  uint8_t num = 0;
  mad::Guid guid;
  // The cable as the spec laid it; `peer` is where the link currently goes (kNoNode when down).
  NodeIdx cable_node = kNoNode;
  uint8_t cable_port = 0;
  NodeIdx peer = kNoNode;
  uint8_t peer_port = 0;
  mad::PortState state = mad::PortState::down;
  mad::PhysState phys = mad::PhysState::polling;
  uint16_t lid = 0;
  uint8_t lmc = 0;
  uint16_t sm_lid = 0;
  uint8_t sm_sl = 0;
  // M_Key protection (IBA 14.2.4; see sma.cpp). A switch has one M_Key: port 0's fields.
  uint64_t mkey = 0;
  uint16_t mkey_lease = 0;          // M_KeyLeasePeriod, seconds (0: the lease never expires)
  uint8_t mkey_protect = 0;
  uint16_t mkey_violations = 0;     // M_KeyViolations, saturating at 0xFFFF
  // When the lease runs out (virtual time), kMkeyLeaseNotRunning while the timer is stopped.
  mad::Nanos mkey_lease_deadline = kMkeyLeaseNotRunning;
  uint64_t gid_prefix = 0xFE80000000000000ULL;
  uint32_t cap_mask = 0;
  uint8_t width_enabled = 0, width_supported = 0, width_active = 0;
  uint8_t speed_enabled = 0, speed_supported = 0, speed_active = 0;
  uint8_t speed_ext_enabled = 0, speed_ext_supported = 0, speed_ext_active = 0;
  uint8_t mtu_cap = 5, neighbor_mtu = 5;  // 4096
  uint8_t vl_cap = 4, op_vls = 4;         // VL0-7
  uint8_t hoq_life = 0, vl_stall = 0, subnet_timeout = 0, resp_time = 0;
  uint8_t vl_high_limit = 0;
  bool client_rereg = false;
  uint32_t client_rereg_count = 0;  // how often an SM asked this port to re-register
  uint32_t lid_changes = 0;         // how often a Set changed this port's LID
  std::vector<uint16_t> pkeys;      // P_Key table (index 0 = default 0xFFFF)
  uint64_t pkey_blocks_written = 0; // P_KeyTable Sets received for this port
  bool pkey_enforce_in = false, pkey_enforce_out = false;  // switch external ports
  std::array<uint8_t, 8> sl2vl{};   // SL-to-VL (a switch's output port: for every input port...)
  // ...until a Set names one input port: then one table per input port, allocated then.
  std::vector<std::array<uint8_t, 8>> sl2vl_by_in;
  uint64_t qos_sets = 0;            // SLtoVL and VLArbitration Sets received for this port
  std::vector<uint8_t> vlarb;       // 4 blocks x 64 bytes, allocated on first Set
  double drop_rate = 0.0;           // MAD loss on this port, per crossing, both directions
  EndpointId endpoint = kNoEndpoint;  // an SM attached here (CA port, switch port 0)
  SimCounters counters;             // what the PMA reports for this port
  SimPortTraffic traffic;           // what moves its data, packet and wait counters (set_traffic)

  bool link_up() const { return peer != kNoNode; }
};

// The QoS tables as after a power cycle: SL n on VL n (SL15 on VL15, as ibsim), no per-input
// tables, arbitration empty, VLHighLimit 0.
inline void reset_qos_tables(SimPort& p) {
  for (size_t i = 0; i < p.sl2vl.size(); ++i) p.sl2vl[i] = static_cast<uint8_t>(((2 * i) << 4) | (2 * i + 1));
  p.sl2vl_by_in.clear();
  p.vlarb.clear();
  p.vl_high_limit = 0;
}

struct SimSwitch {
  std::vector<uint8_t> lft;  // grows to the highest block written (all 0xFF beyond)
  uint16_t lft_cap = 49152;
  uint16_t lft_top = 0;
  std::vector<uint16_t> mft;  // MLID-0xC000 x 16-port chunks, allocated on first Set
  uint16_t mft_cap = 1024;
  uint16_t mft_top = 0;
  uint8_t life_time = 0;
  uint8_t default_port = 0;
  bool port_state_change = false;
  uint16_t pkey_enforce_cap = 8;
  uint64_t lft_blocks_written = 0;  // LFT Sets received (for "blocks written" figures)
  // Adaptive routing (traffic only: MADs follow the LFT): when on, the traffic model spreads
  // flows over `ar`'s port group of a destination by local load.
  fabric::ArTable ar;
  bool adaptive = false;
};

struct SimNode {
  mad::NodeType type = mad::NodeType::ca;
  std::string name;
  std::string description;
  mad::Guid guid;
  mad::Guid system_guid;
  uint32_t vendor_id = 0;
  uint16_t device_id = 0;
  uint16_t partition_cap = 64;
  uint8_t num_ports = 0;
  bool present = true;  // a removed node neither answers nor forwards
  bool silent = false;  // a hung management agent: SMPs to it or through it get nothing
  std::vector<SimPort> ports;  // index = port number; CAs have an unused port 0
  std::unique_ptr<SimSwitch> sw;
  mad::Nanos sma_busy_until{0};  // the SMA serves one SMP at a time
  uint64_t smps_handled = 0;
  uint16_t pma_cap = kDefaultPmaCap;  // the PMA's ClassPortInfo CapabilityMask
  mad::Nanos pma_busy_until{0};       // the PMA, too, serves one MAD at a time
  uint64_t pma_handled = 0;           // PMA requests (class 0x04) it answered

  bool is_switch() const { return type == mad::NodeType::sw; }
};

struct SimConfig {
  mad::Nanos hop_latency = std::chrono::nanoseconds(150);   // per link traversed
  mad::Nanos sma_latency = std::chrono::nanoseconds(2000);  // per SMP at an agent
  double drop_rate = 0.0;  // fabric-wide: the fraction of MADs lost (each MAD once)
  uint64_t seed = 1;       // for losses
  uint16_t lft_cap = 49152;  // LinearFDBCap of every switch (ibsim: 49152)
  // Lets two nodes share a node GUID, as misprogrammed hardware does (for the SM's duplicate
  // checks); find_guid() then gives the first. Off: a duplicate is a mistake in the spec.
  bool allow_duplicate_guids = false;
  // Off: as ibsim 0.10, a PortInfo Set leaves SubnetTimeOut as it was, and its answer says so
  // (an agent that ignores a field: the SM must not send it again on every sweep).
  bool keeps_subnet_timeout = true;
};

struct SimStats {
  uint64_t injected = 0;    // MADs sent by endpoints
  uint64_t delivered = 0;   // MADs handed to endpoints
  uint64_t smps_processed = 0;
  uint64_t pma_processed = 0;    // PMA requests answered, all nodes
  uint64_t dropped_loss = 0;     // lost to injected loss
  uint64_t dropped_no_route = 0; // dead link, bad path, LFT miss, removed node
  uint64_t dropped_malformed = 0;
  uint64_t dropped_loop = 0;     // LID-routed MAD that exceeded the hop limit
  uint64_t traps_sent = 0;
  uint64_t mkey_refused = 0;     // SMPs the M_Key check dropped (no answer; a trap 256)
};

class SimFabric {
 public:
  // Builds the fabric from a spec (GUIDs left at 0 are assigned as ibsim would). All links
  // come up in Init / LinkUp, switch port 0 is Active, every LID is 0 and every LFT empty.
  static mad::Result<std::unique_ptr<SimFabric>> build(FabricSpec spec, SimConfig cfg = {});

  // --- SM endpoints -----------------------------------------------------------------------
  // Attaches an SM at a CA port or at switch port 0 (as SIM_HOST does in ibsim).
  mad::Result<EndpointId> attach(NodeIdx node, uint8_t port);
  // IsSM in the port's CapabilityMask (what opening the issm device does); sends trap 144.
  void set_is_sm(EndpointId ep, bool on);
  // The SM process is gone: its port stays, MADs for it get the answer a port without an SM
  // gives, and its inbox is dropped. IsSM is left as it is (clear it first, as the kernel does
  // when the issm device closes; ibsim keeps it). The port can be attached to again.
  void detach(EndpointId ep);
  bool attached(EndpointId ep) const { return endpoints_[ep].attached; }
  // A MAD from an endpoint enters the fabric at its port now.
  void inject(EndpointId ep, const mad::Packet& p);
  std::vector<mad::Packet>& inbox(EndpointId ep) { return endpoints_[ep].inbox; }
  NodeIdx endpoint_node(EndpointId ep) const { return endpoints_[ep].node; }
  uint8_t endpoint_port(EndpointId ep) const { return endpoints_[ep].port; }

  // --- time ---------------------------------------------------------------------------------
  const mad::Clock& clock() const { return clock_; }
  mad::Nanos now() const { return clock_.now(); }
  // Runs every event due at or before `t`, then sets the clock to `t`.
  void run_until(mad::Nanos t);
  // Runs events until `ep` has mail or the next event is after `deadline`; the clock ends at
  // the last event run, or at `deadline` when the inbox is still empty.
  void run_for_endpoint(EndpointId ep, mad::Nanos deadline);
  // The same for several SMs at once: runs events until any attached endpoint has mail or the
  // next event is after `deadline`.
  void run_until_mail(mad::Nanos deadline);

  // --- faults (see faults.cpp) -------------------------------------------------------------
  mad::Result<void> link_down(NodeIdx node, uint8_t port);
  mad::Result<void> link_up(NodeIdx node, uint8_t port);
  // The node vanishes: its links go down, it stops answering.
  mad::Result<void> remove_node(NodeIdx node);
  // The node comes back as from a reboot: LFT empty, LIDs 0, links re-trained to Init.
  mad::Result<void> restore_node(NodeIdx node);
  // A hung management agent: the node's links stay up, but SMPs to it or through it vanish.
  mad::Result<void> set_silent(NodeIdx node, bool silent);
  void set_drop_rate(double rate) { cfg_.drop_rate = rate; }
  mad::Result<void> set_port_drop_rate(NodeIdx node, uint8_t port, double rate);
  // Performance counters: they move by injection, by traffic (set_traffic below), and
  // LinkDowned when a link goes down. Port 0 is a switch's management port; a CA has none.
  mad::Result<void> add_counters(NodeIdx node, uint8_t port, const SimCounterDelta& d);
  mad::Result<void> add_counter(NodeIdx node, uint8_t port, Counter which, uint64_t amount);
  mad::Result<void> set_counter(NodeIdx node, uint8_t port, Counter which, uint64_t value);
  mad::Result<SimCounters> counters(NodeIdx node, uint8_t port) const;
  // Traffic (see sim/traffic/): from now on, the listed ports' PortXmitData/PortRcvData (in
  // 4-byte words), PortXmitPkts/PortRcvPkts (packets of the port's neighbour MTU), their
  // extended and unicast registers, and PortXmitWait advance with virtual time at these rates;
  // every other port carries none. What ran before now is counted at the rates then.
  mad::Result<void> set_traffic(std::span<const PortRate> rates);
  // Adaptive routing of a switch (see SimSwitch::ar): its AR table, and whether it uses it.
  mad::Result<void> set_ar_table(NodeIdx node, fabric::ArTable table);
  mad::Result<void> set_adaptive(NodeIdx node, bool on);
  // M_Key protection on a port (port 0 for a switch), as if another SM had set it: the lease
  // timer stops, the violation counter stays.
  mad::Result<void> set_mkey(NodeIdx node, uint8_t port, uint64_t key, uint8_t protect_bits,
                             uint16_t lease_s);

  // --- inspection ---------------------------------------------------------------------------
  std::span<const SimNode> nodes() const { return nodes_; }
  const SimNode& node(NodeIdx i) const { return nodes_[i]; }
  SimNode& mutable_node(NodeIdx i) { return nodes_[i]; }
  std::optional<NodeIdx> find(std::string_view name) const;
  std::optional<NodeIdx> find_guid(mad::Guid node_guid) const;
  const SimStats& stats() const { return stats_; }
  const SimConfig& config() const { return cfg_; }

 private:
  SimFabric() = default;
  struct Endpoint {
    NodeIdx node;
    uint8_t port;
    std::vector<mad::Packet> inbox;
    bool attached = true;
  };
  bool any_mail() const;
  // Runs events until `has_mail()` or the next event is after `deadline` (the clock then
  // ends at `deadline`).
  template <class HasMail>
  void run_until_any(mad::Nanos deadline, HasMail has_mail);
  // A MAD in flight arrives at (node, port) at its event time.
  struct Arrival {
    mad::Packet pkt;
    NodeIdx node;
    uint8_t port;
    bool to_endpoint;  // false: to the node's agent (the SMA; the PMA for class 0x04)
    uint16_t slid;     // LID-routed: where the response goes
  };

  // forwarding.cpp
  void route(const mad::Packet& p, NodeIdx node, uint8_t port, uint16_t slid, mad::Nanos delay);
  void route_directed(mad::Smp& smp, NodeIdx node, uint8_t port, mad::Nanos delay);
  void route_lid(const mad::Packet& p, NodeIdx node, uint8_t port, uint16_t slid, uint16_t dlid,
                 mad::Nanos delay);
  bool lost_on(const SimPort& a);
  bool owns_lid(const SimNode& n, uint8_t port, uint16_t lid) const;
  void arrive(Arrival a, mad::Nanos delay);
  void deliver(Arrival& a);
  // sma.cpp
  void process_smp(NodeIdx node, uint8_t port, mad::Smp& smp, uint16_t slid);
  bool mkey_admits(NodeIdx node, uint8_t port, const mad::Smp& smp, uint16_t slid);
  uint16_t apply_port_info(NodeIdx node, uint8_t port, const mad::PortInfo& req);
  // pma.cpp
  void process_pma(NodeIdx node, uint8_t in_port, mad::PmaMad& m, uint16_t slid);
  // traffic_state.cpp: counts a port's traffic up to now into its counters.
  void accrue_traffic(SimPort& p);
  // faults.cpp
  void send_trap(NodeIdx node, uint8_t port, uint16_t trap_number, uint32_t detail);
  void send_mkey_trap(NodeIdx node, uint8_t port, const mad::Smp& smp, uint16_t slid);
  void send_notice(NodeIdx node, uint8_t port, const mad::Notice& notice);
  void mark_state_change(NodeIdx node);

  SimConfig cfg_;
  VirtualClock clock_;
  EventQueue<Arrival> events_;
  SplitMix64 rng_{1};
  std::vector<SimNode> nodes_;
  std::vector<Endpoint> endpoints_;
  std::unordered_map<std::string, NodeIdx> by_name_;
  std::unordered_map<mad::Guid, NodeIdx> by_guid_;
  SimStats stats_;
};

}  // namespace sim
