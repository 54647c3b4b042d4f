#include "sim/metrics.h"

#include <algorithm>
#include <array>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/depth_first_search.hpp>

namespace sim {

namespace {

constexpr uint32_t kNoLink = UINT32_MAX;
constexpr int16_t kFail = -1, kBusy = -3;

struct Endpoint {
  NodeIdx node;
  uint8_t port;
  NodeIdx leaf;
  uint8_t leaf_port;
  uint16_t lid;
};

// Switches densely numbered, and every directed switch-to-switch link with an id.
struct Wiring {
  std::vector<int32_t> sw_of;       // NodeIdx -> switch id, -1 for CAs
  std::vector<NodeIdx> node_of;     // switch id -> NodeIdx
  std::vector<uint32_t> slot_base;  // switch id -> first slot; slot + port -> link id
  std::vector<uint32_t> link_at;    // slot -> link id or kNoLink
  std::vector<LinkLoad> links;      // link id -> ends
};

bool hop_ok(const SimFabric& f, const SimNode& n, uint8_t out) {
  if (out < 1 || out > n.num_ports) return false;
  const SimPort& p = n.ports[out];
  return p.link_up() && p.state == mad::PortState::active &&
         f.node(p.peer).ports[p.peer_port].state == mad::PortState::active;
}

uint8_t lft_port(const SimNode& n, uint16_t lid) {
  const SimSwitch& s = *n.sw;
  if (lid > s.lft_top || lid >= s.lft.size()) return 0;
  return s.lft[lid];
}

Wiring wire(const SimFabric& f) {
  Wiring w;
  const auto nodes = f.nodes();
  w.sw_of.assign(nodes.size(), -1);
  for (NodeIdx i = 0; i < nodes.size(); ++i)
    if (nodes[i].is_switch() && nodes[i].present) {
      w.sw_of[i] = static_cast<int32_t>(w.node_of.size());
      w.node_of.push_back(i);
    }
  for (NodeIdx n : w.node_of) {
    w.slot_base.push_back(static_cast<uint32_t>(w.link_at.size()));
    const SimNode& s = nodes[n];
    for (uint8_t p = 0; p <= s.num_ports; ++p) {
      const SimPort& sp = s.ports[p];
      if (p == 0 || !sp.link_up() || w.sw_of[sp.peer] < 0) {
        w.link_at.push_back(kNoLink);
        continue;
      }
      w.link_at.push_back(static_cast<uint32_t>(w.links.size()));
      w.links.push_back(LinkLoad{n, p, sp.peer, sp.peer_port, 0});
    }
  }
  return w;
}

// The CDG is acyclic iff a depth-first search meets no back edge.
struct BackEdge : boost::default_dfs_visitor {
  bool* found;
  explicit BackEdge(bool* f) : found(f) {}
  template <class E, class G>
  void back_edge(E, const G&) { *found = true; }
};

}  // namespace

MetricsReport measure_routing(const SimFabric& f, const MetricsOptions& opts) {
  MetricsReport r;
  const auto nodes = f.nodes();
  const Wiring w = wire(f);
  const size_t S = w.node_of.size();
  r.switch_links = w.links.size();
  auto link_of = [&](int32_t s, uint8_t port) { return w.link_at[w.slot_base[static_cast<size_t>(s)] + port]; };

  // CA ports in leaf order: leaves by node index (file order), then by leaf port.
  std::vector<Endpoint> eps;
  for (NodeIdx i = 0; i < nodes.size(); ++i) {
    const SimNode& n = nodes[i];
    if (n.is_switch() || !n.present) continue;
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      const SimPort& sp = n.ports[p];
      if (sp.link_up() && w.sw_of[sp.peer] >= 0)
        eps.push_back(Endpoint{i, p, sp.peer, sp.peer_port, sp.lid});
    }
  }
  std::sort(eps.begin(), eps.end(), [](const Endpoint& a, const Endpoint& b) {
    return a.leaf != b.leaf ? a.leaf < b.leaf : a.leaf_port < b.leaf_port;
  });
  const size_t N = eps.size();
  r.ca_ports = N;
  r.pairs = N * (N ? N - 1 : 0);
  std::vector<uint64_t> sources(S, 0);
  for (const Endpoint& e : eps) ++sources[static_cast<size_t>(w.sw_of[e.leaf])];

  std::vector<uint64_t> load(w.links.size(), 0);
  std::vector<std::array<uint64_t, 4>> deps(w.links.size(), {0, 0, 0, 0});  // out ports after a link
  std::vector<int16_t> hops(S);
  std::vector<int32_t> next(S);     // next switch, -1 = the destination CA or nowhere
  std::vector<uint8_t> out(S);
  std::vector<uint64_t> flow(S);
  std::vector<int32_t> dist(S);
  std::vector<int32_t> stack, queue, order;
  long double stretch_sum = 0;
  uint64_t routed = 0;
  NodeIdx dist_leaf = kNoNode;

  for (const Endpoint& d : eps) {
    if (d.lid == 0) {
      r.unrouted += N - 1;
      continue;
    }
    // Where each switch sends this LID, and how many links it is from the CA from there.
    for (size_t s = 0; s < S; ++s) {
      const SimNode& n = nodes[w.node_of[s]];
      const uint8_t p = lft_port(n, d.lid);
      out[s] = p;
      next[s] = -1;
      hops[s] = kBusy - 1;  // unknown
      if (!hop_ok(f, n, p)) {
        hops[s] = kFail;
        continue;
      }
      const SimPort& sp = n.ports[p];
      if (w.sw_of[sp.peer] >= 0) {
        next[s] = w.sw_of[sp.peer];
      } else {
        const SimPort& cp = nodes[sp.peer].ports[sp.peer_port];
        const bool owns = cp.lid != 0 && d.lid >= cp.lid && d.lid < cp.lid + (1u << cp.lmc);
        hops[s] = owns ? 1 : kFail;
      }
    }
    for (size_t s0 = 0; s0 < S; ++s0) {
      if (hops[s0] != kBusy - 1) continue;
      stack.clear();
      int32_t s = static_cast<int32_t>(s0);
      int16_t res = kFail;
      while (true) {
        if (hops[static_cast<size_t>(s)] != kBusy - 1) {
          res = hops[static_cast<size_t>(s)] == kBusy ? kFail : hops[static_cast<size_t>(s)];
          break;
        }
        hops[static_cast<size_t>(s)] = kBusy;
        stack.push_back(s);
        s = next[static_cast<size_t>(s)];
      }
      for (size_t k = stack.size(); k-- > 0;) {
        if (res >= 0) ++res;
        hops[static_cast<size_t>(stack[k])] = res;
      }
    }
    // Shortest switch hops to the destination's leaf, over the cabling (once per leaf).
    if (d.leaf != dist_leaf) {
      dist_leaf = d.leaf;
      std::fill(dist.begin(), dist.end(), -1);
      queue.assign(1, w.sw_of[d.leaf]);
      dist[static_cast<size_t>(queue[0])] = 0;
      for (size_t h = 0; h < queue.size(); ++h) {
        const int32_t s = queue[h];
        const SimNode& n = nodes[w.node_of[static_cast<size_t>(s)]];
        for (uint8_t p = 1; p <= n.num_ports; ++p) {
          if (link_of(s, p) == kNoLink) continue;
          const int32_t u = w.sw_of[n.ports[p].peer];
          if (dist[static_cast<size_t>(u)] < 0) {
            dist[static_cast<size_t>(u)] = dist[static_cast<size_t>(s)] + 1;
            queue.push_back(u);
          }
        }
      }
    }
    // Flows: sources enter at their leaves and pile up toward the destination; switches
    // furthest away first, so each switch's flow is complete before it is passed on.
    order.clear();
    for (size_t s = 0; s < S; ++s) {
      flow[s] = sources[s];
      if (w.node_of[s] == d.leaf) --flow[s];  // not to itself
      if (hops[s] >= 1) order.push_back(static_cast<int32_t>(s));
      else r.unrouted += flow[s];
    }
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return hops[static_cast<size_t>(a)] > hops[static_cast<size_t>(b)];
    });
    for (int32_t s : order) {
      const size_t su = static_cast<size_t>(s);
      const uint64_t fl = flow[su];
      const uint64_t here = sources[su] - (w.node_of[su] == d.leaf ? 1 : 0);
      if (here) {
        routed += here;
        const int32_t shortest = dist[su] >= 0 ? dist[su] + 2 : -1;
        const double actual = hops[su] + 1;
        if (shortest > 0) {
          const double ratio = actual / shortest;
          stretch_sum += static_cast<long double>(ratio) * here;
          r.stretch_max = std::max(r.stretch_max, ratio);
          if (actual > shortest) r.stretched_pairs += here;
        }
      }
      const int32_t u = next[su];
      if (u < 0 || fl == 0) continue;
      const uint32_t l = link_of(s, out[su]);
      load[l] += fl;
      flow[static_cast<size_t>(u)] += fl;
      const uint8_t after = out[static_cast<size_t>(u)];
      if (next[static_cast<size_t>(u)] >= 0) deps[l][after >> 6] |= 1ULL << (after & 63);
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
  for (uint32_t l = 0; l < w.links.size(); ++l) {
    const int32_t u = w.sw_of[w.links[l].to];
    for (unsigned word = 0; word < 4; ++word)
      for (uint64_t bits = deps[l][word]; bits; bits &= bits - 1) {
        const uint8_t p = static_cast<uint8_t>(word * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
        edges.emplace_back(l, link_of(u, p));
      }
  }
  std::sort(edges.begin(), edges.end());
  r.cdg_edges = edges.size();
  using Cdg = boost::compressed_sparse_row_graph<boost::directedS>;
  Cdg cdg(boost::edges_are_sorted, edges.begin(), edges.end(), w.links.size());
  bool cycle = false;
  boost::depth_first_search(cdg, boost::visitor(BackEdge(&cycle)));
  r.cdg_acyclic = !cycle;

  // Shift permutations in leaf order.
  if (N > 1) {
    std::vector<size_t> shifts;
    if (N <= opts.all_shifts_up_to) {
      for (size_t k = 1; k < N; ++k) shifts.push_back(k);
    } else {
      r.shifts_sampled = true;
      const size_t n = std::min(opts.sampled_shifts, N - 1);
      for (size_t i = 0; i < n; ++i) shifts.push_back(1 + i * (N - 1) / n);
    }
    std::vector<uint32_t> shift_load(w.links.size(), 0);
    std::vector<uint32_t> touched;
    long double sum = 0;
    for (size_t k : shifts) {
      uint32_t worst = 0;
      touched.clear();
      for (size_t i = 0; i < N; ++i) {
        const Endpoint& src = eps[i];
        const uint16_t lid = eps[(i + k) % N].lid;
        int32_t s = w.sw_of[src.leaf];
        for (int guard = 0; guard < 64 && lid != 0; ++guard) {
          const SimNode& n = nodes[w.node_of[static_cast<size_t>(s)]];
          const uint8_t p = lft_port(n, lid);
          if (!hop_ok(f, n, p)) break;
          const uint32_t l = link_of(s, p);
          if (l == kNoLink) break;  // down to a CA
          if (shift_load[l]++ == 0) touched.push_back(l);
          worst = std::max(worst, shift_load[l]);
          s = w.sw_of[n.ports[p].peer];
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
    r.links = w.links;
    for (size_t l = 0; l < load.size(); ++l) r.links[l].routes = load[l];
  }
  return r;
}

}  // namespace sim
