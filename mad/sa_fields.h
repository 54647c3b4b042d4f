// The fields of an SA record as the IBA lists them (15.2.5): each one a bit position counted
// from the most significant bit of byte 0 and a width. One table per record type serves both
// its codec (get_field / put_field) and ComponentMask matching (bit i of a ComponentMask
// names field i of the table), so the two cannot disagree.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace mad {

struct FieldSpec {
  std::string_view name;
  uint16_t bit = 0;    // from the most significant bit of byte 0
  uint16_t width = 0;  // up to 64 for numbers; wider fields (GIDs, names) are whole bytes
  // A bit mask the query's bits must be a subset of (CapabilityMask: "ports with IsSM" must
  // match ports that have other capabilities too, as OpenSM answers), not equal to.
  bool subset = false;
};

// Reads a field of up to 64 bits (big-endian bit order). Bytes past the end read as zero.
constexpr uint64_t get_field(std::span<const uint8_t> b, FieldSpec f) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < f.width; ++i) {
    const uint32_t bit = f.bit + i;
    const size_t byte = bit / 8;
    const unsigned b1 = byte < b.size() ? (b[byte] >> (7 - bit % 8)) & 1u : 0u;
    v = (v << 1) | b1;
  }
  return v;
}

// Writes a field of up to 64 bits; bits of `v` above the width are dropped. Writes past the
// end are dropped (the codecs size their buffers).
constexpr void put_field(std::span<uint8_t> b, FieldSpec f, uint64_t v) {
  for (uint32_t i = 0; i < f.width; ++i) {
    const uint32_t bit = f.bit + i;
    const size_t byte = bit / 8;
    if (byte >= b.size()) return;
    const unsigned shift = 7 - bit % 8;
    const unsigned one = static_cast<unsigned>((v >> (f.width - 1 - i)) & 1u);
    b[byte] = static_cast<uint8_t>((b[byte] & ~(1u << shift)) | (one << shift));
  }
}

// Whether record `b` matches query `a` on every field the mask selects (bit i -> fields[i]):
// equal, or for a subset field, every bit of a's set in b's. Any field width works: wide
// fields are compared bit by bit through whole bytes.
inline bool components_match(std::span<const uint8_t> a, std::span<const uint8_t> b, uint64_t mask,
                             std::span<const FieldSpec> fields) {
  for (size_t i = 0; i < fields.size() && i < 64; ++i) {
    if (!(mask >> i & 1)) continue;
    const FieldSpec f = fields[i];
    if (f.width <= 64) {
      const uint64_t want = get_field(a, f), have = get_field(b, f);
      if (f.subset ? (want & have) != want : want != have) return false;
      continue;
    }
    // Wide fields start and end on byte boundaries (GIDs, names, tables).
    const size_t from = f.bit / 8, n = f.width / 8u;
    if (from + n > a.size() || from + n > b.size()) return false;
    for (size_t k = 0; k < n; ++k)
      if (a[from + k] != b[from + k]) return false;
  }
  return true;
}

// Component mask bits that name no field of the table.
constexpr uint64_t unknown_components(uint64_t mask, size_t field_count) {
  return field_count >= 64 ? 0 : mask & ~((uint64_t{1} << field_count) - 1);
}

}  // namespace mad
