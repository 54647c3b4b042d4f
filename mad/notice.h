// Notice (attribute 0x0002, IBA 1.3 vol 1 14.2.5.1 and 14.3.1): what a SubnTrap (method 0x05)
// carries to the SM, and what the SM echoes in a TrapRepress (0x07). 80 bytes as an attribute;
// an SMP has room for bytes 0-63 only, so IssuerGID travels in GS (SA) MADs alone.
// DataDetails stay raw bytes; typed views exist for the traps an SM acts on.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

using GidBytes = std::array<uint8_t, 16>;  // a GID in wire (network) order

namespace notice_type {
inline constexpr uint8_t fatal = 0;
inline constexpr uint8_t urgent = 1;
inline constexpr uint8_t security = 2;
inline constexpr uint8_t subnet_management = 3;
inline constexpr uint8_t info = 4;
inline constexpr uint8_t empty = 0x7F;
}  // namespace notice_type

// ProducerType of a generic notice (24 bits).
namespace producer_type {
inline constexpr uint32_t ca = 1;
inline constexpr uint32_t sw = 2;
inline constexpr uint32_t router = 3;
inline constexpr uint32_t class_manager = 4;
}  // namespace producer_type

// Generic trap numbers the SM/SA deals with (IBA 1.3 Table 150).
namespace trap {
inline constexpr uint16_t gid_in_service = 64;
inline constexpr uint16_t gid_out_of_service = 65;
inline constexpr uint16_t mgid_created = 66;
inline constexpr uint16_t mgid_deleted = 67;
inline constexpr uint16_t unpath = 68;
inline constexpr uint16_t repath = 69;
inline constexpr uint16_t link_state_change = 128;
inline constexpr uint16_t link_integrity_threshold = 129;
inline constexpr uint16_t buffer_overrun_threshold = 130;
inline constexpr uint16_t flow_control_watchdog = 131;
inline constexpr uint16_t local_changes = 144;
inline constexpr uint16_t system_image_guid_changed = 145;
inline constexpr uint16_t bad_m_key = 256;
inline constexpr uint16_t bad_p_key = 257;
inline constexpr uint16_t bad_q_key = 258;
inline constexpr uint16_t bad_p_key_switch_port = 259;
}  // namespace trap

// A human name for a generic trap number ("LinkStateChange"), "Unknown" otherwise.
std::string_view trap_name(uint16_t trap_number);

// Trap 144 change flags (DataDetails bytes 8-9) and the OtherLocalChanges bit (byte 3).
namespace trap144 {
inline constexpr uint16_t node_description_changed = 0x0001;
inline constexpr uint16_t link_width_enabled_changed = 0x0002;
inline constexpr uint16_t link_speed_enabled_changed = 0x0004;
inline constexpr uint16_t sm_priority_changed = 0x0008;
inline constexpr uint16_t hierarchy_info_changed = 0x0010;
inline constexpr uint16_t capability_mask2_changed = 0x0020;
}  // namespace trap144

// Trap 128: a switch saw a link state change on one of its ports.
struct Trap128 {
  Lid lid;  // LIDADDR: the reporting switch
  bool operator==(const Trap128&) const = default;
};
// Traps 129, 130, 131: an error threshold or watchdog on one port.
struct Trap129to131 {
  Lid lid;
  PortNum port;
  bool operator==(const Trap129to131&) const = default;
};
// Trap 144: a port's CapabilityMask (and other local state) changed.
struct Trap144 {
  Lid lid;                          // LIDADDR
  bool other_local_changes = false;
  uint32_t capability_mask = 0;     // the new PortInfo.CapabilityMask
  uint16_t change_flags = 0;        // trap144::*
  uint16_t capability_mask2 = 0;
  bool operator==(const Trap144&) const = default;
};
// Trap 256: an SMP failed the M_Key check (IBA 1.3 14.2.5.1, DataDetails of trap 256).
struct Trap256 {
  Lid lid;                 // LIDADDR: the requester (the offending SMP's SLID; permissive for DR)
  Lid dr_slid;             // a directed-route SMP's DrSLID
  uint8_t method = 0;      // of the offending SMP
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
  uint64_t m_key = 0;      // the M_Key it carried
  bool dr_notice = false;  // directed route: the DR fields are valid
  bool dr_path_truncated = false;
  uint8_t dr_hop_count = 0;  // 6 bits
  std::array<uint8_t, 30> dr_return_path{};
  bool operator==(const Trap256&) const = default;
};
// Traps 64-67: a GID (port or multicast group) came or went.
struct TrapGid {
  GidBytes gid{};
  bool operator==(const TrapGid&) const = default;
};

struct Notice {
  static constexpr uint16_t kAttrId = attr::notice;
  static constexpr size_t kSize = 80;
  static constexpr size_t kDataDetailsSize = 54;

  bool is_generic = true;
  uint8_t type = 0;                // 7 bits, notice_type::*
  uint32_t producer_or_vendor = 0; // 24 bits: ProducerType if generic, else VendorID
  uint16_t trap_or_device_id = 0;  // TrapNumber if generic, else DeviceID
  Lid issuer_lid;
  bool toggle = false;             // NoticeToggle
  uint16_t count = 0;              // NoticeCount, 15 bits
  std::array<uint8_t, kDataDetailsSize> data_details{};
  GidBytes issuer_gid{};

  bool is_trap(uint16_t number) const { return is_generic && trap_or_device_id == number; }

  // Typed views of DataDetails; empty when this notice is not that trap.
  std::optional<Trap128> trap128() const;
  std::optional<Trap129to131> trap129to131() const;
  std::optional<Trap144> trap144() const;
  std::optional<TrapGid> trap_gid() const;  // 64..67
  std::optional<Trap256> trap256() const;

  // Generic notices as the hardware sends them (type and producer per IBA and ibsim).
  static Notice make_trap128(Lid issuer, Lid switch_lid);
  static Notice make_trap144(Lid issuer, uint32_t producer, const Trap144& t);
  static Notice make_trap256(Lid issuer, uint32_t producer, const Trap256& t);  // type security

  void encode(std::span<uint8_t> out) const;
  static Result<Notice> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const Notice&) const = default;
};

}  // namespace mad
