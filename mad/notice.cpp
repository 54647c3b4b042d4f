#include "mad/notice.h"


#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

std::string_view trap_name(uint16_t n) {
  switch (n) {
    case trap::gid_in_service: return "GIDInService";
    case trap::gid_out_of_service: return "GIDOutOfService";
    case trap::mgid_created: return "MulticastGroupCreated";
    case trap::mgid_deleted: return "MulticastGroupDeleted";
    case trap::unpath: return "UnPath";
    case trap::repath: return "RePath";
    case trap::link_state_change: return "LinkStateChange";
    case trap::link_integrity_threshold: return "LinkIntegrityThreshold";
    case trap::buffer_overrun_threshold: return "BufferOverrunThreshold";
    case trap::flow_control_watchdog: return "FlowControlUpdateWatchdog";
    case trap::local_changes: return "LocalChanges";
    case trap::system_image_guid_changed: return "SystemImageGUIDChanged";
    case trap::bad_m_key: return "BadM_Key";
    case trap::bad_p_key: return "BadP_Key";
    case trap::bad_q_key: return "BadQ_Key";
    case trap::bad_p_key_switch_port: return "BadP_KeySwitchExternalPort";
    default: return "Unknown";
  }
}

// Notice layout (IBA 1.3 vol 1 Table 149): byte 0 IsGeneric (7) and Type (6-0), 1-3
// ProducerType/VendorID, 4-5 TrapNumber/DeviceID, 6-7 IssuerLID, 8-9 NoticeToggle (bit 15)
// and NoticeCount, 10-63 DataDetails, 64-79 IssuerGID.
namespace {
constexpr size_t kDataDetailsOffset = 10;
constexpr size_t kIssuerGidOffset = 64;
}  // namespace

void Notice::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_u8(0, set_bits(set_bits(0, 7, 1, is_generic ? 1u : 0u), 0, 7, type));
  w.write_be24(1, producer_or_vendor);
  w.write_be16(4, trap_or_device_id);
  w.write_be16(6, issuer_lid.value());
  w.write_be16(8, static_cast<uint16_t>((toggle ? 0x8000u : 0u) | (count & 0x7FFFu)));
  w.write_bytes(kDataDetailsOffset, data_details);
  w.write_bytes(kIssuerGidOffset, issuer_gid);
}

Result<Notice> Notice::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("Notice needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  Notice n;
  const uint8_t b0 = r.read_u8(0);
  n.is_generic = get_bits(b0, 7, 1) != 0;
  n.type = get_bits(b0, 0, 7);
  n.producer_or_vendor = r.read_be24(1);
  n.trap_or_device_id = r.read_be16(4);
  n.issuer_lid = Lid(r.read_be16(6));
  const uint16_t tc = r.read_be16(8);
  n.toggle = (tc & 0x8000u) != 0;
  n.count = static_cast<uint16_t>(tc & 0x7FFFu);
  r.read_bytes(kDataDetailsOffset, n.data_details);
  r.read_bytes(kIssuerGidOffset, n.issuer_gid);
  if (!r.ok()) return fail(Errc::truncated, "Notice truncated");
  return n;
}

// DataDetails layouts (offsets relative to DataDetails), IBA 1.3 vol 1 Table 150:
//   128:      LIDADDR at 0-1
//   129-131:  LIDADDR at 2-3, PortNumber at 4
//   144:      LIDADDR at 2-3, OtherLocalChanges bit 0 of byte 5, CapabilityMask at 6-9,
//             change flags at 10-11, CapabilityMask2 at 12-13
//   64-67:    GID at 6-21
//   256:      LIDADDR at 2-3, DrSLID at 4-5, Method at 6, AttributeID at 8-9,
//             AttributeModifier at 10-13, M_Key at 14-21, DRNotice bit 7 / DRPathTruncated
//             bit 6 / DRHopCount bits 5-0 of byte 23, DRNoticeReturnPath at 24-53
std::optional<Trap128> Notice::trap128() const {
  if (!is_trap(trap::link_state_change)) return std::nullopt;
  ByteReader r(data_details);
  return Trap128{Lid(r.read_be16(0))};
}

std::optional<Trap129to131> Notice::trap129to131() const {
  if (!is_trap(trap::link_integrity_threshold) && !is_trap(trap::buffer_overrun_threshold) &&
      !is_trap(trap::flow_control_watchdog))
    return std::nullopt;
  ByteReader r(data_details);
  return Trap129to131{Lid(r.read_be16(2)), PortNum(r.read_u8(4))};
}

std::optional<Trap144> Notice::trap144() const {
  if (!is_trap(trap::local_changes)) return std::nullopt;
  ByteReader r(data_details);
  Trap144 t;
  t.lid = Lid(r.read_be16(2));
  t.other_local_changes = get_bits(r.read_u8(5), 0, 1) != 0;
  t.capability_mask = r.read_be32(6);
  t.change_flags = r.read_be16(10);
  t.capability_mask2 = r.read_be16(12);
  return t;
}

std::optional<TrapGid> Notice::trap_gid() const {
  if (!is_generic || trap_or_device_id < trap::gid_in_service ||
      trap_or_device_id > trap::mgid_deleted)
    return std::nullopt;
  TrapGid t;
  ByteReader r(data_details);
  r.read_bytes(6, t.gid);
  return t;
}

std::optional<Trap256> Notice::trap256() const {
  if (!is_trap(trap::bad_m_key)) return std::nullopt;
  ByteReader r(data_details);
  Trap256 t;
  t.lid = Lid(r.read_be16(2));
  t.dr_slid = Lid(r.read_be16(4));
  t.method = r.read_u8(6);
  t.attr_id = r.read_be16(8);
  t.attr_mod = r.read_be32(10);
  t.m_key = r.read_be64(14);
  const uint8_t b23 = r.read_u8(23);
  t.dr_notice = get_bits(b23, 7, 1) != 0;
  t.dr_path_truncated = get_bits(b23, 6, 1) != 0;
  t.dr_hop_count = get_bits(b23, 0, 6);
  r.read_bytes(24, t.dr_return_path);
  return t;
}

namespace {
// The header every generic notice shares.
Notice generic_notice(uint8_t type, uint32_t producer, uint16_t number, Lid issuer) {
  Notice n;
  n.is_generic = true;
  n.type = type;
  n.producer_or_vendor = producer;
  n.trap_or_device_id = number;
  n.issuer_lid = issuer;
  return n;
}
}  // namespace

Notice Notice::make_trap128(Lid issuer, Lid switch_lid) {
  Notice n = generic_notice(notice_type::urgent, producer_type::sw, trap::link_state_change, issuer);
  ByteWriter w(n.data_details);
  w.write_be16(0, switch_lid.value());
  return n;
}

Notice Notice::make_trap144(Lid issuer, uint32_t producer, const Trap144& t) {
  Notice n = generic_notice(notice_type::info, producer, trap::local_changes, issuer);
  ByteWriter w(n.data_details);
  w.write_be16(2, t.lid.value());
  w.write_u8(5, t.other_local_changes ? 1 : 0);
  w.write_be32(6, t.capability_mask);
  w.write_be16(10, t.change_flags);
  w.write_be16(12, t.capability_mask2);
  return n;
}

Notice Notice::make_trap256(Lid issuer, uint32_t producer, const Trap256& t) {
  Notice n = generic_notice(notice_type::security, producer, trap::bad_m_key, issuer);
  ByteWriter w(n.data_details);
  w.write_be16(2, t.lid.value());
  w.write_be16(4, t.dr_slid.value());
  w.write_u8(6, t.method);
  w.write_be16(8, t.attr_id);
  w.write_be32(10, t.attr_mod);
  w.write_be64(14, t.m_key);
  uint8_t b23 = set_bits(0, 7, 1, t.dr_notice ? 1u : 0u);
  b23 = set_bits(b23, 6, 1, t.dr_path_truncated ? 1u : 0u);
  w.write_u8(23, set_bits(b23, 0, 6, t.dr_hop_count));
  w.write_bytes(24, t.dr_return_path);
  return n;
}

std::string Notice::to_string() const {
  std::string s;
  append_format(s, "IsGeneric: {}\n", is_generic ? 1 : 0);
  append_format(s, "Type: {}\n", type);
  if (is_generic) {
    append_format(s, "ProducerType: {}\n", producer_or_vendor);
    append_format(s, "TrapNumber: {} ({})\n", trap_or_device_id, trap_name(trap_or_device_id));
  } else {
    append_format(s, "VendorID: 0x{:06x}\n", producer_or_vendor);
    append_format(s, "DeviceID: 0x{:04x}\n", trap_or_device_id);
  }
  append_format(s, "IssuerLID: {}\n", issuer_lid);
  append_format(s, "NoticeToggle: {}\n", toggle ? 1 : 0);
  append_format(s, "NoticeCount: {}\n", count);
  if (auto t = trap128()) {
    append_format(s, "LIDADDR: {}\n", t->lid);
  } else if (auto t2 = trap129to131()) {
    append_format(s, "LIDADDR: {}\nPortNumber: {}\n", t2->lid, t2->port);
  } else if (auto t3 = trap144()) {
    append_format(s, "LIDADDR: {}\n", t3->lid);
    append_format(s, "OtherLocalChanges: {}\n", t3->other_local_changes ? 1 : 0);
    append_format(s, "CapabilityMask: 0x{:08x}\n", t3->capability_mask);
    append_format(s, "ChangeFlags: 0x{:04x}\n", t3->change_flags);
    append_format(s, "CapabilityMask2: 0x{:04x}\n", t3->capability_mask2);
  } else if (auto t4 = trap256()) {
    append_format(s, "LIDADDR: {}\nDrSLID: {}\n", t4->lid, t4->dr_slid);
    append_format(s, "Method: 0x{:02x}\nAttributeID: 0x{:04x}\nAttributeModifier: 0x{:08x}\n",
                  t4->method, t4->attr_id, t4->attr_mod);
    append_format(s, "M_Key: 0x{:016x}\n", t4->m_key);
    append_format(s, "DRNotice: {}\nDRPathTruncated: {}\nDRHopCount: {}\n", t4->dr_notice ? 1 : 0,
                  t4->dr_path_truncated ? 1 : 0, t4->dr_hop_count);
    append_format(s, "DRNoticeReturnPath: {:02x}\n", fmt::join(t4->dr_return_path, ""));
  } else {
    append_format(s, "DataDetails: {:02x}\n", fmt::join(data_details, ""));
  }
  append_format(s, "IssuerGID: {:02x}", fmt::join(issuer_gid, ""));
  return s;
}

}  // namespace mad
