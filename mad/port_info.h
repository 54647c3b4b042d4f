// PortInfo (attribute 0x0015, IBA 1.3 vol 1 14.2.5.6): a port's addresses, link parameters,
// state and counters. AttributeModifier = port number (0 for a switch's management port; on
// a CA any value reads the port the SMP came in by). Every field is decoded; the SM sets
// M_Key, GID prefix, LID, MasterSMLID/SL, LMC, PortState, PhysState, NeighborMTU, VL fields,
// timeouts and ClientReregister.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

// CapabilityMask bits (IBA 1.3 Table 148; names as in the spec).
namespace port_cap {
inline constexpr uint32_t is_sm = 1u << 1;
inline constexpr uint32_t is_notice_supported = 1u << 2;
inline constexpr uint32_t is_trap_supported = 1u << 3;
inline constexpr uint32_t is_optional_ipd_supported = 1u << 4;
inline constexpr uint32_t is_automatic_migration_supported = 1u << 5;
inline constexpr uint32_t is_sl_mapping_supported = 1u << 6;
inline constexpr uint32_t is_m_key_nvram = 1u << 7;
inline constexpr uint32_t is_p_key_nvram = 1u << 8;
inline constexpr uint32_t is_led_info_supported = 1u << 9;
inline constexpr uint32_t is_sm_disabled = 1u << 10;
inline constexpr uint32_t is_system_image_guid_supported = 1u << 11;
inline constexpr uint32_t is_pkey_switch_external_port_trap_supported = 1u << 12;
inline constexpr uint32_t is_cable_info_supported = 1u << 13;
inline constexpr uint32_t is_extended_speeds_supported = 1u << 14;
inline constexpr uint32_t is_capability_mask2_supported = 1u << 15;
inline constexpr uint32_t is_communication_management_supported = 1u << 16;
inline constexpr uint32_t is_snmp_tunneling_supported = 1u << 17;
inline constexpr uint32_t is_reinit_supported = 1u << 18;
inline constexpr uint32_t is_device_management_supported = 1u << 19;
inline constexpr uint32_t is_vendor_class_supported = 1u << 20;
inline constexpr uint32_t is_dr_notice_supported = 1u << 21;
inline constexpr uint32_t is_capability_mask_notice_supported = 1u << 22;
inline constexpr uint32_t is_boot_management_supported = 1u << 23;
inline constexpr uint32_t is_link_round_trip_latency_supported = 1u << 24;
inline constexpr uint32_t is_client_reregistration_supported = 1u << 25;
inline constexpr uint32_t is_other_local_changes_notice_supported = 1u << 26;
inline constexpr uint32_t is_link_speed_width_pairs_table_supported = 1u << 27;
inline constexpr uint32_t is_vendor_specific_mads_table_supported = 1u << 28;
inline constexpr uint32_t is_mcast_pkey_trap_suppression_supported = 1u << 29;
inline constexpr uint32_t is_multicast_fdb_top_supported = 1u << 30;
inline constexpr uint32_t is_hierarchy_info_supported = 1u << 31;
}  // namespace port_cap

// CapabilityMask2 bits.
namespace port_cap2 {
inline constexpr uint16_t is_set_node_description_supported = 1u << 0;
inline constexpr uint16_t is_port_info_extended_supported = 1u << 1;
inline constexpr uint16_t is_virtualization_supported = 1u << 2;
inline constexpr uint16_t is_switch_port_state_table_supported = 1u << 3;
inline constexpr uint16_t is_link_width_2x_supported = 1u << 4;
inline constexpr uint16_t is_link_speed_hdr_supported = 1u << 5;
inline constexpr uint16_t is_link_speed_ndr_supported = 1u << 10;
}  // namespace port_cap2

// LinkWidth{Enabled,Supported,Active} bits. Enabled also takes 0 (no change) and 0xFF
// (set to Supported).
namespace link_width {
inline constexpr uint8_t x1 = 0x01;
inline constexpr uint8_t x4 = 0x02;
inline constexpr uint8_t x8 = 0x04;
inline constexpr uint8_t x12 = 0x08;
inline constexpr uint8_t x2 = 0x10;
inline constexpr uint8_t no_change = 0x00;
inline constexpr uint8_t set_to_supported = 0xFF;
}  // namespace link_width

// LinkSpeed{Supported,Active,Enabled} bits (4-bit fields). Enabled also takes 0 (no change)
// and 0xF (set to Supported).
namespace link_speed {
inline constexpr uint8_t sdr = 0x1;  // 2.5 Gb/s
inline constexpr uint8_t ddr = 0x2;  // 5.0 Gb/s
inline constexpr uint8_t qdr = 0x4;  // 10.0 Gb/s
inline constexpr uint8_t set_to_supported = 0xF;
}  // namespace link_speed

// LinkSpeedExt{Active,Supported,Enabled} bits. Enabled is 5 bits: 0x1E disables extended
// speeds, 0x1F sets to Supported.
namespace link_speed_ext {
inline constexpr uint8_t fdr = 0x1;  // 14.0625 Gb/s
inline constexpr uint8_t edr = 0x2;  // 25.78125 Gb/s
inline constexpr uint8_t hdr = 0x4;
inline constexpr uint8_t ndr = 0x8;
inline constexpr uint8_t disable = 0x1E;
inline constexpr uint8_t set_to_supported = 0x1F;
}  // namespace link_speed_ext

// NeighborMTU / MTUCap encoding.
namespace mtu {
inline constexpr uint8_t mtu256 = 1;
inline constexpr uint8_t mtu512 = 2;
inline constexpr uint8_t mtu1024 = 3;
inline constexpr uint8_t mtu2048 = 4;
inline constexpr uint8_t mtu4096 = 5;
constexpr unsigned bytes(uint8_t code) { return code >= 1 && code <= 5 ? 128u << code : 0u; }
}  // namespace mtu

struct PortInfo {
  static constexpr uint16_t kAttrId = attr::port_info;
  static constexpr size_t kSize = 64;

  uint64_t m_key = 0;
  uint64_t gid_prefix = 0;
  Lid lid;                              // base LID
  Lid master_sm_lid;
  uint32_t capability_mask = 0;         // port_cap::*
  uint16_t diag_code = 0;
  uint16_t m_key_lease_period = 0;
  PortNum local_port_num;
  uint8_t link_width_enabled = 0;       // link_width::*
  uint8_t link_width_supported = 0;
  uint8_t link_width_active = 0;
  uint8_t link_speed_supported = 0;     // 4 bits, link_speed::*
  PortState port_state = PortState::no_change;  // 4 bits; decode refuses > 4
  PhysState phys_state = PhysState::no_change;  // 4 bits; decode refuses > 7
  uint8_t link_down_default_state = 0;  // 4 bits: 0 no change, 1 sleep, 2 polling
  uint8_t m_key_protect_bits = 0;       // 2 bits
  uint8_t lmc = 0;                      // 3 bits
  uint8_t link_speed_active = 0;        // 4 bits
  uint8_t link_speed_enabled = 0;       // 4 bits
  uint8_t neighbor_mtu = 0;             // 4 bits, mtu::*
  uint8_t master_sm_sl = 0;             // 4 bits
  uint8_t vl_cap = 0;                   // 4 bits: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14
  uint8_t init_type = 0;                // 4 bits
  uint8_t vl_high_limit = 0;
  uint8_t vl_arb_high_cap = 0;
  uint8_t vl_arb_low_cap = 0;
  uint8_t init_type_reply = 0;          // 4 bits
  uint8_t mtu_cap = 0;                  // 4 bits, mtu::*
  uint8_t vl_stall_count = 0;           // 3 bits
  uint8_t hoq_life = 0;                 // 5 bits
  uint8_t operational_vls = 0;          // 4 bits, same encoding as vl_cap
  bool partition_enforcement_inbound = false;
  bool partition_enforcement_outbound = false;
  bool filter_raw_inbound = false;
  bool filter_raw_outbound = false;
  uint16_t m_key_violations = 0;
  uint16_t p_key_violations = 0;
  uint16_t q_key_violations = 0;
  uint8_t guid_cap = 0;
  bool client_reregister = false;
  uint8_t mcast_pkey_trap_suppression_enabled = 0;  // 2 bits
  uint8_t subnet_timeout = 0;           // 5 bits: 4.096 us * 2^value
  uint8_t resp_time_value = 0;          // 5 bits
  uint8_t local_phy_errors = 0;         // 4 bits (threshold)
  uint8_t overrun_errors = 0;           // 4 bits (threshold)
  uint16_t max_credit_hint = 0;
  uint32_t link_round_trip_latency = 0; // 24 bits
  uint16_t capability_mask2 = 0;        // port_cap2::*
  uint8_t link_speed_ext_active = 0;    // 4 bits, link_speed_ext::*
  uint8_t link_speed_ext_supported = 0; // 4 bits
  uint8_t link_speed_ext_enabled = 0;   // 5 bits

  bool has_cap(uint32_t bit) const { return (capability_mask & bit) != 0; }

  void encode(std::span<uint8_t> out) const;
  static Result<PortInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const PortInfo&) const = default;
};

constexpr uint32_t port_info_attr_mod(PortNum port) { return port.value(); }

// An active link's rate as operators write it: "4xHDR", "1xSDR"; "?" for an encoding that
// names no width or speed (a port that is down). The extended speed, when set, decides.
std::string link_rate_name(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active);

}  // namespace mad
