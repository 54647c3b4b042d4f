// All-pairs hop counts over the switch graph, one breadth-first search per switch.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mad/error.h"
#include "routing/candidates.h"
#include "routing/fabric_view.h"

namespace routing {

class HopMatrix {
 public:
  static constexpr uint8_t kFar = 0xFF;  // unreachable

  // Fails when two switches are more than 254 hops apart (directed-route discovery stops at
  // 63, so a discovered fabric never is).
  static mad::Result<HopMatrix> compute(const FabricView& fv, unsigned threads);

  size_t size() const { return n_; }
  // Hops from s to every switch; the graph is undirected, so also from every switch to s.
  std::span<const uint8_t> row(SwIdx s) const { return {d_.data() + s * n_, n_}; }
  uint8_t at(SwIdx from, SwIdx to) const { return d_[from * n_ + to]; }

 private:
  size_t n_ = 0;
  std::vector<uint8_t> d_;
};

// minhop's rule: the ports of s whose neighbour is one hop closer to t.
void minhop_candidates(const FabricView& fv, const HopMatrix& hops, SwIdx s, CandidateLists& out);

}  // namespace routing
