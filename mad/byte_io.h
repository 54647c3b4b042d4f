// Bounds-checked big-endian byte access for the wire codecs (checks stay on in release builds).
// Every method names the byte order. An access past the end does not touch memory: reads give 0,
// writes are dropped, and the object remembers it (ok() == false), so a codec checks once at
// the end instead of after every field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace mad {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : b_(bytes) {}

  bool ok() const { return ok_; }
  size_t size() const { return b_.size(); }

  uint8_t read_u8(size_t off) { return fits(off, 1) ? b_[off] : 0; }
  uint16_t read_be16(size_t off) { return static_cast<uint16_t>(read_be(off, 2)); }
  uint32_t read_be24(size_t off) { return static_cast<uint32_t>(read_be(off, 3)); }
  uint32_t read_be32(size_t off) { return static_cast<uint32_t>(read_be(off, 4)); }
  uint64_t read_be64(size_t off) { return read_be(off, 8); }
  // Copies n bytes; fills out with zeros when they are not all there.
  void read_bytes(size_t off, std::span<uint8_t> out) {
    if (fits(off, out.size())) {
      if (!out.empty()) std::memcpy(out.data(), b_.data() + off, out.size());
    } else {
      std::memset(out.data(), 0, out.size());
    }
  }

 private:
  bool fits(size_t off, size_t n) {
    if (off <= b_.size() && n <= b_.size() - off) return true;
    ok_ = false;
    return false;
  }
  uint64_t read_be(size_t off, size_t n) {
    if (!fits(off, n)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | b_[off + i];
    return v;
  }

  std::span<const uint8_t> b_;
  bool ok_ = true;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::span<uint8_t> bytes) : b_(bytes) {}

  bool ok() const { return ok_; }
  size_t size() const { return b_.size(); }

  void write_u8(size_t off, uint8_t v) {
    if (fits(off, 1)) b_[off] = v;
  }
  void write_be16(size_t off, uint16_t v) { write_be(off, 2, v); }
  void write_be24(size_t off, uint32_t v) { write_be(off, 3, v & 0xFFFFFFu); }
  void write_be32(size_t off, uint32_t v) { write_be(off, 4, v); }
  void write_be64(size_t off, uint64_t v) { write_be(off, 8, v); }
  void write_bytes(size_t off, std::span<const uint8_t> in) {
    if (fits(off, in.size()) && !in.empty()) std::memcpy(b_.data() + off, in.data(), in.size());
  }
  void zero(size_t off, size_t n) {
    if (fits(off, n) && n) std::memset(b_.data() + off, 0, n);
  }

 private:
  bool fits(size_t off, size_t n) {
    if (off <= b_.size() && n <= b_.size() - off) return true;
    ok_ = false;
    return false;
  }
  void write_be(size_t off, size_t n, uint64_t v) {
    if (!fits(off, n)) return;
    for (size_t i = 0; i < n; ++i) b_[off + n - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
  }

  std::span<uint8_t> b_;
  bool ok_ = true;
};

// Sub-byte fields, by explicit shift and mask (never bitfields): `width` bits whose lowest
// bit is bit `shift` of the byte (bit 0 = least significant).
constexpr uint8_t get_bits(uint8_t byte, int shift, int width) {
  return static_cast<uint8_t>((byte >> shift) & ((1u << width) - 1u));
}
constexpr uint8_t set_bits(uint8_t byte, int shift, int width, unsigned value) {
  const unsigned mask = ((1u << width) - 1u) << shift;
  return static_cast<uint8_t>((byte & ~mask) | ((value << shift) & mask));
}

}  // namespace mad
