#include <doctest/doctest.h>

#include <array>

#include "mad/byte_io.h"

using namespace mad;

TEST_CASE("big-endian reads and writes round trip at every width") {
  std::array<uint8_t, 16> buf{};
  ByteWriter w(buf);
  w.write_u8(0, 0xAB);
  w.write_be16(1, 0x1234);
  w.write_be24(3, 0x56789A);
  w.write_be32(6, 0xDEADBEEF);
  w.write_be64(8, 0x0102030405060708ULL);
  CHECK(w.ok());
  // The 64-bit write overwrote bytes 8-9 of the 32-bit value: that is what was asked for.
  CHECK(buf == std::array<uint8_t, 16>{0xAB, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xDE, 0xAD, 0x01, 0x02,
                                       0x03, 0x04, 0x05, 0x06, 0x07, 0x08});
  ByteReader r(buf);
  CHECK(r.read_u8(0) == 0xAB);
  CHECK(r.read_be16(1) == 0x1234);
  CHECK(r.read_be24(3) == 0x56789A);
  CHECK(r.read_be64(8) == 0x0102030405060708ULL);
  CHECK(r.ok());
}

TEST_CASE("out-of-bounds access reads zero, writes nothing and is remembered") {
  std::array<uint8_t, 4> buf{1, 2, 3, 4};
  ByteReader r(buf);
  CHECK(r.read_be32(0) == 0x01020304);
  CHECK(r.ok());
  CHECK(r.read_be16(3) == 0);
  CHECK_FALSE(r.ok());

  ByteReader r2(buf);
  CHECK(r2.read_be64(SIZE_MAX - 2) == 0);  // offset overflow must not wrap around
  CHECK_FALSE(r2.ok());

  ByteWriter w(buf);
  w.write_be32(1, 0xFFFFFFFF);
  CHECK_FALSE(w.ok());
  CHECK(buf == std::array<uint8_t, 4>{1, 2, 3, 4});
}

TEST_CASE("sub-byte fields by shift and mask") {
  CHECK(get_bits(0xA5, 4, 4) == 0xA);
  CHECK(get_bits(0xA5, 0, 4) == 0x5);
  CHECK(get_bits(0x80, 7, 1) == 1);
  CHECK(set_bits(0x00, 4, 4, 0xF) == 0xF0);
  CHECK(set_bits(0xFF, 0, 3, 0) == 0xF8);
  CHECK(set_bits(0x00, 0, 3, 0xFF) == 0x07);  // the value is masked to its width
}
