// Candidate output ports: for one switch, the equally good ports toward every destination
// switch, as the engine's rule defines "good" (fewest hops, shortest legal up/down path, ...).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "routing/fabric_view.h"

namespace routing {

// Lists for all destination switches of one switch. A list equal to the previous non-empty
// one shares its storage, so runs of destinations with the same candidates (all the remote
// leaves, seen from a leaf) are recognisable by their data pointer: the fill keeps its state
// across such a run.
class CandidateLists {
 public:
  void reset(size_t switches) {
    off_.assign(switches, 0);
    len_.assign(switches, 0);
    ports_.clear();
    last_len_ = 0;
  }
  // Appends the candidates of destination t: open(), push()..., close(t).
  size_t open() const { return ports_.size(); }
  void push(uint8_t port) { ports_.push_back(port); }
  void push(std::span<const uint8_t> ports) {
    ports_.insert(ports_.end(), ports.begin(), ports.end());
  }
  void close(SwIdx t, size_t start) {
    const size_t n = ports_.size() - start;
    if (n > 0 && n == last_len_ &&
        std::equal(ports_.begin() + static_cast<std::ptrdiff_t>(start), ports_.end(),
                   ports_.begin() + static_cast<std::ptrdiff_t>(last_off_))) {
      ports_.resize(start);
      start = last_off_;
    } else if (n > 0) {
      last_off_ = start;
      last_len_ = n;
    }
    off_[t] = static_cast<uint32_t>(start);
    len_[t] = static_cast<uint16_t>(n);
  }
  std::span<const uint8_t> of(SwIdx t) const { return {ports_.data() + off_[t], len_[t]}; }

 private:
  std::vector<uint32_t> off_;
  std::vector<uint16_t> len_;
  std::vector<uint8_t> ports_;
  size_t last_off_ = 0, last_len_ = 0;
};

// Fills `out` with switch s's candidates toward every destination switch. Must depend on s and
// the engine's precomputed state only (it runs concurrently for different switches).
using CandidateFn = std::function<void(SwIdx s, CandidateLists& out)>;

}  // namespace routing
