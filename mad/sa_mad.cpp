#include "mad/sa_mad.h"

#include <fmt/format.h>

#include "mad/byte_io.h"

namespace mad {

std::string_view sa_method::name(uint8_t m) {
  switch (m) {
    case get: return "SubnAdmGet";
    case set: return "SubnAdmSet";
    case report: return "SubnAdmReport";
    case get_table: return "SubnAdmGetTable";
    case get_multi: return "SubnAdmGetMulti";
    case del: return "SubnAdmDelete";
    case get_resp: return "SubnAdmGetResp";
    case report_resp: return "SubnAdmReportResp";
    case get_table_resp: return "SubnAdmGetTableResp";
    case get_multi_resp: return "SubnAdmGetMultiResp";
    case del_resp: return "SubnAdmDeleteResp";
    default: return "Unknown";
  }
}

std::string_view sa_attr::name(uint16_t id) {
  switch (id) {
    case class_port_info: return "ClassPortInfo";
    case notice: return "Notice";
    case inform_info: return "InformInfo";
    case node_record: return "NodeRecord";
    case port_info_record: return "PortInfoRecord";
    case sl2vl_record: return "SLtoVLMappingTableRecord";
    case switch_info_record: return "SwitchInfoRecord";
    case lft_record: return "LinearForwardingTableRecord";
    case rft_record: return "RandomForwardingTableRecord";
    case mft_record: return "MulticastForwardingTableRecord";
    case sm_info_record: return "SMInfoRecord";
    case link_record: return "LinkRecord";
    case guid_info_record: return "GuidInfoRecord";
    case service_record: return "ServiceRecord";
    case pkey_table_record: return "P_KeyTableRecord";
    case path_record: return "PathRecord";
    case vl_arb_record: return "VLArbitrationTableRecord";
    case mcmember_record: return "MCMemberRecord";
    case trace_record: return "TraceRecord";
    case multipath_record: return "MultiPathRecord";
    case inform_info_record: return "InformInfoRecord";
    default: return "Unknown";
  }
}

std::string sa_status::describe(uint16_t s) {
  std::string base = status::describe(static_cast<uint16_t>(s & 0xFF));
  switch (s & 0xFF00) {
    case 0: return base;
    case no_resources: return fmt::format("0x{:04x} (ERR_NO_RESOURCES)", s);
    case req_invalid: return fmt::format("0x{:04x} (ERR_REQ_INVALID)", s);
    case no_records: return fmt::format("0x{:04x} (ERR_NO_RECORDS)", s);
    case too_many_records: return fmt::format("0x{:04x} (ERR_TOO_MANY_RECORDS)", s);
    case invalid_gid: return fmt::format("0x{:04x} (ERR_REQ_INVALID_GID)", s);
    case insufficient_components: return fmt::format("0x{:04x} (ERR_REQ_INSUFFICIENT_COMPONENTS)", s);
    case denied: return fmt::format("0x{:04x} (ERR_REQ_DENIED)", s);
    default: return status::describe(s);
  }
}

// Byte 26: RRespTime (bits 7-3), RMPPFlags (bits 2-0).
RmppHeader decode_rmpp_header(std::span<const uint8_t, kMadSize> mad) {
  ByteReader r(mad);
  RmppHeader h;
  h.version = r.read_u8(24);
  h.type = static_cast<rmpp::Type>(r.read_u8(25));
  const uint8_t b26 = r.read_u8(26);
  h.resp_time = get_bits(b26, 3, 5);
  h.flags = get_bits(b26, 0, 3);
  h.status = r.read_u8(27);
  h.segment = r.read_be32(28);
  h.payload_or_window = r.read_be32(32);
  return h;
}

void encode_rmpp_header(const RmppHeader& h, std::span<uint8_t, kMadSize> mad) {
  ByteWriter w(mad);
  w.write_u8(24, h.version);
  w.write_u8(25, static_cast<uint8_t>(h.type));
  w.write_u8(26, set_bits(set_bits(0, 3, 5, h.resp_time), 0, 3, h.flags));
  w.write_u8(27, h.status);
  w.write_be32(28, h.segment);
  w.write_be32(32, h.payload_or_window);
}

Result<SaMad> decode_sa_mad(std::span<const uint8_t> mad) {
  if (mad.size() < kMadSize)
    return fail(Errc::truncated, fmt::format("SA MAD needs {} bytes, got {}", kMadSize, mad.size()));
  auto h = decode_mad_header(mad);
  if (!h) return std::unexpected(h.error());
  if (h->mgmt_class != mgmt_class::subn_adm)
    return fail(Errc::invalid, fmt::format("class 0x{:02x} is not SA (0x03)", h->mgmt_class));
  SaMad m;
  m.header = *h;
  m.rmpp = decode_rmpp_header(mad.first<kMadSize>());
  ByteReader r(mad);
  m.sm_key = r.read_be64(36);
  m.attr_offset = r.read_be16(44);
  m.comp_mask = r.read_be64(48);
  r.read_bytes(kSaHeaderSize, m.data);
  if (!r.ok()) return fail(Errc::truncated, "SA MAD truncated");
  return m;
}

MadBytes encode_sa_mad(const SaMad& m) {
  MadBytes out{};
  encode_mad_header(m.header, out);
  encode_rmpp_header(m.rmpp, out);
  ByteWriter w(out);
  w.write_be64(36, m.sm_key);
  w.write_be16(44, m.attr_offset);
  w.write_be16(46, 0);
  w.write_be64(48, m.comp_mask);
  w.write_bytes(kSaHeaderSize, m.data);
  return out;
}

std::string print(const SaMad& m) {
  std::string s = fmt::format("SA {} (0x{:02x}) {} (0x{:04x}) mod 0x{:08x} status {} tid 0x{:016x} "
                              "comp_mask 0x{:016x} attr_offset {}",
                              sa_method::name(m.header.method), m.header.method, sa_attr::name(m.header.attr_id),
                              m.header.attr_id, m.header.attr_mod, sa_status::describe(m.header.status),
                              m.header.tid, m.comp_mask, m.attr_offset);
  if (m.rmpp.version != 0 || m.rmpp.flags != 0)
    s += fmt::format(" RMPP v{} type {} flags 0x{:x} status {} seg {} len/win {}", m.rmpp.version,
                     static_cast<int>(m.rmpp.type), m.rmpp.flags, m.rmpp.status, m.rmpp.segment,
                     m.rmpp.payload_or_window);
  return s;
}

}  // namespace mad
