// SA records that wrap one SMP attribute (IBA 1.3 vol 1 15.2.5): NodeRecord, PortInfoRecord,
// SMInfoRecord, SwitchInfoRecord, LinkRecord, LinearForwardingTableRecord,
// MulticastForwardingTableRecord, GuidInfoRecord, P_KeyTableRecord. Each has a field table
// (sa_fields.h) whose order is the record's ComponentMask bit order, an encoder, a bounds-
// checked decoder and a printer. kSize is the record as the IBA lays it out; the stride in an
// SA MAD is kSize rounded up to 8 bytes (attr_offset_for).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "mad/attributes.h"
#include "mad/sa_fields.h"
#include "mad/sa_mad.h"

namespace mad {

struct NodeRecord {
  static constexpr uint16_t kAttrId = sa_attr::node_record;
  static constexpr size_t kSize = 108;
  static std::span<const FieldSpec> components();
  Lid lid;
  NodeInfo info;
  NodeDescription description;

  void encode(std::span<uint8_t> out) const;
  static Result<NodeRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const NodeRecord&) const = default;
};

struct PortInfoRecord {
  static constexpr uint16_t kAttrId = sa_attr::port_info_record;
  static constexpr size_t kSize = 68;
  static std::span<const FieldSpec> components();
  Lid endport_lid;
  PortNum port;
  uint8_t options = 0;
  PortInfo info;

  void encode(std::span<uint8_t> out) const;
  static Result<PortInfoRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const PortInfoRecord&) const = default;
};

struct SmInfoRecord {
  static constexpr uint16_t kAttrId = sa_attr::sm_info_record;
  static constexpr size_t kSize = 25;
  static std::span<const FieldSpec> components();
  Lid lid;
  SmInfo info;

  void encode(std::span<uint8_t> out) const;
  static Result<SmInfoRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const SmInfoRecord&) const = default;
};

struct SwitchInfoRecord {
  static constexpr uint16_t kAttrId = sa_attr::switch_info_record;
  static constexpr size_t kSize = 24;
  static std::span<const FieldSpec> components();
  Lid lid;
  SwitchInfo info;

  void encode(std::span<uint8_t> out) const;
  static Result<SwitchInfoRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const SwitchInfoRecord&) const = default;
};

struct LinkRecord {
  static constexpr uint16_t kAttrId = sa_attr::link_record;
  static constexpr size_t kSize = 8;
  static std::span<const FieldSpec> components();
  Lid from_lid;
  PortNum from_port;
  PortNum to_port;
  Lid to_lid;

  void encode(std::span<uint8_t> out) const;
  static Result<LinkRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const LinkRecord&) const = default;
};

struct LftRecord {
  static constexpr uint16_t kAttrId = sa_attr::lft_record;
  static constexpr size_t kSize = 72;
  static std::span<const FieldSpec> components();
  Lid lid;
  uint16_t block = 0;
  LinearForwardingTable table;

  void encode(std::span<uint8_t> out) const;
  static Result<LftRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const LftRecord&) const = default;
};

struct MftRecord {
  static constexpr uint16_t kAttrId = sa_attr::mft_record;
  static constexpr size_t kSize = 72;
  static std::span<const FieldSpec> components();
  Lid lid;
  uint8_t position = 0;  // 4 bits
  uint16_t block = 0;    // 9 bits
  MulticastForwardingTable table;

  void encode(std::span<uint8_t> out) const;
  static Result<MftRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const MftRecord&) const = default;
};

struct GuidInfoRecord {
  static constexpr uint16_t kAttrId = sa_attr::guid_info_record;
  static constexpr size_t kSize = 72;
  static std::span<const FieldSpec> components();
  Lid lid;
  uint8_t block = 0;
  GuidInfo info;

  void encode(std::span<uint8_t> out) const;
  static Result<GuidInfoRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const GuidInfoRecord&) const = default;
};

struct PKeyTableRecord {
  static constexpr uint16_t kAttrId = sa_attr::pkey_table_record;
  static constexpr size_t kSize = 72;
  static std::span<const FieldSpec> components();
  Lid lid;              // a CA port's LID, or a switch's (port 0)
  uint16_t block = 0;
  PortNum port;         // switches: the port; CAs: the port too (reserved in IBA 1.1)
  PKeyTable table;

  void encode(std::span<uint8_t> out) const;
  static Result<PKeyTableRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const PKeyTableRecord&) const = default;
};

// Field tables shared by the records that embed an SMP attribute at byte `base`.
namespace sa_layout {
std::span<const FieldSpec> port_info_fields();  // PortInfo at byte 0, IBA Table 148 order
}

}  // namespace mad
