// The switch graph as a Boost.Graph (compressed sparse rows), and a reusable breadth-first
// search over it that records hop counts. Engines run many BFS (one per destination switch),
// so the search keeps its colour map and queue between runs.
#pragma once

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/pending/queue.hpp>

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

// Hop counts from a set of sources; `far` marks what the search does not reach.
template <class Dist>
class HopSearch {
 public:
  static constexpr Dist kFar = std::numeric_limits<Dist>::max();

  explicit HopSearch(const SwitchGraph& g) : g_(&g), color_(num_vertices(g)) {}

  // dist[v] = hops from the nearest source, kFar when unreachable. Returns the largest
  // finite distance, or kFar when a distance does not fit in Dist.
  Dist run(std::span<const SwIdx> sources, std::span<Dist> dist) {
    std::fill(color_.begin(), color_.end(), boost::white_color);
    std::fill(dist.begin(), dist.end(), kFar);
    for (SwIdx s : sources) dist[s] = 0;
    State st{dist.data(), 0, false};
    boost::queue<uint32_t> q;
    boost::breadth_first_visit(*g_, sources.begin(), sources.end(), q, Recorder{{}, &st},
                               color_.data());
    return st.overflow ? kFar : st.max;
  }

 private:
  struct State {
    Dist* d;
    Dist max;
    bool overflow;
  };
  // breadth_first_visit copies the visitor: it records through a pointer.
  struct Recorder : boost::default_bfs_visitor {
    State* st;
    template <class E, class G>
    void tree_edge(E e, const G& g) const {
      const Dist du = st->d[source(e, g)];
      if (du >= kFar - 1) {
        st->overflow = true;
        st->d[target(e, g)] = kFar - 1;
        return;
      }
      const Dist dv = static_cast<Dist>(du + 1);
      st->d[target(e, g)] = dv;
      st->max = std::max(st->max, dv);
    }
  };
  const SwitchGraph* g_;
  std::vector<boost::default_color_type> color_;
};

}  // namespace routing
