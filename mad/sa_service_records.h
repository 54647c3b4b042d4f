// The SA records clients create or read for subscriptions and services (IBA 1.3 vol 1):
// ServiceRecord (15.2.5.14), InformInfo (13.4.8.3) and InformInfoRecord (15.2.5.12), and the
// SA's ClassPortInfo (13.4.8.1). Typed fields, encoders, lenient decoders (query templates are
// mostly zeros), printers, and field tables in ComponentMask order.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/gid.h"
#include "mad/sa_fields.h"
#include "mad/sa_mad.h"

namespace mad {

struct ServiceRecord {
  static constexpr uint16_t kAttrId = sa_attr::service_record;
  static constexpr size_t kSize = 176;
  static std::span<const FieldSpec> components();
  enum Component : uint64_t {
    c_id = 1ull << 0, c_gid = 1ull << 1, c_pkey = 1ull << 2, c_lease = 1ull << 4, c_key = 1ull << 5,
    c_name = 1ull << 6,
  };
  static constexpr uint32_t kInfiniteLease = 0xFFFFFFFF;

  uint64_t id = 0;
  Gid gid;
  uint16_t pkey = 0;
  uint32_t lease = 0;  // seconds; kInfiniteLease: never expires
  std::array<uint8_t, 16> key{};
  std::string name;    // up to 64 bytes, NUL-padded on the wire
  std::array<uint8_t, 16> data8{};
  std::array<uint16_t, 8> data16{};
  std::array<uint32_t, 4> data32{};
  std::array<uint64_t, 2> data64{};

  void encode(std::span<uint8_t> out) const;
  static Result<ServiceRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const ServiceRecord&) const = default;
};

struct InformInfo {
  static constexpr uint16_t kAttrId = sa_attr::inform_info;
  static constexpr size_t kSize = 36;
  static std::span<const FieldSpec> components();
  static constexpr uint16_t kAllTraps = 0xFFFF;  // TrapNumber / Type wildcard

  Gid gid;                      // zero: use the LID range
  Lid lid_begin, lid_end;       // 0xFFFF begin: all LIDs
  bool is_generic = true;
  bool subscribe = true;        // false: unsubscribe
  uint16_t type = 0xFFFF;       // notice type, 0xFFFF: all
  uint16_t trap_or_device = kAllTraps;
  uint32_t qpn = 0;             // 24 bits: where Reports go
  uint8_t resp_time = 0;        // 5 bits
  uint32_t producer_or_vendor = 0xFFFFFF;  // 24 bits, 0xFFFFFF: all

  void encode(std::span<uint8_t> out) const;
  static Result<InformInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const InformInfo&) const = default;
};

struct InformInfoRecord {
  static constexpr uint16_t kAttrId = sa_attr::inform_info_record;
  static constexpr size_t kSize = 60;
  static std::span<const FieldSpec> components();

  Gid subscriber_gid;
  uint16_t enumeration = 0;
  InformInfo info;

  void encode(std::span<uint8_t> out) const;
  static Result<InformInfoRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const InformInfoRecord&) const = default;
};

// ClassPortInfo CapabilityMask bits of the SA (IBA 1.3 Table 205 and 15.2.1.1).
namespace sa_cap {
inline constexpr uint16_t is_trap_supported = 1u << 0;  // GMP common: IsTrapSupported
inline constexpr uint16_t is_notice_supported = 1u << 1;
inline constexpr uint16_t is_multicast_supported = 1u << 9;  // OptionalRecordsSupported..
inline constexpr uint16_t is_multipath_supported = 1u << 10;
}  // namespace sa_cap

struct ClassPortInfo {
  static constexpr uint16_t kAttrId = sa_attr::class_port_info;
  static constexpr size_t kSize = 72;

  uint8_t base_version = 1;
  uint8_t class_version = kSaClassVersion;
  uint16_t capability_mask = 0;
  uint32_t capability_mask2 = 0;  // 27 bits
  uint8_t resp_time = 0;          // 5 bits
  Gid redirect_gid;
  uint8_t redirect_tc = 0, redirect_sl = 0;
  uint32_t redirect_fl = 0;
  Lid redirect_lid;
  uint16_t redirect_pkey = 0;
  uint32_t redirect_qp = 0;
  uint32_t redirect_qkey = 0;
  Gid trap_gid;
  uint8_t trap_tc = 0, trap_sl = 0;
  uint32_t trap_fl = 0;
  Lid trap_lid;
  uint16_t trap_pkey = 0;
  uint8_t trap_hop_limit = 0;
  uint32_t trap_qp = 0;
  uint32_t trap_qkey = 0;

  void encode(std::span<uint8_t> out) const;
  static Result<ClassPortInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const ClassPortInfo&) const = default;
};

}  // namespace mad
