#include "mad/sa_service_records.h"

#include <vector>

#include <fmt/format.h>

#include "mad/byte_io.h"

namespace mad {

namespace {

const std::vector<FieldSpec>& service_fields() {
  static const std::vector<FieldSpec> t = [] {
    std::vector<FieldSpec> v = {{"ServiceID", 0, 64},      {"ServiceGID", 64, 128}, {"ServiceP_Key", 192, 16},
                                {"Reserved", 208, 16},     {"ServiceLease", 224, 32}, {"ServiceKey", 256, 128},
                                {"ServiceName", 384, 512}};
    for (uint16_t i = 0; i < 16; ++i) v.push_back({"ServiceData8", static_cast<uint16_t>(896 + 8 * i), 8});
    for (uint16_t i = 0; i < 8; ++i) v.push_back({"ServiceData16", static_cast<uint16_t>(1024 + 16 * i), 16});
    for (uint16_t i = 0; i < 4; ++i) v.push_back({"ServiceData32", static_cast<uint16_t>(1152 + 32 * i), 32});
    for (uint16_t i = 0; i < 2; ++i) v.push_back({"ServiceData64", static_cast<uint16_t>(1280 + 64 * i), 64});
    return v;
  }();
  return t;
}

constexpr FieldSpec kInformInfo[] = {
    {"GID", 0, 128},          {"LIDRangeBegin", 128, 16}, {"LIDRangeEnd", 144, 16}, {"Reserved", 160, 16},
    {"IsGeneric", 176, 8},    {"Subscribe", 184, 8},      {"Type", 192, 16},        {"TrapNumber/DeviceID", 208, 16},
    {"QPN", 224, 24},         {"Reserved", 248, 3},       {"RespTimeValue", 251, 5}, {"Reserved", 256, 8},
    {"ProducerType/VendorID", 264, 24},
};
enum II : size_t { ii_gid, ii_lb, ii_le, ii_r1, ii_gen, ii_sub, ii_type, ii_trap, ii_qpn, ii_r2, ii_rt, ii_r3, ii_prod };

constexpr FieldSpec kInformInfoRecord[] = {
    {"SubscriberGID", 0, 128}, {"Enum", 128, 16}, {"Reserved", 144, 48}, {"InformInfo", 192, 288},
};

std::string hex(std::span<const uint8_t> b) {
  std::string s;
  for (uint8_t x : b) s += fmt::format("{:02x}", x);
  return s;
}

}  // namespace

std::span<const FieldSpec> ServiceRecord::components() { return service_fields(); }
std::span<const FieldSpec> InformInfo::components() { return kInformInfo; }
std::span<const FieldSpec> InformInfoRecord::components() { return kInformInfoRecord; }

// --- ServiceRecord: ID 0, GID 8, P_Key 24, reserved 26, Lease 28, Key 32, Name 48 (64 bytes),
// Data8 112, Data16 128, Data32 144, Data64 160.
void ServiceRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be64(0, id);
  if (out.size() >= kSize) gid.encode(out.subspan(8, 16));
  w.write_be16(24, pkey);
  w.write_be16(26, 0);
  w.write_be32(28, lease);
  w.write_bytes(32, key);
  w.zero(48, 64);
  w.write_bytes(48, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(name.data()),
                                             std::min<size_t>(name.size(), 64)));
  w.write_bytes(112, data8);
  for (size_t i = 0; i < 8; ++i) w.write_be16(128 + 2 * i, data16[i]);
  for (size_t i = 0; i < 4; ++i) w.write_be32(144 + 4 * i, data32[i]);
  for (size_t i = 0; i < 2; ++i) w.write_be64(160 + 8 * i, data64[i]);
}

Result<ServiceRecord> ServiceRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("ServiceRecord needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  ServiceRecord s;
  s.id = r.read_be64(0);
  s.gid = Gid::decode(in.subspan(8, 16));
  s.pkey = r.read_be16(24);
  s.lease = r.read_be32(28);
  r.read_bytes(32, s.key);
  size_t n = 0;
  while (n < 64 && in[48 + n] != 0) ++n;
  s.name.assign(reinterpret_cast<const char*>(in.data() + 48), n);
  r.read_bytes(112, s.data8);
  for (size_t i = 0; i < 8; ++i) s.data16[i] = r.read_be16(128 + 2 * i);
  for (size_t i = 0; i < 4; ++i) s.data32[i] = r.read_be32(144 + 4 * i);
  for (size_t i = 0; i < 2; ++i) s.data64[i] = r.read_be64(160 + 8 * i);
  return s;
}

std::string ServiceRecord::to_string() const {
  std::string printable;
  for (char c : name) printable += (c >= 0x20 && c < 0x7F) ? c : '.';
  return fmt::format("ServiceRecord id 0x{:016x} gid {} pkey 0x{:04x} lease {} key {} name \"{}\"", id, gid.str(),
                     pkey, lease, hex(key), printable);
}

// --- InformInfo (36 bytes).
void InformInfo::encode(std::span<uint8_t> out) const {
  const auto& f = kInformInfo;
  for (size_t i = 0; i < kSize && i < out.size(); ++i) out[i] = 0;
  if (out.size() >= kSize) gid.encode(out.subspan(0, 16));
  put_field(out, f[ii_lb], lid_begin.value());
  put_field(out, f[ii_le], lid_end.value());
  put_field(out, f[ii_gen], is_generic ? 1 : 0);
  put_field(out, f[ii_sub], subscribe ? 1 : 0);
  put_field(out, f[ii_type], type);
  put_field(out, f[ii_trap], trap_or_device);
  put_field(out, f[ii_qpn], qpn);
  put_field(out, f[ii_rt], resp_time);
  put_field(out, f[ii_prod], producer_or_vendor);
}

Result<InformInfo> InformInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("InformInfo needs {} bytes, got {}", kSize, in.size()));
  const auto& f = kInformInfo;
  InformInfo i;
  i.gid = Gid::decode(in.subspan(0, 16));
  i.lid_begin = Lid(static_cast<uint16_t>(get_field(in, f[ii_lb])));
  i.lid_end = Lid(static_cast<uint16_t>(get_field(in, f[ii_le])));
  i.is_generic = get_field(in, f[ii_gen]) != 0;
  i.subscribe = get_field(in, f[ii_sub]) != 0;
  i.type = static_cast<uint16_t>(get_field(in, f[ii_type]));
  i.trap_or_device = static_cast<uint16_t>(get_field(in, f[ii_trap]));
  i.qpn = static_cast<uint32_t>(get_field(in, f[ii_qpn]));
  i.resp_time = static_cast<uint8_t>(get_field(in, f[ii_rt]));
  i.producer_or_vendor = static_cast<uint32_t>(get_field(in, f[ii_prod]));
  return i;
}

std::string InformInfo::to_string() const {
  return fmt::format("InformInfo gid {} lids {}..{} generic {} subscribe {} type 0x{:04x} trap 0x{:04x} qpn 0x{:06x} "
                     "resp_time {} producer 0x{:06x}",
                     gid.str(), lid_begin.value(), lid_end.value(), is_generic ? 1 : 0, subscribe ? 1 : 0, type,
                     trap_or_device, qpn, resp_time, producer_or_vendor);
}

// --- InformInfoRecord: SubscriberGID 0, Enum 16, reserved 18-23, InformInfo 24 (36 bytes).
void InformInfoRecord::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  if (out.size() >= 16) subscriber_gid.encode(out.subspan(0, 16));
  w.write_be16(16, enumeration);
  w.zero(18, 6);
  if (out.size() >= kSize) info.encode(out.subspan(24, InformInfo::kSize));
}

Result<InformInfoRecord> InformInfoRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("InformInfoRecord needs {} bytes, got {}", kSize, in.size()));
  InformInfoRecord r;
  r.subscriber_gid = Gid::decode(in.subspan(0, 16));
  r.enumeration = ByteReader(in).read_be16(16);
  auto ii = InformInfo::decode(in.subspan(24, InformInfo::kSize));
  if (!ii) return std::unexpected(ii.error());
  r.info = *ii;
  return r;
}

std::string InformInfoRecord::to_string() const {
  return fmt::format("InformInfoRecord subscriber {} enum {} {}", subscriber_gid.str(), enumeration,
                     info.to_string());
}

// --- ClassPortInfo: IBA 1.3 Table 103. Byte 4: CapabilityMask2 (27 bits) + RespTimeValue (5).
void ClassPortInfo::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_u8(0, base_version);
  w.write_u8(1, class_version);
  w.write_be16(2, capability_mask);
  w.write_be32(4, (capability_mask2 & 0x7FFFFFF) << 5 | (resp_time & 0x1F));
  if (out.size() >= kSize) redirect_gid.encode(out.subspan(8, 16));
  w.write_be32(24, static_cast<uint32_t>(redirect_tc) << 24 | static_cast<uint32_t>(redirect_sl & 0xF) << 20 |
                       (redirect_fl & 0xFFFFF));
  w.write_be16(28, redirect_lid.value());
  w.write_be16(30, redirect_pkey);
  w.write_be32(32, redirect_qp & 0xFFFFFF);
  w.write_be32(36, redirect_qkey);
  if (out.size() >= kSize) trap_gid.encode(out.subspan(40, 16));
  w.write_be32(56, static_cast<uint32_t>(trap_tc) << 24 | static_cast<uint32_t>(trap_sl & 0xF) << 20 |
                       (trap_fl & 0xFFFFF));
  w.write_be16(60, trap_lid.value());
  w.write_be16(62, trap_pkey);
  w.write_be32(64, static_cast<uint32_t>(trap_hop_limit) << 24 | (trap_qp & 0xFFFFFF));
  w.write_be32(68, trap_qkey);
}

Result<ClassPortInfo> ClassPortInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("ClassPortInfo needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  ClassPortInfo c;
  c.base_version = r.read_u8(0);
  c.class_version = r.read_u8(1);
  c.capability_mask = r.read_be16(2);
  const uint32_t w4 = r.read_be32(4);
  c.capability_mask2 = w4 >> 5;
  c.resp_time = static_cast<uint8_t>(w4 & 0x1F);
  c.redirect_gid = Gid::decode(in.subspan(8, 16));
  const uint32_t w24 = r.read_be32(24);
  c.redirect_tc = static_cast<uint8_t>(w24 >> 24);
  c.redirect_sl = static_cast<uint8_t>((w24 >> 20) & 0xF);
  c.redirect_fl = w24 & 0xFFFFF;
  c.redirect_lid = Lid(r.read_be16(28));
  c.redirect_pkey = r.read_be16(30);
  c.redirect_qp = r.read_be32(32) & 0xFFFFFF;
  c.redirect_qkey = r.read_be32(36);
  c.trap_gid = Gid::decode(in.subspan(40, 16));
  const uint32_t w56 = r.read_be32(56);
  c.trap_tc = static_cast<uint8_t>(w56 >> 24);
  c.trap_sl = static_cast<uint8_t>((w56 >> 20) & 0xF);
  c.trap_fl = w56 & 0xFFFFF;
  c.trap_lid = Lid(r.read_be16(60));
  c.trap_pkey = r.read_be16(62);
  const uint32_t w64 = r.read_be32(64);
  c.trap_hop_limit = static_cast<uint8_t>(w64 >> 24);
  c.trap_qp = w64 & 0xFFFFFF;
  c.trap_qkey = r.read_be32(68);
  return c;
}

std::string ClassPortInfo::to_string() const {
  return fmt::format("ClassPortInfo base_version {} class_version {} cap 0x{:04x} cap2 0x{:07x} resp_time {} "
                     "redirect lid {} qp 0x{:06x} trap lid {} qp 0x{:06x}",
                     base_version, class_version, capability_mask, capability_mask2, resp_time, redirect_lid.value(),
                     redirect_qp, trap_lid.value(), trap_qp);
}

}  // namespace mad
