#include "mad/pkey_table.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

void PKeyTable::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  for (size_t i = 0; i < kEntries; ++i) w.write_be16(2 * i, pkeys[i]);
}

Result<PKeyTable> PKeyTable::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("P_KeyTable needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  PKeyTable t;
  for (size_t i = 0; i < kEntries; ++i) t.pkeys[i] = r.read_be16(2 * i);
  if (!r.ok()) return fail(Errc::truncated, "P_KeyTable truncated");
  return t;
}

std::string PKeyTable::to_string() const {
  std::string s;
  for (size_t i = 0; i < kEntries; ++i) append_format(s, "P_Key{}: 0x{:04x}\n", i, pkeys[i]);
  s.pop_back();
  return s;
}

}  // namespace mad
