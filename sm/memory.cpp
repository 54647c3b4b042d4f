#include "sm/memory.h"

#include <bit>
#include <cstring>

namespace sm {

uint64_t lft_block_hash(std::span<const uint8_t, 64> e) {
  // Eight 64-bit words mixed by multiply-xorshift (no need for cryptographic strength: the
  // only adversary is chance, and 2^-64 per compared block is far below a bit flip). Words
  // are little-endian whatever the host, since the store keeps these hashes.
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t w = 0; w < 8; ++w) {
    uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(&v, e.data() + w * 8, 8);
    else
      for (size_t i = 0; i < 8; ++i) v |= static_cast<uint64_t>(e[w * 8 + i]) << (8 * i);
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h | 1;
}

}  // namespace sm
