#include "fabric/cut_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_set>

namespace fabric::cuts {

namespace {

constexpr uint32_t kUnreached = UINT32_MAX;
constexpr int64_t kFarKey = int64_t{1} << 40;  // a switch the seed does not reach: grown last
constexpr size_t kNeighbourSeeds = 8;  // neighbour pairs per seed (a 3-D torus has 6)
constexpr size_t kRefined = 4;         // grown cuts refined, of the best and of the halves
constexpr int kPasses = 4;             // refinement passes at most

// Switch hops from the nearest of `from`; kUnreached where there is no way.
std::vector<uint32_t> hops_from(const SwitchGraph& g, std::span<const uint32_t> from) {
  std::vector<uint32_t> d(g.size(), kUnreached);
  std::vector<uint32_t> q(from.begin(), from.end());
  for (uint32_t s : q) d[s] = 0;
  for (size_t h = 0; h < q.size(); ++h) {
    const uint32_t s = q[h];
    for (uint32_t e = g.adj_begin[s]; e < g.adj_begin[s + 1]; ++e)
      if (d[g.adj[e]] == kUnreached) {
        d[g.adj[e]] = d[s] + 1;
        q.push_back(g.adj[e]);
      }
  }
  return d;
}
std::vector<uint32_t> hops_from(const SwitchGraph& g, uint32_t from) {
  return hops_from(g, std::span<const uint32_t>(&from, 1));
}

uint32_t farthest_of(const std::vector<uint32_t>& d, uint32_t from) {
  uint32_t best = from;
  for (uint32_t s = 0; s < d.size(); ++s)
    if (d[s] != kUnreached && d[s] > d[best]) best = s;
  return best;
}

int64_t cables_of(const SwitchGraph& g, uint32_t s) {
  int64_t n = 0;
  for (uint32_t e = g.adj_begin[s]; e < g.adj_begin[s + 1]; ++e) n += g.cables[e];
  return n;
}

// n (N - n) / c, the all-to-all bound before rounding; -1 for none.
double cut_ratio(uint64_t n, uint64_t total, int64_t c) {
  if (n == 0 || n >= total || c <= 0) return -1;
  return static_cast<double>(n) * static_cast<double>(total - n) / static_cast<double>(c);
}

uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The cuts found so far, each once: a set is known by the xor of its switches' codes, and a
// set and its complement by the smaller of the two (a 64-bit collision could only drop a cut).
class CutList {
 public:
  explicit CutList(const SwitchGraph& g) : g_(g), code_(g.size()) {
    for (uint32_t s = 0; s < g.size(); ++s) all_ ^= code_[s] = mix64(s);
  }
  void add(std::vector<uint32_t> members, std::string what) {
    uint64_t n = 0, h = 0;
    for (uint32_t s : members) {
      n += g_.cas[s];
      h ^= code_[s];
    }
    if (n == 0 || n >= g_.total_cas) return;  // no CA on one side: no flow crosses
    if (!seen_.insert(std::min(h, h ^ all_)).second) return;
    std::sort(members.begin(), members.end());
    cuts_.push_back(Cut{std::move(members), std::move(what)});
  }
  void add_side(const std::vector<uint8_t>& side, std::string what) {
    std::vector<uint32_t> members;
    for (uint32_t s = 0; s < side.size(); ++s)
      if (side[s]) members.push_back(s);
    add(std::move(members), std::move(what));
  }
  std::vector<Cut> take() && { return std::move(cuts_); }

 private:
  const SwitchGraph& g_;
  std::vector<uint64_t> code_;
  uint64_t all_ = 0;
  std::unordered_set<uint64_t> seen_;
  std::vector<Cut> cuts_;
};

// The groups left when the switches `t` hops or more from every CA are taken away.
void tier_cuts(const SwitchGraph& g, CutList& out) {
  std::vector<uint32_t> leaves;
  for (uint32_t s = 0; s < g.size(); ++s)
    if (g.cas[s]) leaves.push_back(s);
  const std::vector<uint32_t> tier = hops_from(g, leaves);
  uint32_t top = 0;
  for (uint32_t t : tier)
    if (t != kUnreached) top = std::max(top, t);
  std::vector<uint32_t> group(g.size());
  std::vector<uint32_t> queue;
  for (uint32_t t = 1; t <= top; ++t) {
    std::fill(group.begin(), group.end(), kUnreached);
    size_t number = 0;
    for (uint32_t s0 = 0; s0 < g.size(); ++s0) {
      if (tier[s0] >= t || group[s0] != kUnreached) continue;
      queue.assign(1, s0);
      group[s0] = 0;
      for (size_t h = 0; h < queue.size(); ++h)
        for (uint32_t e = g.adj_begin[queue[h]]; e < g.adj_begin[queue[h] + 1]; ++e) {
          const uint32_t u = g.adj[e];
          if (tier[u] < t && group[u] == kUnreached) {
            group[u] = 0;
            queue.push_back(u);
          }
        }
      out.add(queue, t == top ? fmt::format("pod {}", number) : fmt::format("subtree {} below tier {}", number, t));
      ++number;
    }
  }
}

// One growth order: the switches by `key`, then by the most cables into the set grown so far,
// then by number; of its prefixes, the one with the best all-to-all ratio and the first that
// holds half the CAs.
struct Growth {
  std::vector<uint32_t> order;
  size_t best = 0;
  double best_ratio = -1;
  size_t half = 0;
  double half_ratio = -1;
};

Growth grow(const SwitchGraph& g, const std::vector<int64_t>& key) {
  Growth out;
  std::vector<int64_t> into(g.size(), 0);
  std::vector<uint8_t> in(g.size(), 0);
  using Entry = std::tuple<int64_t, int64_t, uint32_t>;  // key, -cables into the set, switch
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
  for (uint32_t s = 0; s < g.size(); ++s) heap.emplace(key[s], 0, s);
  uint64_t n = 0;
  int64_t c = 0;
  while (!heap.empty()) {
    const auto [k, minus_into, s] = heap.top();
    heap.pop();
    if (in[s] || -minus_into != into[s]) continue;  // taken, or a stale entry
    in[s] = 1;
    out.order.push_back(s);
    n += g.cas[s];
    c += cables_of(g, s) - 2 * into[s];
    for (uint32_t e = g.adj_begin[s]; e < g.adj_begin[s + 1]; ++e) {
      const uint32_t u = g.adj[e];
      if (in[u]) continue;
      into[u] += g.cables[e];
      heap.emplace(key[u], -into[u], u);
    }
    const double r = cut_ratio(n, g.total_cas, c);
    if (r > out.best_ratio) {
      out.best_ratio = r;
      out.best = out.order.size();
    }
    if (!out.half && 2 * n >= g.total_cas) {
      out.half = out.order.size();
      out.half_ratio = r;
    }
  }
  return out;
}

std::vector<uint8_t> prefix_side(const SwitchGraph& g, const Growth& grown, size_t len) {
  std::vector<uint8_t> side(g.size(), 0);
  for (size_t i = 0; i < len; ++i) side[grown.order[i]] = 1;
  return side;
}

// Fiduccia-Mattheyses passes on n (N - n) / c: a pass moves each switch at most once, always
// the move that leaves the best ratio (a worse one too, to get out of a local optimum), and
// keeps the best prefix of its moves; it stops early after `stall` moves without a gain.
// Switches that move the same CAs from the same side form a class, in which the best move is
// the one that leaves the fewest channels: per class an ordered set by that change.
std::vector<uint8_t> refine(const SwitchGraph& g, std::vector<uint8_t> side) {
  const size_t S = g.size();
  std::vector<uint32_t> values(g.cas);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<uint32_t> ca_class(S);
  for (uint32_t s = 0; s < S; ++s)
    ca_class[s] = static_cast<uint32_t>(std::lower_bound(values.begin(), values.end(), g.cas[s]) - values.begin());
  const size_t stall = 64 + S / 16;
  std::vector<int64_t> same(S), other(S);  // cables to the switch's own side, to the other
  std::vector<uint8_t> locked(S);
  std::vector<uint32_t> moves;
  using Bucket = std::set<std::pair<int64_t, uint32_t>>;  // (change in c, switch)
  std::vector<Bucket> bucket(2 * values.size());
  const auto cls = [&](uint32_t s) { return 2 * ca_class[s] + side[s]; };
  const auto gain_key = [&](uint32_t s) { return std::pair<int64_t, uint32_t>(same[s] - other[s], s); };
  for (int pass = 0; pass < kPasses; ++pass) {
    uint64_t n = 0;
    int64_t c = 0;
    for (Bucket& b : bucket) b.clear();
    for (uint32_t s = 0; s < S; ++s) {
      same[s] = other[s] = 0;
      for (uint32_t e = g.adj_begin[s]; e < g.adj_begin[s + 1]; ++e)
        (side[g.adj[e]] == side[s] ? same : other)[s] += g.cables[e];
      if (side[s]) {
        n += g.cas[s];
        c += other[s];
      }
      bucket[cls(s)].insert(gain_key(s));
    }
    std::fill(locked.begin(), locked.end(), 0);
    moves.clear();
    double best = cut_ratio(n, g.total_cas, c);
    size_t best_len = 0;
    while (true) {
      uint32_t pick = kUnreached;
      double pick_ratio = -1;
      for (const Bucket& b : bucket) {
        if (b.empty()) continue;
        const auto [dc, s] = *b.begin();
        const double r = cut_ratio(side[s] ? n - g.cas[s] : n + g.cas[s], g.total_cas, c + dc);
        if (r > pick_ratio) {
          pick_ratio = r;
          pick = s;
        }
      }
      if (pick == kUnreached) break;  // no move leaves a cut that bounds anything
      const uint32_t s = pick;
      bucket[cls(s)].erase(gain_key(s));
      locked[s] = 1;
      n = side[s] ? n - g.cas[s] : n + g.cas[s];
      c += same[s] - other[s];
      side[s] ^= 1;
      std::swap(same[s], other[s]);
      for (uint32_t e = g.adj_begin[s]; e < g.adj_begin[s + 1]; ++e) {
        const uint32_t u = g.adj[e];
        if (u == s) continue;
        if (!locked[u]) bucket[cls(u)].erase(gain_key(u));
        const int64_t w = g.cables[e];
        if (side[u] == side[s]) {
          same[u] += w;
          other[u] -= w;
        } else {
          same[u] -= w;
          other[u] += w;
        }
        if (!locked[u]) bucket[cls(u)].insert(gain_key(u));
      }
      moves.push_back(s);
      if (pick_ratio > best) {
        best = pick_ratio;
        best_len = moves.size();
      } else if (moves.size() - best_len > stall) {
        break;
      }
    }
    for (size_t i = moves.size(); i-- > best_len;) side[moves[i]] ^= 1;
    if (best_len == 0) break;
  }
  return side;
}

std::string grown_name(const SwitchGraph& g, const std::vector<uint8_t>& side) {
  uint64_t n = 0, switches = 0;
  for (uint32_t s = 0; s < side.size(); ++s)
    if (side[s]) {
      n += g.cas[s];
      ++switches;
    }
  const bool balanced = 4 * std::min(n, g.total_cas - n) >= g.total_cas;
  return fmt::format("{} of {} switches", balanced ? "bisection" : "region", switches);
}

// The seeds: a centre and both ends of a long path (a double sweep from the first switch with
// CAs), each once.
std::vector<uint32_t> seeds_of(const SwitchGraph& g) {
  uint32_t first = kUnreached;
  for (uint32_t s = 0; s < g.size() && first == kUnreached; ++s)
    if (g.cas[s]) first = s;
  if (first == kUnreached) return {};
  const uint32_t p = farthest_of(hops_from(g, first), first);
  const std::vector<uint32_t> dp = hops_from(g, p);
  const uint32_t q = farthest_of(dp, p);
  const std::vector<uint32_t> dq = hops_from(g, q);
  uint32_t centre = p;
  const auto rank = [&](uint32_t s) { return std::pair(std::max(dp[s], dq[s]), dp[s] > dq[s] ? dp[s] - dq[s] : dq[s] - dp[s]); };
  for (uint32_t s = 0; s < g.size(); ++s)
    if (dp[s] != kUnreached && dq[s] != kUnreached && rank(s) < rank(centre)) centre = s;
  std::vector<uint32_t> seeds{centre};
  for (uint32_t s : {p, q})
    if (std::find(seeds.begin(), seeds.end(), s) == seeds.end()) seeds.push_back(s);
  return seeds;
}

// a - b, or far when either is unreached.
std::vector<int64_t> key_less(const std::vector<uint32_t>& a, const std::vector<uint32_t>* b) {
  std::vector<int64_t> key(a.size());
  for (size_t s = 0; s < a.size(); ++s)
    key[s] = a[s] == kUnreached || (b && (*b)[s] == kUnreached)
                 ? kFarKey
                 : static_cast<int64_t>(a[s]) - (b ? static_cast<int64_t>((*b)[s]) : 0);
  return key;
}

void grown_cuts(const SwitchGraph& g, CutList& out) {
  struct Found {
    double ratio;
    std::vector<uint8_t> side;
  };
  std::vector<Found> best, halves;
  const auto keep = [&](const std::vector<int64_t>& key) {
    const Growth grown = grow(g, key);
    if (grown.best) best.push_back(Found{grown.best_ratio, prefix_side(g, grown, grown.best)});
    if (grown.half && grown.half_ratio > 0) halves.push_back(Found{grown.half_ratio, prefix_side(g, grown, grown.half)});
  };
  for (uint32_t a : seeds_of(g)) {
    const std::vector<uint32_t> da = hops_from(g, a);
    keep(key_less(da, nullptr));  // a ball around the seed
    const std::vector<uint32_t> far = hops_from(g, farthest_of(da, a));
    keep(key_less(da, &far));     // the seed's side against the far end's
    for (uint32_t e = g.adj_begin[a]; e < g.adj_begin[a + 1] && e - g.adj_begin[a] < kNeighbourSeeds; ++e) {
      if (g.adj[e] == a) continue;
      const std::vector<uint32_t> du = hops_from(g, g.adj[e]);
      keep(key_less(da, &du));    // halves along the direction of one cable
    }
  }
  // The best ones refined (a stable order: equal ratios keep the order they were found in).
  for (std::vector<Found>* found : {&best, &halves}) {
    std::stable_sort(found->begin(), found->end(), [](const Found& x, const Found& y) { return x.ratio > y.ratio; });
    for (size_t i = 0; i < found->size(); ++i) {
      Found& f = (*found)[i];
      out.add_side(f.side, grown_name(g, f.side));
      if (i < kRefined) {
        std::vector<uint8_t> side = refine(g, f.side);
        out.add_side(side, grown_name(g, side));
      }
    }
  }
}

}  // namespace

SwitchGraph switch_graph(const Topology& topo, const Wiring& w) {
  SwitchGraph g;
  const size_t S = w.node_of.size();
  g.cas.assign(S, 0);
  g.first_ca.assign(S, 0);
  for (uint32_t i = 0; i < w.cas.size(); ++i)
    if (g.cas[w.cas[i].leaf]++ == 0) g.first_ca[w.cas[i].leaf] = i;
  g.total_cas = w.cas.size();
  std::vector<uint32_t> far;
  g.adj_begin.push_back(0);
  for (uint32_t s = 0; s < S; ++s) {
    g.name.push_back(topo.node(w.node_of[s]).description);
    far.clear();
    for (uint8_t p = 1; p <= w.port_count[s]; ++p) {
      const Slot* sl = w.slot(s, p);
      if (sl->link != kNoWire && sl->to != s) far.push_back(sl->to);
      if (p == UINT8_MAX) break;
    }
    std::sort(far.begin(), far.end());
    for (size_t i = 0; i < far.size(); ++i) {
      if (i == 0 || far[i] != far[i - 1]) {
        g.adj.push_back(far[i]);
        g.cables.push_back(0);
      }
      ++g.cables.back();
    }
    g.adj_begin.push_back(static_cast<uint32_t>(g.adj.size()));
  }
  return g;
}

std::vector<Cut> candidate_cuts(const SwitchGraph& g) {
  CutList out(g);
  for (uint32_t s = 0; s < g.size(); ++s)
    if (g.cas[s]) out.add({s}, "leaf " + g.name[s]);
  tier_cuts(g, out);
  grown_cuts(g, out);
  return std::move(out).take();
}

}  // namespace fabric::cuts
