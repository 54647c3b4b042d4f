#include "mad/smp.h"

#include <fmt/format.h>

#include "mad/byte_io.h"

namespace mad {

std::string_view attr::name(uint16_t id) {
  switch (id) {
    case class_port_info: return "ClassPortInfo";
    case notice: return "Notice";
    case inform_info: return "InformInfo";
    case node_description: return "NodeDescription";
    case node_info: return "NodeInfo";
    case switch_info: return "SwitchInfo";
    case guid_info: return "GUIDInfo";
    case port_info: return "PortInfo";
    case pkey_table: return "P_KeyTable";
    case sl2vl_table: return "SLtoVLMappingTable";
    case vl_arb_table: return "VLArbitrationTable";
    case linear_fwd_table: return "LinearForwardingTable";
    case random_fwd_table: return "RandomForwardingTable";
    case multicast_fwd_table: return "MulticastForwardingTable";
    case sm_info: return "SMInfo";
    default: return "Unknown";
  }
}

std::string status::describe(uint16_t s) {
  s &= 0x7FFF;
  if (s == ok) return "ok";
  std::string out;
  if (s & busy) out += "busy ";
  if (s & redirect) out += "redirect ";
  switch ((s >> 2) & 7) {
    case 0: break;
    case 1: out += "bad base/class version "; break;
    case 2: out += "method not supported "; break;
    case 3: out += "method/attribute combination not supported "; break;
    case 7: out += "invalid attribute or modifier value "; break;
    default: out += fmt::format("code {} ", (s >> 2) & 7); break;
  }
  if (s >> 8) out += fmt::format("class-specific 0x{:02x} ", s >> 8);
  if (!out.empty()) out.pop_back();
  return fmt::format("0x{:04x} ({})", s, out);
}

Result<MadHeader> decode_mad_header(std::span<const uint8_t> mad) {
  ByteReader r(mad);
  MadHeader h;
  h.base_version = r.read_u8(0);
  h.mgmt_class = r.read_u8(1);
  h.class_version = r.read_u8(2);
  h.method = r.read_u8(3);
  h.status = r.read_be16(4);
  h.class_specific = r.read_be16(6);
  h.tid = r.read_be64(8);
  h.attr_id = r.read_be16(16);
  h.attr_mod = r.read_be32(20);
  if (!r.ok())
    return fail(Errc::truncated, fmt::format("MAD header needs {} bytes, got {}", kMadHeaderSize,
                                             mad.size()));
  return h;
}

void encode_mad_header(const MadHeader& h, std::span<uint8_t> mad) {
  ByteWriter w(mad);
  w.write_u8(0, h.base_version);
  w.write_u8(1, h.mgmt_class);
  w.write_u8(2, h.class_version);
  w.write_u8(3, h.method);
  w.write_be16(4, h.status);
  w.write_be16(6, h.class_specific);
  w.write_be64(8, h.tid);
  w.write_be16(16, h.attr_id);
  w.write_be16(18, 0);
  w.write_be32(20, h.attr_mod);
}

Result<Smp> decode_smp(std::span<const uint8_t> mad) {
  if (mad.size() < kMadSize)
    return fail(Errc::truncated, fmt::format("SMP needs {} bytes, got {}", kMadSize, mad.size()));
  auto h = decode_mad_header(mad);
  if (!h) return std::unexpected(h.error());
  if (h->mgmt_class != mgmt_class::subn_lid_routed &&
      h->mgmt_class != mgmt_class::subn_directed_route)
    return fail(Errc::invalid, fmt::format("class 0x{:02x} is not an SMP class", h->mgmt_class));
  if (h->base_version != 1)
    return fail(Errc::invalid, fmt::format("base version {} (expected 1)", h->base_version));
  ByteReader r(mad);
  Smp s;
  s.mgmt_class = h->mgmt_class;
  s.method = h->method;
  s.tid = h->tid;
  s.attr_id = h->attr_id;
  s.attr_mod = h->attr_mod;
  s.mkey = r.read_be64(24);
  if (s.is_directed()) {
    s.direction = (h->status & 0x8000) != 0;
    s.status = h->status & 0x7FFF;
    s.hop_ptr = static_cast<uint8_t>(h->class_specific >> 8);
    s.hop_cnt = static_cast<uint8_t>(h->class_specific & 0xFF);
    if (s.hop_cnt > DrPath::kMaxHops)
      return fail(Errc::invalid, fmt::format("hop count {} exceeds 63", s.hop_cnt));
    s.dr_slid = Lid(r.read_be16(32));
    s.dr_dlid = Lid(r.read_be16(34));
    r.read_bytes(128, s.initial_path);
    r.read_bytes(192, s.return_path);
  } else {
    s.status = h->status;
  }
  r.read_bytes(kSmpDataOffset, s.data);
  if (!r.ok()) return fail(Errc::truncated, "SMP truncated");
  return s;
}

MadBytes encode_smp(const Smp& s) {
  MadBytes out{};
  MadHeader h;
  h.mgmt_class = s.mgmt_class;
  h.method = s.method;
  h.tid = s.tid;
  h.attr_id = s.attr_id;
  h.attr_mod = s.attr_mod;
  if (s.is_directed()) {
    h.status = static_cast<uint16_t>((s.status & 0x7FFF) | (s.direction ? 0x8000 : 0));
    h.class_specific = static_cast<uint16_t>((s.hop_ptr << 8) | s.hop_cnt);
  } else {
    h.status = s.status;
  }
  encode_mad_header(h, out);
  ByteWriter w(out);
  w.write_be64(24, s.mkey);
  if (s.is_directed()) {
    w.write_be16(32, s.dr_slid.value());
    w.write_be16(34, s.dr_dlid.value());
    w.write_bytes(128, s.initial_path);
    w.write_bytes(192, s.return_path);
  }
  w.write_bytes(kSmpDataOffset, s.data);
  return out;
}

Smp make_dr_smp(uint8_t m, uint16_t attr_id, uint32_t attr_mod, const DrPath& path) {
  Smp s;
  s.mgmt_class = mgmt_class::subn_directed_route;
  s.method = m;
  s.attr_id = attr_id;
  s.attr_mod = attr_mod;
  s.hop_cnt = static_cast<uint8_t>(path.hops());
  for (int i = 1; i <= path.hops(); ++i) s.initial_path[static_cast<size_t>(i)] = path.at(i).value();
  return s;
}

Smp make_lid_smp(uint8_t m, uint16_t attr_id, uint32_t attr_mod) {
  Smp s;
  s.mgmt_class = mgmt_class::subn_lid_routed;
  s.method = m;
  s.attr_id = attr_id;
  s.attr_mod = attr_mod;
  return s;
}

DrPath initial_path_of(const Smp& s) {
  DrPath p;
  for (int i = 1; i <= s.hop_cnt; ++i) p.push(PortNum(s.initial_path[static_cast<size_t>(i)]));
  return p;
}

std::string print(const Smp& s) {
  std::string out = fmt::format(
      "SMP class 0x{:02x} method 0x{:02x} status {} tid 0x{:016x} attr {} (0x{:04x}) mod 0x{:08x}",
      s.mgmt_class, s.method, status::describe(s.status), s.tid, attr::name(s.attr_id), s.attr_id,
      s.attr_mod);
  if (s.is_directed()) {
    out += fmt::format(" DR {} hop {}/{} dir {} path {} slid {} dlid {}",
                       s.direction ? "in" : "out", s.hop_ptr, s.hop_cnt, s.direction ? 1 : 0,
                       initial_path_of(s).str(), s.dr_slid.value(), s.dr_dlid.value());
  }
  return out;
}

}  // namespace mad
