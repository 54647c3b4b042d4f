#include "mad/switch_info.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

// Offsets: IBA 1.3 vol 1 Table 146. Byte 11: LifeTimeValue (7-3), PortStateChange (2),
// OptimizedSLtoVLMappingProgramming (1-0). Byte 16: the five capability flags, bits 7-3.
void SwitchInfo::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be16(0, linear_fdb_cap);
  w.write_be16(2, random_fdb_cap);
  w.write_be16(4, multicast_fdb_cap);
  w.write_be16(6, linear_fdb_top.value());
  w.write_u8(8, default_port.value());
  w.write_u8(9, default_mcast_primary_port.value());
  w.write_u8(10, default_mcast_not_primary_port.value());
  uint8_t b11 = set_bits(0, 3, 5, life_time_value);
  b11 = set_bits(b11, 2, 1, port_state_change ? 1 : 0);
  b11 = set_bits(b11, 0, 2, optimized_sl2vl_programming);
  w.write_u8(11, b11);
  w.write_be16(12, lids_per_port);
  w.write_be16(14, partition_enforcement_cap);
  uint8_t b16 = set_bits(0, 7, 1, inbound_enforcement_cap ? 1 : 0);
  b16 = set_bits(b16, 6, 1, outbound_enforcement_cap ? 1 : 0);
  b16 = set_bits(b16, 5, 1, filter_raw_inbound_cap ? 1 : 0);
  b16 = set_bits(b16, 4, 1, filter_raw_outbound_cap ? 1 : 0);
  b16 = set_bits(b16, 3, 1, enhanced_port0 ? 1 : 0);
  w.write_u8(16, b16);
  w.write_u8(17, 0);
  w.write_be16(18, multicast_fdb_top.value());
}

Result<SwitchInfo> SwitchInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("SwitchInfo needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  SwitchInfo s;
  s.linear_fdb_cap = r.read_be16(0);
  s.random_fdb_cap = r.read_be16(2);
  s.multicast_fdb_cap = r.read_be16(4);
  s.linear_fdb_top = Lid(r.read_be16(6));
  s.default_port = PortNum(r.read_u8(8));
  s.default_mcast_primary_port = PortNum(r.read_u8(9));
  s.default_mcast_not_primary_port = PortNum(r.read_u8(10));
  const uint8_t b11 = r.read_u8(11);
  s.life_time_value = get_bits(b11, 3, 5);
  s.port_state_change = get_bits(b11, 2, 1) != 0;
  s.optimized_sl2vl_programming = get_bits(b11, 0, 2);
  s.lids_per_port = r.read_be16(12);
  s.partition_enforcement_cap = r.read_be16(14);
  const uint8_t b16 = r.read_u8(16);
  s.inbound_enforcement_cap = get_bits(b16, 7, 1) != 0;
  s.outbound_enforcement_cap = get_bits(b16, 6, 1) != 0;
  s.filter_raw_inbound_cap = get_bits(b16, 5, 1) != 0;
  s.filter_raw_outbound_cap = get_bits(b16, 4, 1) != 0;
  s.enhanced_port0 = get_bits(b16, 3, 1) != 0;
  s.multicast_fdb_top = Lid(r.read_be16(18));
  if (!r.ok()) return fail(Errc::truncated, "SwitchInfo truncated");
  return s;
}

std::string SwitchInfo::to_string() const {
  std::string s;
  append_format(s, "LinearFdbCap: {}\n", linear_fdb_cap);
  append_format(s, "RandomFdbCap: {}\n", random_fdb_cap);
  append_format(s, "McastFdbCap: {}\n", multicast_fdb_cap);
  append_format(s, "LinearFdbTop: {}\n", linear_fdb_top);
  append_format(s, "DefPort: {}\n", default_port);
  append_format(s, "DefMcastPrimPort: {}\n", default_mcast_primary_port);
  append_format(s, "DefMcastNotPrimPort: {}\n", default_mcast_not_primary_port);
  append_format(s, "LifeTime: {}\n", life_time_value);
  append_format(s, "StateChange: {}\n", port_state_change ? 1 : 0);
  append_format(s, "OptSLtoVLMapping: {}\n", optimized_sl2vl_programming);
  append_format(s, "LidsPerPort: {}\n", lids_per_port);
  append_format(s, "PartEnforceCap: {}\n", partition_enforcement_cap);
  append_format(s, "InboundPartEnf: {}\n", inbound_enforcement_cap ? 1 : 0);
  append_format(s, "OutboundPartEnf: {}\n", outbound_enforcement_cap ? 1 : 0);
  append_format(s, "FilterRawInbound: {}\n", filter_raw_inbound_cap ? 1 : 0);
  append_format(s, "FilterRawOutbound: {}\n", filter_raw_outbound_cap ? 1 : 0);
  append_format(s, "EnhancedPort0: {}\n", enhanced_port0 ? 1 : 0);
  append_format(s, "MulticastFDBTop: 0x{:04x}", multicast_fdb_top.value());
  return s;
}

}  // namespace mad
