#include "mad/vl_arb_table.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

// Entry i: byte 2i = reserved (7-4) and VL (3-0), byte 2i+1 = weight (IBA 1.3 Table 153).
void VlArbTable::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  for (size_t i = 0; i < kEntries; ++i) {
    w.write_u8(2 * i, set_bits(0, 0, 4, entries[i].vl));
    w.write_u8(2 * i + 1, entries[i].weight);
  }
}

Result<VlArbTable> VlArbTable::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("VLArbitrationTable needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  VlArbTable t;
  for (size_t i = 0; i < kEntries; ++i) {
    t.entries[i].vl = get_bits(r.read_u8(2 * i), 0, 4);
    t.entries[i].weight = r.read_u8(2 * i + 1);
  }
  if (!r.ok()) return fail(Errc::truncated, "VLArbitrationTable truncated");
  return t;
}

std::string VlArbTable::to_string() const {
  std::string s;
  for (size_t i = 0; i < kEntries; ++i)
    append_format(s, "Entry{}: VL{} weight {}\n", i, entries[i].vl, entries[i].weight);
  s.pop_back();
  return s;
}

}  // namespace mad
