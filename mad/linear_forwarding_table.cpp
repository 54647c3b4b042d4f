#include "mad/linear_forwarding_table.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

void LinearForwardingTable::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  for (size_t i = 0; i < kEntries; ++i) w.write_u8(i, ports[i].value());
}

Result<LinearForwardingTable> LinearForwardingTable::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("LinearForwardingTable needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  LinearForwardingTable t;
  for (size_t i = 0; i < kEntries; ++i) t.ports[i] = PortNum(r.read_u8(i));
  if (!r.ok()) return fail(Errc::truncated, "LinearForwardingTable truncated");
  return t;
}

std::string LinearForwardingTable::to_string() const {
  // One line per entry, by index in the block (the block number is the attribute modifier,
  // which this struct does not know); 0xff is printed as "drop".
  std::string s;
  for (size_t i = 0; i < kEntries; ++i) {
    if (ports[i] == kUnreachable)
      append_format(s, "Entry{}: drop\n", i);
    else
      append_format(s, "Entry{}: {}\n", i, ports[i]);
  }
  s.pop_back();
  return s;
}

}  // namespace mad
