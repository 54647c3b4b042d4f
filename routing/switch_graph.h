// The switch graph as a Boost.Graph (compressed sparse rows), and a reusable breadth-first
// search over it that records hop counts. Engines run many BFS (one per destination switch),
// so the search keeps its rows and queue between runs.
#pragma once

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <algorithm>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "routing/fabric_view.h"

namespace routing {

using SwitchGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                       boost::no_property, boost::no_property,
                                                       uint32_t, uint32_t>;

// The usable links of `fv` as a directed graph (each link both ways), keeping only the arcs
// for which keep(from, arc) is true.
template <class Keep>
SwitchGraph make_switch_graph(const FabricView& fv, Keep keep) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(fv.arc_count());
  for (SwIdx s = 0; s < fv.switch_count(); ++s)
    for (const Arc& a : fv.arcs(s))
      if (keep(s, a)) edges.emplace_back(s, a.to);
  // Arcs come out grouped by source already.
  return SwitchGraph(boost::edges_are_sorted, edges.begin(), edges.end(),
                     static_cast<uint32_t>(fv.switch_count()));
}
inline SwitchGraph make_switch_graph(const FabricView& fv) {
  return make_switch_graph(fv, [](SwIdx, const Arc&) { return true; });
}

// Hop counts from a set of sources; `far` marks what the search does not reach. A plain queue
// over its own copy of the rows: Boost's breadth_first_visit (colour map, deque, visitor) took
// 2/3 of ftree's cost matrix at 43,011 nodes (UpDownCosts 620 -> ~250 ms, one thread), and the
// distances are the same, BFS's being unique.
template <class Dist>
class HopSearch {
 public:
  static constexpr Dist kFar = std::numeric_limits<Dist>::max();

  explicit HopSearch(const SwitchGraph& g) {
    const size_t n = num_vertices(g);
    begin_.reserve(n + 1);
    to_.reserve(num_edges(g));
    queue_.resize(n);
    for (uint32_t v = 0; v < n; ++v) {
      begin_.push_back(static_cast<uint32_t>(to_.size()));
      for (auto [e, end] = out_edges(v, g); e != end; ++e) to_.push_back(target(*e, g));
    }
    begin_.push_back(static_cast<uint32_t>(to_.size()));
  }

  // dist[v] = hops from the nearest source, kFar when unreachable. Returns the largest
  // finite distance, or kFar when a distance does not fit in Dist.
  Dist run(std::span<const SwIdx> sources, std::span<Dist> dist) {
    std::fill(dist.begin(), dist.end(), kFar);
    size_t tail = 0;
    for (SwIdx s : sources)
      if (dist[s] != 0) dist[s] = 0, queue_[tail++] = s;
    Dist max = 0;
    bool overflow = false;
    for (size_t head = 0; head < tail; ++head) {
      const uint32_t u = queue_[head];
      const Dist du = dist[u];
      // Past the type's range: kFar - 1 marks "far but reached", as the search always did.
      const Dist dv = du >= kFar - 1 ? Dist(kFar - 1) : static_cast<Dist>(du + 1);
      for (uint32_t k = begin_[u]; k < begin_[u + 1]; ++k) {
        const uint32_t v = to_[k];
        if (dist[v] != kFar) continue;
        dist[v] = dv;
        queue_[tail++] = v;
        if (du >= kFar - 1) overflow = true;
        else max = std::max(max, dv);
      }
    }
    return overflow ? kFar : max;
  }

 private:
  std::vector<uint32_t> begin_, to_, queue_;
};

}  // namespace routing
