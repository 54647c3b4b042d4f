#include "mad/pma.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"
#include "mad/sa_service_records.h"

namespace mad {

std::string_view pma_attr::name(uint16_t id) {
  switch (id) {
    case class_port_info: return "ClassPortInfo";
    case port_counters: return "PortCounters";
    case port_counters_ext: return "PortCountersExtended";
    default: return "Unknown";
  }
}

// --- the MAD: bytes 24-63 are reserved in class 0x04 (no RMPP, no class header).
MadBytes encode_pma(const PmaMad& m) {
  MadBytes out{};
  MadHeader h;
  h.mgmt_class = mgmt_class::perf;
  h.class_version = m.class_version;
  h.method = m.method;
  h.status = m.status;
  h.tid = m.tid;
  h.attr_id = m.attr_id;
  h.attr_mod = m.attr_mod;
  encode_mad_header(h, out);
  ByteWriter w(out);
  w.write_bytes(kPmaDataOffset, m.data);
  return out;
}

Result<PmaMad> decode_pma(std::span<const uint8_t> mad) {
  if (mad.size() < kMadSize)
    return fail(Errc::truncated, fmt::format("PMA MAD needs {} bytes, got {}", kMadSize, mad.size()));
  auto h = decode_mad_header(mad);
  if (!h) return std::unexpected(h.error());
  if (h->base_version != 1)
    return fail(Errc::invalid, fmt::format("MAD base version {} is not 1", h->base_version));
  if (h->mgmt_class != mgmt_class::perf)
    return fail(Errc::invalid, fmt::format("class 0x{:02x} is not PerfMgt (0x04)", h->mgmt_class));
  PmaMad m;
  m.method = h->method;
  m.class_version = h->class_version;
  m.status = h->status;
  m.tid = h->tid;
  m.attr_id = h->attr_id;
  m.attr_mod = h->attr_mod;
  ByteReader r(mad);
  r.read_bytes(kPmaDataOffset, m.data);
  if (!r.ok()) return fail(Errc::truncated, "PMA MAD truncated");
  return m;
}

PmaMad make_pma(uint8_t method, uint16_t attr, uint32_t attr_mod) {
  PmaMad m;
  m.method = method;
  m.attr_id = attr;
  m.attr_mod = attr_mod;
  return m;
}

std::string print(const PmaMad& m) {
  return fmt::format("PerfMgt method 0x{:02x} {} (0x{:04x}) mod 0x{:08x} status {} tid 0x{:016x}", m.method,
                     pma_attr::name(m.attr_id), m.attr_id, m.attr_mod, status::describe(m.status), m.tid);
}

// --- ClassPortInfo: the layout is the common one, so the SA's codec does the bytes.
namespace {
ClassPortInfo to_common(const PmaClassPortInfo& p) {
  ClassPortInfo c;
  c.base_version = p.base_version;
  c.class_version = p.class_version;
  c.capability_mask = p.cap_mask;
  c.capability_mask2 = p.cap_mask2;
  c.resp_time = p.resp_time_value;
  c.redirect_gid = p.redirect_gid;
  c.redirect_tc = p.redirect_tc;
  c.redirect_sl = p.redirect_sl;
  c.redirect_fl = p.redirect_fl;
  c.redirect_lid = p.redirect_lid;
  c.redirect_pkey = p.redirect_pkey;
  c.redirect_qp = p.redirect_qp;
  c.redirect_qkey = p.redirect_qkey;
  c.trap_gid = p.trap_gid;
  c.trap_tc = p.trap_tc;
  c.trap_sl = p.trap_sl;
  c.trap_fl = p.trap_fl;
  c.trap_lid = p.trap_lid;
  c.trap_pkey = p.trap_pkey;
  c.trap_hop_limit = p.trap_hop_limit;
  c.trap_qp = p.trap_qp;
  c.trap_qkey = p.trap_qkey;
  return c;
}
}  // namespace

void PmaClassPortInfo::encode(std::span<uint8_t> out) const { to_common(*this).encode(out); }

Result<PmaClassPortInfo> PmaClassPortInfo::decode(std::span<const uint8_t> in) {
  auto c = ClassPortInfo::decode(in);
  if (!c) return std::unexpected(c.error());
  PmaClassPortInfo p;
  p.base_version = c->base_version;
  p.class_version = c->class_version;
  p.cap_mask = c->capability_mask;
  p.cap_mask2 = c->capability_mask2;
  p.resp_time_value = c->resp_time;
  p.redirect_gid = c->redirect_gid;
  p.redirect_tc = c->redirect_tc;
  p.redirect_sl = c->redirect_sl;
  p.redirect_fl = c->redirect_fl;
  p.redirect_lid = c->redirect_lid;
  p.redirect_pkey = c->redirect_pkey;
  p.redirect_qp = c->redirect_qp;
  p.redirect_qkey = c->redirect_qkey;
  p.trap_gid = c->trap_gid;
  p.trap_tc = c->trap_tc;
  p.trap_sl = c->trap_sl;
  p.trap_fl = c->trap_fl;
  p.trap_lid = c->trap_lid;
  p.trap_pkey = c->trap_pkey;
  p.trap_hop_limit = c->trap_hop_limit;
  p.trap_qp = c->trap_qp;
  p.trap_qkey = c->trap_qkey;
  return p;
}

// --- PortCounters. Byte 0 reserved, byte 18 CounterSelect2, byte 19 LocalLinkIntegrityErrors
// (7-4) and ExcessiveBufferOverrunErrors (3-0), bytes 20-21 reserved.
void PortCounters::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_u8(0, 0);
  w.write_u8(1, port_select);
  w.write_be16(2, counter_select);
  w.write_be16(4, symbol_errors);
  w.write_u8(6, link_error_recovery);
  w.write_u8(7, link_downed);
  w.write_be16(8, rcv_errors);
  w.write_be16(10, rcv_remote_phys_errors);
  w.write_be16(12, rcv_switch_relay_errors);
  w.write_be16(14, xmit_discards);
  w.write_u8(16, xmit_constraint_errors);
  w.write_u8(17, rcv_constraint_errors);
  w.write_u8(18, counter_select2);
  // A counter too big for its field reads as the field's all-ones, as a counter stops there.
  const unsigned lli = std::min<unsigned>(local_link_integrity_errors, 0xF);
  const unsigned ebo = std::min<unsigned>(excessive_buffer_overrun_errors, 0xF);
  w.write_u8(19, set_bits(set_bits(0, 4, 4, lli), 0, 4, ebo));
  w.write_be16(20, 0);
  w.write_be16(22, vl15_dropped);
  w.write_be32(24, xmit_data);
  w.write_be32(28, rcv_data);
  w.write_be32(32, xmit_pkts);
  w.write_be32(36, rcv_pkts);
  w.write_be32(40, xmit_wait);
}

Result<PortCounters> PortCounters::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("PortCounters needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  PortCounters c;
  c.port_select = r.read_u8(1);
  c.counter_select = r.read_be16(2);
  c.symbol_errors = r.read_be16(4);
  c.link_error_recovery = r.read_u8(6);
  c.link_downed = r.read_u8(7);
  c.rcv_errors = r.read_be16(8);
  c.rcv_remote_phys_errors = r.read_be16(10);
  c.rcv_switch_relay_errors = r.read_be16(12);
  c.xmit_discards = r.read_be16(14);
  c.xmit_constraint_errors = r.read_u8(16);
  c.rcv_constraint_errors = r.read_u8(17);
  c.counter_select2 = r.read_u8(18);
  const uint8_t b19 = r.read_u8(19);
  c.local_link_integrity_errors = get_bits(b19, 4, 4);
  c.excessive_buffer_overrun_errors = get_bits(b19, 0, 4);
  c.vl15_dropped = r.read_be16(22);
  c.xmit_data = r.read_be32(24);
  c.rcv_data = r.read_be32(28);
  c.xmit_pkts = r.read_be32(32);
  c.rcv_pkts = r.read_be32(36);
  c.xmit_wait = r.read_be32(40);
  if (!r.ok()) return fail(Errc::truncated, "PortCounters truncated");
  return c;
}

// --- PortCountersExtended. Byte 0 and bytes 4-7 reserved; eight 64-bit counters from byte 8.
void PortCountersExtended::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_u8(0, 0);
  w.write_u8(1, port_select);
  w.write_be16(2, counter_select);
  w.write_be32(4, 0);
  w.write_be64(8, xmit_data);
  w.write_be64(16, rcv_data);
  w.write_be64(24, xmit_pkts);
  w.write_be64(32, rcv_pkts);
  w.write_be64(40, unicast_xmit_pkts);
  w.write_be64(48, unicast_rcv_pkts);
  w.write_be64(56, multicast_xmit_pkts);
  w.write_be64(64, multicast_rcv_pkts);
}

Result<PortCountersExtended> PortCountersExtended::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("PortCountersExtended needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  PortCountersExtended c;
  c.port_select = r.read_u8(1);
  c.counter_select = r.read_be16(2);
  c.xmit_data = r.read_be64(8);
  c.rcv_data = r.read_be64(16);
  c.xmit_pkts = r.read_be64(24);
  c.rcv_pkts = r.read_be64(32);
  c.unicast_xmit_pkts = r.read_be64(40);
  c.unicast_rcv_pkts = r.read_be64(48);
  c.multicast_xmit_pkts = r.read_be64(56);
  c.multicast_rcv_pkts = r.read_be64(64);
  if (!r.ok()) return fail(Errc::truncated, "PortCountersExtended truncated");
  return c;
}

// --- printers: perfquery's field names, one per line.
std::string print(const PmaClassPortInfo& c) {
  return fmt::format(
      "BaseVersion: {}\nClassVersion: {}\nCapMask: 0x{:04x}\nCapMask2: 0x{:07x}\nRespTimeVal: {}\n"
      "RedirectLID: {}\nRedirectQP: 0x{:06x}\nRedirectQKey: 0x{:08x}\nTrapLID: {}\nTrapQP: 0x{:06x}\n"
      "TrapQKey: 0x{:08x}",
      c.base_version, c.class_version, c.cap_mask, c.cap_mask2, c.resp_time_value, c.redirect_lid.value(),
      c.redirect_qp, c.redirect_qkey, c.trap_lid.value(), c.trap_qp, c.trap_qkey);
}

std::string print(const PortCounters& c) {
  std::string s;
  append_format(s, "PortSelect: {}\n", c.port_select);
  append_format(s, "CounterSelect: 0x{:04x}\n", c.counter_select);
  append_format(s, "SymbolErrorCounter: {}\n", c.symbol_errors);
  append_format(s, "LinkErrorRecoveryCounter: {}\n", c.link_error_recovery);
  append_format(s, "LinkDownedCounter: {}\n", c.link_downed);
  append_format(s, "PortRcvErrors: {}\n", c.rcv_errors);
  append_format(s, "PortRcvRemotePhysicalErrors: {}\n", c.rcv_remote_phys_errors);
  append_format(s, "PortRcvSwitchRelayErrors: {}\n", c.rcv_switch_relay_errors);
  append_format(s, "PortXmitDiscards: {}\n", c.xmit_discards);
  append_format(s, "PortXmitConstraintErrors: {}\n", c.xmit_constraint_errors);
  append_format(s, "PortRcvConstraintErrors: {}\n", c.rcv_constraint_errors);
  append_format(s, "CounterSelect2: 0x{:02x}\n", c.counter_select2);
  append_format(s, "LocalLinkIntegrityErrors: {}\n", c.local_link_integrity_errors);
  append_format(s, "ExcessiveBufferOverrunErrors: {}\n", c.excessive_buffer_overrun_errors);
  append_format(s, "VL15Dropped: {}\n", c.vl15_dropped);
  append_format(s, "PortXmitData: {}\n", c.xmit_data);
  append_format(s, "PortRcvData: {}\n", c.rcv_data);
  append_format(s, "PortXmitPkts: {}\n", c.xmit_pkts);
  append_format(s, "PortRcvPkts: {}\n", c.rcv_pkts);
  append_format(s, "PortXmitWait: {}", c.xmit_wait);
  return s;
}

std::string print(const PortCountersExtended& c) {
  return fmt::format(
      "PortSelect: {}\nCounterSelect: 0x{:04x}\nPortXmitData: {}\nPortRcvData: {}\nPortXmitPkts: {}\n"
      "PortRcvPkts: {}\nPortUnicastXmitPkts: {}\nPortUnicastRcvPkts: {}\nPortMulticastXmitPkts: {}\n"
      "PortMulticastRcvPkts: {}",
      c.port_select, c.counter_select, c.xmit_data, c.rcv_data, c.xmit_pkts, c.rcv_pkts, c.unicast_xmit_pkts,
      c.unicast_rcv_pkts, c.multicast_xmit_pkts, c.multicast_rcv_pkts);
}

// --- requests
PmaMad make_get_counters(uint8_t port) {
  PortCounters pc;
  pc.port_select = port;
  PmaMad m = make_pma(method::get, pma_attr::port_counters);
  m.data = encode_pma_attr(pc);
  return m;
}

PmaMad make_get_counters_ext(uint8_t port) {
  PortCountersExtended pc;
  pc.port_select = port;
  PmaMad m = make_pma(method::get, pma_attr::port_counters_ext);
  m.data = encode_pma_attr(pc);
  return m;
}

PmaMad make_clear_counters(uint8_t port, uint16_t select, uint8_t select2) {
  PortCounters pc;
  pc.port_select = port;
  pc.counter_select = select;
  pc.counter_select2 = select2;
  PmaMad m = make_pma(method::set, pma_attr::port_counters);
  m.data = encode_pma_attr(pc);
  return m;
}

PmaMad make_clear_counters_ext(uint8_t port, uint16_t select) {
  PortCountersExtended pc;
  pc.port_select = port;
  pc.counter_select = select;
  PmaMad m = make_pma(method::set, pma_attr::port_counters_ext);
  m.data = encode_pma_attr(pc);
  return m;
}

}  // namespace mad
