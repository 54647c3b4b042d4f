// The plan of a sweep's PortInfo Sets, a pure function of the addressed topology and what the
// ports answered (the model): one Set per port carrying its LID, SM LID, link parameters and
// the Init -> Armed step together, only where something differs; then, once every port is
// Armed (Active needs the peer Armed), the Armed -> Active step.
#pragma once

#include <array>

#include <cstdint>
#include <vector>

#include "routing/tables.h"
#include "sm/fabric_model.h"
#include "sm/mkey/key_ring.h"

namespace sm {

struct PortPolicy {
  uint8_t lmc = 0;
  uint8_t sm_sl = 0;
  uint8_t subnet_timeout = 18;     // 4.096 us * 2^18 = 1.07 s (OpenSM's default)
  uint8_t switch_life_time = 18;   // SwitchInfo.LifeTimeValue
  uint8_t hoq_life = 0x13;         // switch-to-switch ports
  uint8_t leaf_hoq_life = 0x10;    // switch ports facing CAs
  uint8_t vl_stall = 7;
  uint8_t max_op_vls = 5;          // VL0-14, capped by both ends' VLCap
  uint64_t m_key = 0;               // one key for every port (per-port keys: mkey::KeyRing)
  uint16_t m_key_lease = 0;
  uint8_t m_key_protect = 1;        // M_KeyProtectBits, written only with a key
  // QoS on (qos_config.h): VLHighLimit and an OperationalVLs cap per class (CA ports, switch
  // port 0, switch external ports), from the resolved qos_* options.
  bool qos = false;
  std::array<uint8_t, 3> qos_high_limit{};
  std::array<uint8_t, 3> qos_op_vls{5, 5, 5};
  bool operator==(const PortPolicy&) const = default;
};

// The PortInfo fields the SM sets and compares, one bit each in PortRec::ignored.
namespace port_field {
enum : uint32_t {
  lid = 1 << 0, lmc = 1 << 1, sm_lid = 1 << 2, sm_sl = 1 << 3, subnet_timeout = 1 << 4,
  m_key = 1 << 5, m_key_lease = 1 << 6, neighbor_mtu = 1 << 7, op_vls = 1 << 8,
  hoq_life = 1 << 9, vl_stall = 1 << 10, m_key_protect = 1 << 11, vl_high_limit = 1 << 12,
};
// Addressing must take: a port that will not hold its LID or SM LID is a failure, not a quirk.
inline constexpr uint32_t must_take = lid | lmc | sm_lid;
}  // namespace port_field

// The fields where a and b differ.
uint32_t differing_fields(const mad::PortInfo& a, const mad::PortInfo& b);
// Sets every "no change" code (port and physical state, link width and speeds enabled, link
// down default) so that a Set of `p` changes only the other fields.
void no_change_codes(mad::PortInfo& p);

struct PortJob {
  NodeId node;
  PortNum port;
  mad::PortInfo want;       // what the Sets carry ("no change" codes where nothing changes)
  bool configure = false;   // needs the stage-1 Set
  bool activate = false;    // needs Armed -> Active in stage 2
};

struct PortPlan {
  std::vector<PortJob> jobs;
  // Indexes into jobs, by stage: listed here, off the loop (130,000 jobs at 43k nodes).
  std::vector<size_t> configure, activate;
  // Switches whose port 0 holds its LID already (no Set): LftMemory learns it.
  std::vector<std::pair<NodeId, Lid>> switch_lids;
};

// `keys`: each port's M_Key (none: policy.m_key); ports it says refuse this SM are left alone.
// `tables` with SLs (VL layers): a port's MasterSMSL is the SL of its route to the SM (from the
// switch its packets enter by), so that its SA traffic rides that route's layer; otherwise
// policy.sm_sl.
PortPlan plan_ports(const Topology& topo, const FabricModel& model, Lid sm_lid, const PortPolicy& policy,
                    const mkey::KeyRing* keys = nullptr, const routing::RoutingTables* tables = nullptr);

}  // namespace sm
