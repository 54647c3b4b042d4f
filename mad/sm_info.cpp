#include "mad/sm_info.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

std::string_view sm_state_name(SmState s) {
  switch (s) {
    case SmState::not_active: return "NotActive";
    case SmState::discovering: return "Discovering";
    case SmState::standby: return "Standby";
    case SmState::master: return "Master";
  }
  return "?";
}

// Offsets: IBA 1.3 vol 1 Table 155. Byte 20: Priority (7-4), SMState (3-0).
void SmInfo::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be64(0, guid.value());
  w.write_be64(8, sm_key);
  w.write_be32(16, act_count);
  uint8_t b20 = set_bits(0, 4, 4, priority);
  b20 = set_bits(b20, 0, 4, static_cast<uint8_t>(state));
  w.write_u8(20, b20);
}

Result<SmInfo> SmInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("SMInfo needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  SmInfo s;
  s.guid = Guid(r.read_be64(0));
  s.sm_key = r.read_be64(8);
  s.act_count = r.read_be32(16);
  const uint8_t b20 = r.read_u8(20);
  s.priority = get_bits(b20, 4, 4);
  const uint8_t state = get_bits(b20, 0, 4);
  if (state > static_cast<uint8_t>(SmState::master))
    return fail(Errc::invalid, fmt::format("SMInfo: SMState {}", state));
  s.state = static_cast<SmState>(state);
  if (!r.ok()) return fail(Errc::truncated, "SMInfo truncated");
  return s;
}

std::string SmInfo::to_string() const {
  std::string s;
  append_format(s, "Guid: {}\n", guid);
  append_format(s, "SM_Key: 0x{:016x}\n", sm_key);
  append_format(s, "ActCount: {}\n", act_count);
  append_format(s, "Priority: {}\n", priority);
  append_format(s, "SMState: {} ({})", sm_state_name(state), static_cast<unsigned>(state));
  return s;
}

}  // namespace mad
