#include "sm/partitions/pkey_match.h"

#include <algorithm>

namespace sm {

namespace {

constexpr uint16_t base(uint16_t k) { return k & 0x7FFF; }

// The entry of a pkey_set for `pkey`'s partition, or nullptr.
const uint16_t* find(std::span<const uint16_t> set, uint16_t pkey) {
  auto it = std::lower_bound(set.begin(), set.end(), base(pkey),
                             [](uint16_t e, uint16_t b) { return base(e) < b; });
  return it != set.end() && base(*it) == base(pkey) ? &*it : nullptr;
}

}  // namespace

std::vector<uint16_t> pkey_set(std::span<const uint16_t> table) {
  std::vector<uint16_t> out;
  for (uint16_t k : table)
    if (base(k) != 0) out.push_back(k);
  // Full entries first within a partition, so unique() keeps them.
  std::sort(out.begin(), out.end(), [](uint16_t x, uint16_t y) {
    return base(x) != base(y) ? base(x) < base(y) : (x & kPKeyFull) > (y & kPKeyFull);
  });
  out.erase(std::unique(out.begin(), out.end(), [](uint16_t x, uint16_t y) { return base(x) == base(y); }),
            out.end());
  return out;
}

std::optional<uint16_t> shared_pkey(std::span<const uint16_t> a, std::span<const uint16_t> b, uint16_t pkey) {
  const uint16_t* x = find(a, pkey);
  const uint16_t* y = find(b, pkey);
  if (!x || !y || !((*x | *y) & kPKeyFull)) return std::nullopt;
  return *x;
}

std::optional<uint16_t> common_pkey(std::span<const uint16_t> a, std::span<const uint16_t> b) {
  if (auto d = shared_pkey(a, b, kDefaultPKey)) return d;
  // Both sorted by partition: one merge walk.
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (base(a[i]) < base(b[j])) {
      ++i;
    } else if (base(b[j]) < base(a[i])) {
      ++j;
    } else {
      if ((a[i] | b[j]) & kPKeyFull) return a[i];
      ++i;
      ++j;
    }
  }
  return std::nullopt;
}

bool holds_pkey(std::span<const uint16_t> set, uint16_t pkey) { return find(set, pkey) != nullptr; }

}  // namespace sm
