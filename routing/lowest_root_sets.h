// Disjoint sets (union-find with path halving) whose root is always the set's lowest member:
// the result does not depend on the order of the joins, and roots order the sets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace routing {

class LowestRootSets {
 public:
  explicit LowestRootSets(size_t n) : up_(n) { std::iota(up_.begin(), up_.end(), uint32_t{0}); }
  uint32_t find(uint32_t x) {
    while (up_[x] != x) x = up_[x] = up_[up_[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) up_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<uint32_t> up_;
};

}  // namespace routing
