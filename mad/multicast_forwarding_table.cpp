#include "mad/multicast_forwarding_table.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

void MulticastForwardingTable::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  for (size_t i = 0; i < kEntries; ++i) w.write_be16(2 * i, port_masks[i]);
}

Result<MulticastForwardingTable> MulticastForwardingTable::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("MulticastForwardingTable needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  MulticastForwardingTable t;
  for (size_t i = 0; i < kEntries; ++i) t.port_masks[i] = r.read_be16(2 * i);
  if (!r.ok()) return fail(Errc::truncated, "MulticastForwardingTable truncated");
  return t;
}

std::string MulticastForwardingTable::to_string() const {
  std::string s;
  for (size_t i = 0; i < kEntries; ++i) append_format(s, "Entry{}: 0x{:04x}\n", i, port_masks[i]);
  s.pop_back();
  return s;
}

}  // namespace mad
