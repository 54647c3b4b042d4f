#include "mad/sa_records.h"

#include <array>
#include <vector>

#include <fmt/format.h>

#include "mad/byte_io.h"

namespace mad {

namespace {

// PortInfo's fields in IBA Table 148 order (= PortInfoRecord ComponentMask bits 3..57),
// bit positions relative to the start of PortInfo.
constexpr FieldSpec kPortInfo[] = {
    {"M_Key", 0, 64}, {"GIDPrefix", 64, 64}, {"LID", 128, 16}, {"MasterSMLID", 144, 16},
    {"CapabilityMask", 160, 32, true}, {"DiagCode", 192, 16}, {"M_KeyLeasePeriod", 208, 16},
    {"LocalPortNum", 224, 8}, {"LinkWidthEnabled", 232, 8}, {"LinkWidthSupported", 240, 8},
    {"LinkWidthActive", 248, 8}, {"LinkSpeedSupported", 256, 4}, {"PortState", 260, 4},
    {"PortPhysicalState", 264, 4}, {"LinkDownDefaultState", 268, 4}, {"M_KeyProtectBits", 272, 2},
    {"Reserved", 274, 3}, {"LMC", 277, 3}, {"LinkSpeedActive", 280, 4}, {"LinkSpeedEnabled", 284, 4},
    {"NeighborMTU", 288, 4}, {"MasterSMSL", 292, 4}, {"VLCap", 296, 4}, {"InitType", 300, 4},
    {"VLHighLimit", 304, 8}, {"VLArbitrationHighCap", 312, 8}, {"VLArbitrationLowCap", 320, 8},
    {"InitTypeReply", 328, 4}, {"MTUCap", 332, 4}, {"VLStallCount", 336, 3}, {"HOQLife", 339, 5},
    {"OperationalVLs", 344, 4}, {"PartitionEnforcementInbound", 348, 1},
    {"PartitionEnforcementOutbound", 349, 1}, {"FilterRawInbound", 350, 1}, {"FilterRawOutbound", 351, 1},
    {"M_KeyViolations", 352, 16}, {"P_KeyViolations", 368, 16}, {"Q_KeyViolations", 384, 16},
    {"GUIDCap", 400, 8}, {"ClientReregister", 408, 1}, {"MulticastPKeyTrapSuppressionEnabled", 409, 2},
    {"SubnetTimeOut", 411, 5}, {"Reserved", 416, 3}, {"RespTimeValue", 419, 5}, {"LocalPhyErrors", 424, 4},
    {"OverrunErrors", 428, 4}, {"MaxCreditHint", 432, 16}, {"Reserved", 448, 8},
    {"LinkRoundTripLatency", 456, 24}, {"CapabilityMask2", 480, 16, true}, {"LinkSpeedExtActive", 496, 4},
    {"LinkSpeedExtSupported", 500, 4}, {"Reserved", 504, 3}, {"LinkSpeedExtEnabled", 507, 5},
};

constexpr FieldSpec kNodeRecord[] = {
    {"LID", 0, 16}, {"Reserved", 16, 16}, {"BaseVersion", 32, 8}, {"ClassVersion", 40, 8},
    {"NodeType", 48, 8}, {"NumPorts", 56, 8}, {"SystemImageGUID", 64, 64}, {"NodeGUID", 128, 64},
    {"PortGUID", 192, 64}, {"PartitionCap", 256, 16}, {"DeviceID", 272, 16}, {"Revision", 288, 32},
    {"LocalPortNum", 320, 8}, {"VendorID", 328, 24}, {"NodeDescription", 352, 512},
};

constexpr FieldSpec kSmInfoRecord[] = {
    {"LID", 0, 16}, {"Reserved", 16, 16}, {"GUID", 32, 64}, {"SM_Key", 96, 64},
    {"ActCount", 160, 32}, {"Priority", 192, 4}, {"SMState", 196, 4},
};

constexpr FieldSpec kSwitchInfoRecord[] = {
    {"LID", 0, 16}, {"Reserved", 16, 16}, {"LinearFDBCap", 32, 16}, {"RandomFDBCap", 48, 16},
    {"MulticastFDBCap", 64, 16}, {"LinearFDBTop", 80, 16}, {"DefaultPort", 96, 8},
    {"DefaultMulticastPrimaryPort", 104, 8}, {"DefaultMulticastNotPrimaryPort", 112, 8},
    {"LifeTimeValue", 120, 5}, {"PortStateChange", 125, 1}, {"OptimizedSLtoVLMappingProgramming", 126, 2},
    {"LIDsPerPort", 128, 16}, {"PartitionEnforcementCap", 144, 16}, {"InboundEnforcementCap", 160, 1},
    {"OutboundEnforcementCap", 161, 1}, {"FilterRawInboundCap", 162, 1}, {"FilterRawOutboundCap", 163, 1},
    {"EnhancedPort0", 164, 1}, {"Reserved", 165, 11}, {"MulticastFDBTop", 176, 16},
};

constexpr FieldSpec kLinkRecord[] = {
    {"FromLID", 0, 16}, {"FromPort", 16, 8}, {"ToPort", 24, 8}, {"ToLID", 32, 16},
};

constexpr FieldSpec kLftRecord[] = {
    {"LID", 0, 16}, {"BlockNum", 16, 16}, {"Reserved", 32, 32}, {"LinearForwardingTable", 64, 512},
};

constexpr FieldSpec kMftRecord[] = {
    {"LID", 0, 16}, {"Position", 16, 4}, {"Reserved", 20, 3}, {"BlockNum", 23, 9},
    {"Reserved", 32, 32}, {"MulticastForwardingTable", 64, 512},
};

constexpr FieldSpec kGuidInfoRecord[] = {
    {"LID", 0, 16}, {"BlockNum", 16, 8}, {"Reserved", 24, 8}, {"Reserved", 32, 32}, {"GUIDInfo", 64, 512},
};

constexpr FieldSpec kPKeyTableRecord[] = {
    {"LID", 0, 16}, {"BlockNum", 16, 16}, {"PortNum", 32, 8}, {"Reserved", 40, 24}, {"P_KeyTable", 64, 512},
};

const std::vector<FieldSpec>& port_info_record_fields() {
  static const std::vector<FieldSpec> t = [] {
    std::vector<FieldSpec> v = {{"EndportLID", 0, 16}, {"PortNum", 16, 8}, {"Options", 24, 8}};
    for (FieldSpec f : kPortInfo) v.push_back(FieldSpec{f.name, static_cast<uint16_t>(f.bit + 32), f.width, f.subset});
    return v;
  }();
  return t;
}

Error short_input(std::string_view what, size_t need, size_t got) {
  return Error{Errc::truncated, fmt::format("{} needs {} bytes, got {}", what, need, got)};
}

}  // namespace

std::span<const FieldSpec> sa_layout::port_info_fields() { return kPortInfo; }
std::span<const FieldSpec> NodeRecord::components() { return kNodeRecord; }
std::span<const FieldSpec> PortInfoRecord::components() { return port_info_record_fields(); }
std::span<const FieldSpec> SmInfoRecord::components() { return kSmInfoRecord; }
std::span<const FieldSpec> SwitchInfoRecord::components() { return kSwitchInfoRecord; }
std::span<const FieldSpec> LinkRecord::components() { return kLinkRecord; }
std::span<const FieldSpec> LftRecord::components() { return kLftRecord; }
std::span<const FieldSpec> MftRecord::components() { return kMftRecord; }
std::span<const FieldSpec> GuidInfoRecord::components() { return kGuidInfoRecord; }
std::span<const FieldSpec> PKeyTableRecord::components() { return kPKeyTableRecord; }

// --- NodeRecord: LID 0, reserved 2, NodeInfo 4 (40 bytes), NodeDescription 44 (64 bytes).
void NodeRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_be16(2, 0);
  if (out.size() >= 44) info.encode(out.subspan(4, 40));
  if (out.size() >= kSize) description.encode(out.subspan(44, 64));
}

Result<NodeRecord> NodeRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("NodeRecord", kSize, in.size()));
  NodeRecord r;
  r.lid = Lid(ByteReader(in).read_be16(0));
  auto ni = NodeInfo::decode(in.subspan(4, 40));
  if (!ni) return std::unexpected(ni.error());
  auto nd = NodeDescription::decode(in.subspan(44, 64));
  if (!nd) return std::unexpected(nd.error());
  r.info = *ni;
  r.description = *nd;
  return r;
}

std::string NodeRecord::to_string() const {
  return fmt::format("NodeRecord lid {} \"{}\"\n{}", lid.value(), description.to_string(), info.to_string());
}

// --- PortInfoRecord: EndportLID 0, PortNum 2, Options 3, PortInfo 4 (64 bytes).
void PortInfoRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, endport_lid.value());
  w.write_u8(2, port.value());
  w.write_u8(3, options);
  if (out.size() >= kSize) info.encode(out.subspan(4, 64));
}

Result<PortInfoRecord> PortInfoRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("PortInfoRecord", kSize, in.size()));
  ByteReader r(in);
  PortInfoRecord p;
  p.endport_lid = Lid(r.read_be16(0));
  p.port = PortNum(r.read_u8(2));
  p.options = r.read_u8(3);
  auto pi = PortInfo::decode(in.subspan(4, 64));
  if (!pi) return std::unexpected(pi.error());
  p.info = *pi;
  return p;
}

std::string PortInfoRecord::to_string() const {
  return fmt::format("PortInfoRecord lid {} port {} options 0x{:02x}\n{}", endport_lid.value(), port.value(),
                     options, info.to_string());
}

// --- SMInfoRecord: LID 0, reserved 2, SMInfo 4 (21 bytes).
void SmInfoRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_be16(2, 0);
  if (out.size() >= kSize) info.encode(out.subspan(4, 21));
}

Result<SmInfoRecord> SmInfoRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("SMInfoRecord", kSize, in.size()));
  SmInfoRecord r;
  r.lid = Lid(ByteReader(in).read_be16(0));
  auto si = SmInfo::decode(in.subspan(4, 21));
  if (!si) return std::unexpected(si.error());
  r.info = *si;
  return r;
}

std::string SmInfoRecord::to_string() const {
  return fmt::format("SMInfoRecord lid {}\n{}", lid.value(), info.to_string());
}

// --- SwitchInfoRecord: LID 0, reserved 2, SwitchInfo 4 (20 bytes).
void SwitchInfoRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_be16(2, 0);
  if (out.size() >= kSize) info.encode(out.subspan(4, 20));
}

Result<SwitchInfoRecord> SwitchInfoRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("SwitchInfoRecord", kSize, in.size()));
  SwitchInfoRecord r;
  r.lid = Lid(ByteReader(in).read_be16(0));
  auto si = SwitchInfo::decode(in.subspan(4, 20));
  if (!si) return std::unexpected(si.error());
  r.info = *si;
  return r;
}

std::string SwitchInfoRecord::to_string() const {
  return fmt::format("SwitchInfoRecord lid {}\n{}", lid.value(), info.to_string());
}

// --- LinkRecord: FromLID 0, FromPort 2, ToPort 3, ToLID 4, reserved 6.
void LinkRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, from_lid.value());
  w.write_u8(2, from_port.value());
  w.write_u8(3, to_port.value());
  w.write_be16(4, to_lid.value());
  w.write_be16(6, 0);
}

Result<LinkRecord> LinkRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("LinkRecord", kSize, in.size()));
  ByteReader r(in);
  LinkRecord l;
  l.from_lid = Lid(r.read_be16(0));
  l.from_port = PortNum(r.read_u8(2));
  l.to_port = PortNum(r.read_u8(3));
  l.to_lid = Lid(r.read_be16(4));
  return l;
}

std::string LinkRecord::to_string() const {
  return fmt::format("LinkRecord {}[{}] -> {}[{}]", from_lid.value(), from_port.value(), to_lid.value(),
                     to_port.value());
}

// --- LinearForwardingTableRecord: LID 0, BlockNum 2, reserved 4, LFT 8 (64 bytes).
void LftRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_be16(2, block);
  w.write_be32(4, 0);
  if (out.size() >= kSize) table.encode(out.subspan(8, 64));
}

Result<LftRecord> LftRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("LFTRecord", kSize, in.size()));
  ByteReader r(in);
  LftRecord l;
  l.lid = Lid(r.read_be16(0));
  l.block = r.read_be16(2);
  auto t = LinearForwardingTable::decode(in.subspan(8, 64));
  if (!t) return std::unexpected(t.error());
  l.table = *t;
  return l;
}

std::string LftRecord::to_string() const {
  return fmt::format("LFTRecord lid {} block {}\n{}", lid.value(), block, table.to_string());
}

// --- MulticastForwardingTableRecord: LID 0, Position (4 bits) + reserved (3) + BlockNum (9) 2,
// reserved 4, MFT 8 (64 bytes).
void MftRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_be16(2, static_cast<uint16_t>((position & 0xF) << 12 | (block & 0x1FF)));
  w.write_be32(4, 0);
  if (out.size() >= kSize) table.encode(out.subspan(8, 64));
}

Result<MftRecord> MftRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("MFTRecord", kSize, in.size()));
  ByteReader r(in);
  MftRecord m;
  m.lid = Lid(r.read_be16(0));
  const uint16_t pb = r.read_be16(2);
  m.position = static_cast<uint8_t>(pb >> 12);
  m.block = pb & 0x1FF;
  auto t = MulticastForwardingTable::decode(in.subspan(8, 64));
  if (!t) return std::unexpected(t.error());
  m.table = *t;
  return m;
}

std::string MftRecord::to_string() const {
  return fmt::format("MFTRecord lid {} position {} block {}\n{}", lid.value(), position, block, table.to_string());
}

// --- GuidInfoRecord: LID 0, BlockNum 2, reserved 3-7, GUIDInfo 8 (64 bytes).
void GuidInfoRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_u8(2, block);
  w.write_u8(3, 0);
  w.write_be32(4, 0);
  if (out.size() >= kSize) info.encode(out.subspan(8, 64));
}

Result<GuidInfoRecord> GuidInfoRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("GuidInfoRecord", kSize, in.size()));
  ByteReader r(in);
  GuidInfoRecord g;
  g.lid = Lid(r.read_be16(0));
  g.block = r.read_u8(2);
  auto t = GuidInfo::decode(in.subspan(8, 64));
  if (!t) return std::unexpected(t.error());
  g.info = *t;
  return g;
}

std::string GuidInfoRecord::to_string() const {
  return fmt::format("GuidInfoRecord lid {} block {}\n{}", lid.value(), block, info.to_string());
}

// --- P_KeyTableRecord: LID 0, BlockNum 2, PortNum 4, reserved 5-7, P_KeyTable 8 (64 bytes).
void PKeyTableRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, lid.value());
  w.write_be16(2, block);
  w.write_u8(4, port.value());
  w.write_u8(5, 0);
  w.write_be16(6, 0);
  if (out.size() >= kSize) table.encode(out.subspan(8, 64));
}

Result<PKeyTableRecord> PKeyTableRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize) return std::unexpected(short_input("P_KeyTableRecord", kSize, in.size()));
  ByteReader r(in);
  PKeyTableRecord p;
  p.lid = Lid(r.read_be16(0));
  p.block = r.read_be16(2);
  p.port = PortNum(r.read_u8(4));
  auto t = PKeyTable::decode(in.subspan(8, 64));
  if (!t) return std::unexpected(t.error());
  p.table = *t;
  return p;
}

std::string PKeyTableRecord::to_string() const {
  return fmt::format("P_KeyTableRecord lid {} port {} block {}\n{}", lid.value(), port.value(), block,
                     table.to_string());
}

}  // namespace mad
