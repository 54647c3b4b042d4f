#include "mad/sl2vl_table.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

// Byte i holds SL 2i in bits 7-4 and SL 2i+1 in bits 3-0 (IBA 1.3 vol 1 Table 152).
void Sl2VlTable::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  for (size_t i = 0; i < kSize; ++i)
    w.write_u8(i, set_bits(set_bits(0, 4, 4, vl[2 * i]), 0, 4, vl[2 * i + 1]));
}

Result<Sl2VlTable> Sl2VlTable::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("SLtoVLMappingTable needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  Sl2VlTable t;
  for (size_t i = 0; i < kSize; ++i) {
    const uint8_t b = r.read_u8(i);
    t.vl[2 * i] = get_bits(b, 4, 4);
    t.vl[2 * i + 1] = get_bits(b, 0, 4);
  }
  if (!r.ok()) return fail(Errc::truncated, "SLtoVLMappingTable truncated");
  return t;
}

std::string Sl2VlTable::to_string() const {
  std::string s;
  for (size_t i = 0; i < kEntries; ++i) append_format(s, "SL{}: VL{}\n", i, vl[i]);
  s.pop_back();
  return s;
}

}  // namespace mad
