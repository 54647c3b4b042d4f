#include "routing/updown.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>

#include "routing/parallel.h"
#include "routing/switch_graph.h"

namespace routing {

Orientation::Orientation(std::span<const uint32_t> rank) : key_(rank.size()), order_(rank.size()) {
  for (SwIdx s = 0; s < rank.size(); ++s) key_[s] = (uint64_t{rank[s]} << 32) | s;
  std::iota(order_.begin(), order_.end(), SwIdx{0});
  std::sort(order_.begin(), order_.end(), [&](SwIdx a, SwIdx b) { return key_[a] < key_[b]; });
}

UpDownCosts UpDownCosts::compute(const FabricView& fv, const Orientation& o, unsigned threads) {
  UpDownCosts m;
  const size_t n = fv.switch_count();
  m.n_ = n;
  m.c_.assign(n * n, kFar);
  // Down-only distances to t are BFS distances from t along up moves (reversed down moves).
  const SwitchGraph up_graph =
      make_switch_graph(fv, [&](SwIdx s, const Arc& a) { return o.up(s, a.to); });
  const unsigned workers = worker_count(n, threads);
  std::vector<HopSearch<uint16_t>> search;
  std::vector<std::vector<uint16_t>> dist(workers, std::vector<uint16_t>(n));
  for (unsigned w = 0; w < workers; ++w) search.emplace_back(up_graph);
  parallel_for(n, threads, [&](size_t ti, unsigned w) {
    const SwIdx t = static_cast<SwIdx>(ti);
    uint16_t* row = m.c_.data() + ti * n;
    search[w].run({&t, 1}, dist[w]);
    for (size_t s = 0; s < n; ++s)
      if (dist[w][s] < kFar) row[s] = static_cast<uint16_t>(kDown | dist[w][s]);
    // Then the up phase. Not a BFS: each switch starts from its own down-only cost, so this is
    // a dynamic programme over the up moves, which form a DAG ordered by top_down(); Boost's
    // dag_shortest_paths takes one source, hence the loop.
    for (SwIdx s : o.top_down()) {
      if (down(row[s])) continue;
      uint16_t best = kFar;
      for (const Arc& a : fv.arcs(s))
        if (o.up(s, a.to)) best = std::min(best, hops(row[a.to]));
      if (best < kFar - 1) row[s] = static_cast<uint16_t>(best + 1);
    }
  });
  return m;
}

void UpDownCosts::transpose(unsigned threads) {
  // Square, in place, by blocks of rows: block row i swaps with block column i only.
  constexpr size_t kB = 64;
  const size_t blocks = (n_ + kB - 1) / kB;
  parallel_for(blocks, threads, [&](size_t bi, unsigned) {
    const size_t i0 = bi * kB, i1 = std::min(n_, i0 + kB);
    for (size_t j0 = i0; j0 < n_; j0 += kB) {
      const size_t j1 = std::min(n_, j0 + kB);
      for (size_t i = i0; i < i1; ++i)
        for (size_t j = std::max(j0, i + 1); j < j1; ++j) std::swap(c_[i * n_ + j], c_[j * n_ + i]);
    }
  }, 1);
  by_source_ = !by_source_;
}

SwitchFallback SwitchFallback::compute(const FabricView& fv, const UpDownCosts& by_destination,
                                       unsigned threads) {
  assert(!by_destination.by_source());
  SwitchFallback f;
  const size_t n = fv.switch_count();
  f.n_ = n;
  f.row_of_.assign(n, -1);
  std::vector<SwIdx> need;
  for (SwIdx t = 0; t < n; ++t) {
    const auto row = by_destination.row(t);
    if (std::find(row.begin(), row.end(), UpDownCosts::kFar) != row.end()) {
      f.row_of_[t] = static_cast<int32_t>(need.size());
      need.push_back(t);
    }
  }
  f.need_ = need.size();
  if (need.empty()) return f;
  // Stored by source (hops_[s * need + i]): the fill asks for one source switch at a time,
  // and then reads its neighbours' rows in order.
  f.hops_.assign(need.size() * n, 0);
  const SwitchGraph g = make_switch_graph(fv);
  const unsigned workers = worker_count(need.size(), threads);
  std::vector<HopSearch<uint8_t>> search;
  std::vector<std::vector<uint8_t>> dist(workers, std::vector<uint8_t>(n));
  for (unsigned w = 0; w < workers; ++w) search.emplace_back(g);
  parallel_for(need.size(), threads, [&](size_t i, unsigned w) {
    // Discovered fabrics are within 2 x 63 hops; a saturated distance only loses fallbacks.
    search[w].run({&need[i], 1}, dist[w]);
    for (size_t s = 0; s < n; ++s) f.hops_[s * need.size() + i] = dist[w][s];
  });
  return f;
}

bool SwitchFallback::candidates(const FabricView& fv, SwIdx s, SwIdx t,
                                std::vector<uint8_t>& out) const {
  out.clear();
  if (row_of_.empty() || row_of_[t] < 0) return false;
  const size_t i = static_cast<size_t>(row_of_[t]);
  const uint8_t mine = hops_[s * need_ + i];
  if (mine == HopSearch<uint8_t>::kFar || mine == 0) return false;
  // Branch-free into a buffer, as updown_candidates: 1.5 million calls at 43,011 nodes.
  std::array<uint8_t, 256> buf;
  size_t m = 0;
  const uint8_t* col = hops_.data() + i;
  for (const Arc& a : fv.arcs(s)) {
    buf[m] = a.port;
    m += col[a.to * need_] + 1 == mine ? 1 : 0;
  }
  out.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(m));
  return m > 0;
}

void updown_candidates(const FabricView& fv, const Orientation& o, const UpDownCosts& costs,
                       SwIdx s, CandidateLists& out) {
  assert(costs.by_source());
  const size_t n = costs.size();
  out.reset(n);
  const auto arcs = fv.arcs(s);
  struct Next {
    const uint16_t* row;
    uint8_t port;
    bool up;
  };
  std::vector<Next> next;
  next.reserve(arcs.size());
  for (const Arc& a : arcs) next.push_back({costs.row(a.to).data(), a.port, o.up(s, a.to)});
  const uint16_t* mine = costs.row(s).data();
  using C = UpDownCosts;
  // Branch-free selection into a buffer, as in minhop_candidates.
  std::array<uint8_t, 256> buf;
  for (SwIdx t = 0; t < n; ++t) {
    const size_t start = out.open();
    const uint16_t c = mine[t];
    const uint16_t h = C::hops(c);
    if (t != s && c != C::kFar && h != 0) {
      size_t m = 0;
      if (C::down(c)) {
        const uint16_t want = static_cast<uint16_t>(C::kDown | (h - 1));
        for (const Next& x : next) {
          buf[m] = x.port;
          m += !x.up && x.row[t] == want ? 1 : 0;
        }
      } else {
        const uint16_t want = static_cast<uint16_t>(h - 1);  // kFar never equals it
        for (const Next& x : next) {
          buf[m] = x.port;
          m += x.up && C::hops(x.row[t]) == want ? 1 : 0;
        }
      }
      out.push({buf.data(), m});
    }
    out.close(t, start);
  }
}

}  // namespace routing
