#include "fabric/metrics.h"

#include <algorithm>
#include <array>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "fabric/wiring.h"

namespace fabric {

namespace {

constexpr uint32_t kNone = kNoWire;  // no switch, no link
// Links from a switch to the destination CA when >= 1; else one of these.
constexpr int16_t kFail = -1, kBusy = -3, kUnknown = -4;

using Ca = WiredCa;

// The CDG is acyclic iff a depth-first search meets no back edge.
struct BackEdge : boost::default_dfs_visitor {
  bool* found;
  explicit BackEdge(bool* f) : found(f) {}
  template <class E, class G>
  void back_edge(E, const G&) { *found = true; }
};

}  // namespace

ShiftList shift_list(size_t N, const MetricsOptions& opts) {
  ShiftList l;
  if (N > 1 && N <= opts.all_shifts_up_to) {
    for (size_t k = 1; k < N; ++k) l.shifts.push_back(k);
  } else if (N > 1) {
    l.sampled = true;
    const size_t n = std::min(opts.sampled_shifts, N - 1);
    for (size_t i = 0; i < n; ++i) l.shifts.push_back(1 + i * (N - 1) / n);
  }
  return l;
}

MetricsReport measure_routing(const Topology& topo, std::span<const std::span<const uint8_t>> lfts,
                              const MetricsOptions& opts) {
  MetricsReport r;
  const Wiring w = wire(topo, lfts);
  const size_t S = w.node_of.size();
  r.switch_links = w.links.size();
  const std::vector<Ca>& cas = w.cas;
  const size_t N = cas.size();
  r.ca_ports = N;
  r.pairs = N * (N ? N - 1 : 0);
  std::vector<uint64_t> sources(S, 0);
  for (const Ca& c : cas) ++sources[c.leaf];

  std::vector<uint64_t> load(w.links.size(), 0);
  std::vector<std::array<uint64_t, 4>> deps(w.links.size(), {0, 0, 0, 0});  // out ports after a link
  std::vector<int16_t> hops(S);
  std::vector<uint32_t> next(S);  // next switch; kNone = the destination CA or nowhere
  std::vector<uint8_t> out(S);
  std::vector<uint64_t> flow(S);
  std::vector<int32_t> dist(S);
  std::vector<uint32_t> stack, queue, order;
  long double stretch_sum = 0;
  uint64_t routed = 0;
  uint32_t dist_leaf = kNone;

  // Where each switch sends `lid`, and in how many links it reaches the owner from there.
  const auto resolve = [&](uint16_t lid) {
    for (uint32_t s = 0; s < S; ++s) {
      const uint8_t p = w.out(s, lid);
      out[s] = p;
      next[s] = kNone;
      hops[s] = kUnknown;
      const Slot* sl = w.slot(s, p);
      if (!sl || !sl->usable) {
        hops[s] = kFail;
      } else if (sl->to != kNone) {
        next[s] = sl->to;
      } else {
        hops[s] = Wiring::owns(*sl, lid) ? 1 : kFail;
      }
    }
    for (uint32_t s0 = 0; s0 < S; ++s0) {  // memoised walks; a loop reaches nothing
      if (hops[s0] != kUnknown) continue;
      stack.clear();
      uint32_t s = s0;
      int16_t res = kFail;
      while (true) {
        if (hops[s] != kUnknown) {
          res = hops[s] == kBusy ? kFail : hops[s];
          break;
        }
        hops[s] = kBusy;
        stack.push_back(s);
        s = next[s];
      }
      for (size_t k = stack.size(); k-- > 0;) {
        if (res >= 0) ++res;
        hops[stack[k]] = res;
      }
    }
  };
  // Flows: sources enter at their leaves and pile up toward the destination `d`; switches
  // furthest away first, so each switch's flow is complete before it is passed on. Every LID
  // of `d` adds its dependencies; the base LID (`base`) also the loads and the stretch.
  const auto flows = [&](const Ca& d, bool base) {
    order.clear();
    for (uint32_t s = 0; s < S; ++s) {
      flow[s] = sources[s];
      if (s == d.leaf) --flow[s];  // not to itself
      if (hops[s] >= 1) order.push_back(s);
      else if (base) r.unrouted += flow[s];
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return hops[a] > hops[b]; });
    for (uint32_t s : order) {
      const uint64_t fl = flow[s];
      const uint64_t here = sources[s] - (s == d.leaf ? 1 : 0);
      if (base && here) {
        routed += here;
        const int32_t shortest = dist[s] >= 0 ? dist[s] + 2 : -1;
        const double actual = hops[s] + 1;
        if (shortest > 0) {
          const double ratio = actual / shortest;
          stretch_sum += static_cast<long double>(ratio) * here;
          r.stretch_max = std::max(r.stretch_max, ratio);
          if (actual > shortest) r.stretched_pairs += here;
        }
      }
      const uint32_t u = next[s];
      if (u == kNone || fl == 0) continue;
      const uint32_t l = w.slot(s, out[s])->link;
      if (base) load[l] += fl;
      flow[u] += fl;
      const uint8_t after = out[u];
      if (next[u] != kNone) deps[l][after >> 6] |= 1ULL << (after & 63);
    }
  };

  for (const Ca& d : cas) {
    if (d.lid.value() == 0) {
      r.unrouted += N - 1;
      continue;
    }
    // Shortest switch hops to the destination's leaf, over the up links (once per leaf).
    if (d.leaf != dist_leaf) {
      dist_leaf = d.leaf;
      std::fill(dist.begin(), dist.end(), -1);
      queue.assign(1, d.leaf);
      dist[d.leaf] = 0;
      for (size_t h = 0; h < queue.size(); ++h) {
        const uint32_t s = queue[h];
        for (uint8_t p = 1; p <= w.port_count[s]; ++p) {
          const uint32_t u = w.slot(s, p)->to;
          if (u != kNone && dist[u] < 0) {
            dist[u] = dist[s] + 1;
            queue.push_back(u);
          }
        }
      }
    }
    resolve(d.lid.value());
    flows(d, true);
    for (uint32_t k = 1; k < (1u << d.lmc) && d.lid.value() + k <= Lid::kMaxUnicast; ++k) {
      resolve(static_cast<uint16_t>(d.lid.value() + k));
      flows(d, false);
    }
  }
  r.stretch_mean = routed ? static_cast<double>(stretch_sum / routed) : 0.0;
  uint64_t total = 0;
  for (uint64_t l : load) {
    r.max_link_load = std::max(r.max_link_load, l);
    total += l;
  }
  r.mean_link_load = w.links.empty() ? 0.0 : static_cast<double>(total) / static_cast<double>(w.links.size());

  // Channel dependency graph: link -> link whenever a route turns from one into the other.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t l = 0; l < w.links.size(); ++l)
    for (unsigned word = 0; word < 4; ++word)
      for (uint64_t bits = deps[l][word]; bits; bits &= bits - 1) {
        const uint8_t p = static_cast<uint8_t>(word * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
        edges.emplace_back(l, w.slot(w.link_to[l], p)->link);
      }
  std::sort(edges.begin(), edges.end());
  r.cdg_edges = edges.size();
  using Cdg = boost::compressed_sparse_row_graph<boost::directedS>;
  Cdg cdg(boost::edges_are_sorted, edges.begin(), edges.end(), w.links.size());
  bool cycle = false;
  boost::depth_first_search(cdg, boost::visitor(BackEdge(&cycle)));
  r.cdg_acyclic = !cycle;

  // Shift permutations in leaf order, walked hop by hop (a route that dies still loads the
  // links up to where it died).
  const auto [shifts, sampled] = shift_list(N, opts);
  r.shifts_sampled = sampled;
  if (!shifts.empty()) {
    std::vector<uint32_t> shift_load(w.links.size(), 0);
    std::vector<uint32_t> touched;
    long double sum = 0;
    for (size_t k : shifts) {
      uint32_t worst = 0;
      touched.clear();
      for (size_t i = 0; i < N; ++i) {
        const uint16_t lid = cas[(i + k) % N].lid.value();
        uint32_t s = cas[i].leaf;
        for (int guard = 0; guard < 64 && lid != 0; ++guard) {
          const Slot* sl = w.slot(s, w.out(s, lid));
          if (!sl || !sl->usable || sl->link == kNone) break;  // no way on, or down to a CA
          if (shift_load[sl->link]++ == 0) touched.push_back(sl->link);
          worst = std::max(worst, shift_load[sl->link]);
          s = sl->to;
        }
      }
      for (uint32_t l : touched) shift_load[l] = 0;
      sum += worst;
      r.shift_congestion_max = std::max<uint64_t>(r.shift_congestion_max, worst);
    }
    r.shifts = shifts.size();
    r.shift_congestion = static_cast<double>(sum / static_cast<long double>(shifts.size()));
  }
  if (opts.keep_link_loads) {
    r.links.reserve(w.links.size());
    for (size_t l = 0; l < load.size(); ++l) {
      const WiredLink& k = w.links[l];
      r.links.push_back(LinkLoad{k.from, k.from_port, k.to, k.to_port, load[l]});
    }
  }
  return r;
}

}  // namespace fabric
