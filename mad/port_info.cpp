#include "mad/port_info.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

// Offsets and bit positions: IBA 1.3 vol 1 Table 148 (bit 7 = most significant bit of a byte).
//  32: LinkSpeedSupported 7-4, PortState 3-0        33: PortPhysicalState 7-4, LinkDownDefault 3-0
//  34: M_KeyProtectBits 7-6, LMC 2-0                35: LinkSpeedActive 7-4, LinkSpeedEnabled 3-0
//  36: NeighborMTU 7-4, MasterSMSL 3-0              37: VLCap 7-4, InitType 3-0
//  41: InitTypeReply 7-4, MTUCap 3-0                42: VLStallCount 7-5, HOQLife 4-0
//  43: OperationalVLs 7-4, PartEnfIn 3, PartEnfOut 2, FilterRawIn 1, FilterRawOut 0
//  51: ClientReregister 7, MulticastPKeyTrapSuppressionEnabled 6-5, SubnetTimeOut 4-0
//  52: RespTimeValue 4-0                            53: LocalPhyErrors 7-4, OverrunErrors 3-0
//  56: LinkRoundTripLatency in the low 24 bits of a 32-bit word
//  62: LinkSpeedExtActive 7-4, LinkSpeedExtSupported 3-0   63: LinkSpeedExtEnabled 4-0
namespace {
uint8_t nibbles(unsigned hi, unsigned lo) { return set_bits(set_bits(0, 4, 4, hi), 0, 4, lo); }
unsigned bit(bool b) { return b ? 1u : 0u; }
}  // namespace

void PortInfo::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be64(0, m_key);
  w.write_be64(8, gid_prefix);
  w.write_be16(16, lid.value());
  w.write_be16(18, master_sm_lid.value());
  w.write_be32(20, capability_mask);
  w.write_be16(24, diag_code);
  w.write_be16(26, m_key_lease_period);
  w.write_u8(28, local_port_num.value());
  w.write_u8(29, link_width_enabled);
  w.write_u8(30, link_width_supported);
  w.write_u8(31, link_width_active);
  w.write_u8(32, nibbles(link_speed_supported, static_cast<uint8_t>(port_state)));
  w.write_u8(33, nibbles(static_cast<uint8_t>(phys_state), link_down_default_state));
  w.write_u8(34, set_bits(set_bits(0, 6, 2, m_key_protect_bits), 0, 3, lmc));
  w.write_u8(35, nibbles(link_speed_active, link_speed_enabled));
  w.write_u8(36, nibbles(neighbor_mtu, master_sm_sl));
  w.write_u8(37, nibbles(vl_cap, init_type));
  w.write_u8(38, vl_high_limit);
  w.write_u8(39, vl_arb_high_cap);
  w.write_u8(40, vl_arb_low_cap);
  w.write_u8(41, nibbles(init_type_reply, mtu_cap));
  w.write_u8(42, set_bits(set_bits(0, 5, 3, vl_stall_count), 0, 5, hoq_life));
  uint8_t b43 = set_bits(0, 4, 4, operational_vls);
  b43 = set_bits(b43, 3, 1, bit(partition_enforcement_inbound));
  b43 = set_bits(b43, 2, 1, bit(partition_enforcement_outbound));
  b43 = set_bits(b43, 1, 1, bit(filter_raw_inbound));
  b43 = set_bits(b43, 0, 1, bit(filter_raw_outbound));
  w.write_u8(43, b43);
  w.write_be16(44, m_key_violations);
  w.write_be16(46, p_key_violations);
  w.write_be16(48, q_key_violations);
  w.write_u8(50, guid_cap);
  uint8_t b51 = set_bits(0, 7, 1, bit(client_reregister));
  b51 = set_bits(b51, 5, 2, mcast_pkey_trap_suppression_enabled);
  b51 = set_bits(b51, 0, 5, subnet_timeout);
  w.write_u8(51, b51);
  w.write_u8(52, set_bits(0, 0, 5, resp_time_value));
  w.write_u8(53, nibbles(local_phy_errors, overrun_errors));
  w.write_be16(54, max_credit_hint);
  w.write_be32(56, link_round_trip_latency & 0xFFFFFFu);
  w.write_be16(60, capability_mask2);
  w.write_u8(62, nibbles(link_speed_ext_active, link_speed_ext_supported));
  w.write_u8(63, set_bits(0, 0, 5, link_speed_ext_enabled));
}

Result<PortInfo> PortInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("PortInfo needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  PortInfo p;
  p.m_key = r.read_be64(0);
  p.gid_prefix = r.read_be64(8);
  p.lid = Lid(r.read_be16(16));
  p.master_sm_lid = Lid(r.read_be16(18));
  p.capability_mask = r.read_be32(20);
  p.diag_code = r.read_be16(24);
  p.m_key_lease_period = r.read_be16(26);
  p.local_port_num = PortNum(r.read_u8(28));
  p.link_width_enabled = r.read_u8(29);
  p.link_width_supported = r.read_u8(30);
  p.link_width_active = r.read_u8(31);
  const uint8_t b32 = r.read_u8(32);
  p.link_speed_supported = get_bits(b32, 4, 4);
  const uint8_t state = get_bits(b32, 0, 4);
  if (state > static_cast<uint8_t>(PortState::active))
    return fail(Errc::invalid, fmt::format("PortInfo: PortState {}", state));
  p.port_state = static_cast<PortState>(state);
  const uint8_t b33 = r.read_u8(33);
  const uint8_t phys = get_bits(b33, 4, 4);
  if (phys > static_cast<uint8_t>(PhysState::phy_test))
    return fail(Errc::invalid, fmt::format("PortInfo: PortPhysicalState {}", phys));
  p.phys_state = static_cast<PhysState>(phys);
  p.link_down_default_state = get_bits(b33, 0, 4);
  const uint8_t b34 = r.read_u8(34);
  p.m_key_protect_bits = get_bits(b34, 6, 2);
  p.lmc = get_bits(b34, 0, 3);
  const uint8_t b35 = r.read_u8(35);
  p.link_speed_active = get_bits(b35, 4, 4);
  p.link_speed_enabled = get_bits(b35, 0, 4);
  const uint8_t b36 = r.read_u8(36);
  p.neighbor_mtu = get_bits(b36, 4, 4);
  p.master_sm_sl = get_bits(b36, 0, 4);
  const uint8_t b37 = r.read_u8(37);
  p.vl_cap = get_bits(b37, 4, 4);
  p.init_type = get_bits(b37, 0, 4);
  p.vl_high_limit = r.read_u8(38);
  p.vl_arb_high_cap = r.read_u8(39);
  p.vl_arb_low_cap = r.read_u8(40);
  const uint8_t b41 = r.read_u8(41);
  p.init_type_reply = get_bits(b41, 4, 4);
  p.mtu_cap = get_bits(b41, 0, 4);
  const uint8_t b42 = r.read_u8(42);
  p.vl_stall_count = get_bits(b42, 5, 3);
  p.hoq_life = get_bits(b42, 0, 5);
  const uint8_t b43 = r.read_u8(43);
  p.operational_vls = get_bits(b43, 4, 4);
  p.partition_enforcement_inbound = get_bits(b43, 3, 1) != 0;
  p.partition_enforcement_outbound = get_bits(b43, 2, 1) != 0;
  p.filter_raw_inbound = get_bits(b43, 1, 1) != 0;
  p.filter_raw_outbound = get_bits(b43, 0, 1) != 0;
  p.m_key_violations = r.read_be16(44);
  p.p_key_violations = r.read_be16(46);
  p.q_key_violations = r.read_be16(48);
  p.guid_cap = r.read_u8(50);
  const uint8_t b51 = r.read_u8(51);
  p.client_reregister = get_bits(b51, 7, 1) != 0;
  p.mcast_pkey_trap_suppression_enabled = get_bits(b51, 5, 2);
  p.subnet_timeout = get_bits(b51, 0, 5);
  p.resp_time_value = get_bits(r.read_u8(52), 0, 5);
  const uint8_t b53 = r.read_u8(53);
  p.local_phy_errors = get_bits(b53, 4, 4);
  p.overrun_errors = get_bits(b53, 0, 4);
  p.max_credit_hint = r.read_be16(54);
  p.link_round_trip_latency = r.read_be32(56) & 0xFFFFFFu;
  p.capability_mask2 = r.read_be16(60);
  const uint8_t b62 = r.read_u8(62);
  p.link_speed_ext_active = get_bits(b62, 4, 4);
  p.link_speed_ext_supported = get_bits(b62, 0, 4);
  p.link_speed_ext_enabled = get_bits(r.read_u8(63), 0, 5);
  if (!r.ok()) return fail(Errc::truncated, "PortInfo truncated");
  return p;
}

std::string PortInfo::to_string() const {
  // Names as smpquery prints them, so the two outputs can be compared side by side.
  std::string s;
  append_format(s, "Mkey: 0x{:016x}\n", m_key);
  append_format(s, "GidPrefix: 0x{:016x}\n", gid_prefix);
  append_format(s, "Lid: {}\n", lid);
  append_format(s, "SMLid: {}\n", master_sm_lid);
  append_format(s, "CapMask: 0x{:08x}\n", capability_mask);
  append_format(s, "DiagCode: 0x{:04x}\n", diag_code);
  append_format(s, "MkeyLeasePeriod: {}\n", m_key_lease_period);
  append_format(s, "LocalPort: {}\n", local_port_num);
  append_format(s, "LinkWidthEnabled: 0x{:02x}\n", link_width_enabled);
  append_format(s, "LinkWidthSupported: 0x{:02x}\n", link_width_supported);
  append_format(s, "LinkWidthActive: 0x{:02x}\n", link_width_active);
  append_format(s, "LinkSpeedSupported: 0x{:x}\n", link_speed_supported);
  append_format(s, "LinkState: {}\n", port_state_name(port_state));
  append_format(s, "PhysLinkState: {}\n", phys_state_name(phys_state));
  append_format(s, "LinkDownDefState: {}\n", link_down_default_state);
  append_format(s, "ProtectBits: {}\n", m_key_protect_bits);
  append_format(s, "LMC: {}\n", lmc);
  append_format(s, "LinkSpeedActive: 0x{:x}\n", link_speed_active);
  append_format(s, "LinkSpeedEnabled: 0x{:x}\n", link_speed_enabled);
  append_format(s, "NeighborMTU: {}\n", mtu::bytes(neighbor_mtu));
  append_format(s, "SMSL: {}\n", master_sm_sl);
  append_format(s, "VLCap: {}\n", vl_cap);
  append_format(s, "InitType: 0x{:x}\n", init_type);
  append_format(s, "VLHighLimit: {}\n", vl_high_limit);
  append_format(s, "VLArbHighCap: {}\n", vl_arb_high_cap);
  append_format(s, "VLArbLowCap: {}\n", vl_arb_low_cap);
  append_format(s, "InitReply: 0x{:x}\n", init_type_reply);
  append_format(s, "MtuCap: {}\n", mtu::bytes(mtu_cap));
  append_format(s, "VLStallCount: {}\n", vl_stall_count);
  append_format(s, "HoqLife: {}\n", hoq_life);
  append_format(s, "OperVLs: {}\n", operational_vls);
  append_format(s, "PartEnforceInb: {}\n", bit(partition_enforcement_inbound));
  append_format(s, "PartEnforceOutb: {}\n", bit(partition_enforcement_outbound));
  append_format(s, "FilterRawInb: {}\n", bit(filter_raw_inbound));
  append_format(s, "FilterRawOutb: {}\n", bit(filter_raw_outbound));
  append_format(s, "MkeyViolations: {}\n", m_key_violations);
  append_format(s, "PkeyViolations: {}\n", p_key_violations);
  append_format(s, "QkeyViolations: {}\n", q_key_violations);
  append_format(s, "GuidCap: {}\n", guid_cap);
  append_format(s, "ClientReregister: {}\n", bit(client_reregister));
  append_format(s, "McastPkeyTrapSuppressionEnabled: {}\n",
                 mcast_pkey_trap_suppression_enabled);
  append_format(s, "SubnetTimeout: {}\n", subnet_timeout);
  append_format(s, "RespTimeVal: {}\n", resp_time_value);
  append_format(s, "LocalPhysErr: {}\n", local_phy_errors);
  append_format(s, "OverrunErr: {}\n", overrun_errors);
  append_format(s, "MaxCreditHint: {}\n", max_credit_hint);
  append_format(s, "RoundTrip: {}\n", link_round_trip_latency);
  append_format(s, "CapMask2: 0x{:04x}\n", capability_mask2);
  append_format(s, "LinkSpeedExtActive: 0x{:x}\n", link_speed_ext_active);
  append_format(s, "LinkSpeedExtSupported: 0x{:x}\n", link_speed_ext_supported);
  append_format(s, "LinkSpeedExtEnabled: 0x{:x}", link_speed_ext_enabled);
  return s;
}

std::string link_rate_name(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active) {
  const char* width = width_active == link_width::x1    ? "1x"
                      : width_active == link_width::x2  ? "2x"
                      : width_active == link_width::x4  ? "4x"
                      : width_active == link_width::x8  ? "8x"
                      : width_active == link_width::x12 ? "12x"
                                                        : nullptr;
  const char* speed = speed_ext_active == link_speed_ext::ndr   ? "NDR"
                      : speed_ext_active == link_speed_ext::hdr ? "HDR"
                      : speed_ext_active == link_speed_ext::edr ? "EDR"
                      : speed_ext_active == link_speed_ext::fdr ? "FDR"
                      : speed_ext_active != 0                   ? nullptr
                      : speed_active == link_speed::qdr         ? "QDR"
                      : speed_active == link_speed::ddr         ? "DDR"
                      : speed_active == link_speed::sdr         ? "SDR"
                                                                : nullptr;
  if (!width || !speed) return "?";
  return std::string(width) + speed;
}

}  // namespace mad
