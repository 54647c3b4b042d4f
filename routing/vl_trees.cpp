// Destinations go in dest_rounds() order. Each depends on the loads its predecessors left,
// which makes the loop sequential (the batch below could grow trees in parallel from the same
// loads, but that spoils the balance); the layering after it collects routes in parallel.
#include "routing/vl_trees.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>

#include "routing/lmc_spread.h"
#include "routing/parallel.h"
#include "routing/vl_layers.h"

namespace routing {

namespace {

constexpr uint32_t kNoTreeArc = UINT32_MAX;

// Grows one destination's tree toward its switch: chan[s] is the arc s leaves by (kNoTreeArc
// at the root and where the tree does not reach); order lists the switches root first, each
// after the switch its arc enters.
class TreeGrower {
 public:
  TreeGrower(const FabricView& fv, std::span<const uint32_t> rev, std::span<const SwIdx> tail, uint64_t base)
      : fv_(fv), rev_(rev), tail_(tail), base_(base), seen_(fv.switch_count(), 0), dist_(fv.switch_count(), 0),
        hop_(fv.switch_count(), 0), tent_(fv.switch_count(), 0), tent_seen_(fv.switch_count(), 0) {}

  void grow(SwIdx root, std::span<const uint64_t> load, bool min_hop, bool bottleneck, std::vector<uint32_t>& chan,
            std::vector<SwIdx>& order) {
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      std::fill(tent_seen_.begin(), tent_seen_.end(), 0);
      stamp_ = 1;
    }
    chan.assign(fv_.switch_count(), kNoTreeArc);
    order.clear();
    if (min_hop) return shortest(root, load, bottleneck, chan, order);
    heap_ = {};
    heap_.emplace(0, root, kNoTreeArc);
    // tent_ holds the best tentative distance (tent_seen_ stamps it): only improvements are pushed.
    while (!heap_.empty()) {
      const auto [d, x, c] = heap_.top();
      heap_.pop();
      if (seen_[x] == stamp_) continue;
      seen_[x] = stamp_;
      chan[x] = c;
      order.push_back(x);
      for (uint32_t k = 0; k < fv_.arcs(x).size(); ++k) {
        const uint32_t in = rev_[fv_.arc_base(x) + k];  // y -> x
        const SwIdx y = tail_[in];
        if (seen_[y] == stamp_) continue;
        const uint64_t dy = d + base_ + load[in];
        // Equal distances are pushed too: the heap's (distance, switch, arc) order breaks ties.
        if (tent_seen_[y] == stamp_ && dy > tent_[y]) continue;
        tent_seen_[y] = stamp_;
        tent_[y] = dy;
        heap_.emplace(dy, y, in);
      }
    }
  }

 private:
  // Breadth first from the root; a switch takes, among its arcs one hop closer, the one with
  // the least load on the way, summed or (bottleneck) its busiest channel's (lowest arc on ties).
  void shortest(SwIdx root, std::span<const uint64_t> load, bool bottleneck, std::vector<uint32_t>& chan,
                std::vector<SwIdx>& order) {
    seen_[root] = stamp_;
    hop_[root] = 0;
    dist_[root] = 0;
    order.push_back(root);
    for (size_t i = 0; i < order.size(); ++i) {
      const SwIdx x = order[i];
      const auto arcs = fv_.arcs(x);
      if (x != root) {
        uint64_t best = UINT64_MAX;
        for (uint32_t k = 0; k < arcs.size(); ++k) {
          const SwIdx v = arcs[k].to;
          const uint32_t a = fv_.arc_base(x) + k;
          if (seen_[v] != stamp_ || hop_[v] + 1u != hop_[x]) continue;
          const uint64_t w = bottleneck ? std::max(dist_[v], load[a]) : dist_[v] + base_ + load[a];
          if (w < best) {
            best = w;
            chan[x] = a;
          }
        }
        dist_[x] = best;
      }
      for (const Arc& a : arcs) {
        if (seen_[a.to] == stamp_) continue;
        seen_[a.to] = stamp_;
        hop_[a.to] = hop_[x] + 1;
        order.push_back(a.to);
      }
    }
  }

  using Entry = std::tuple<uint64_t, SwIdx, uint32_t>;  // distance, switch, its arc
  const FabricView& fv_;
  std::span<const uint32_t> rev_;
  std::span<const SwIdx> tail_;
  const uint64_t base_;
  std::vector<uint32_t> seen_;
  std::vector<uint64_t> dist_;
  std::vector<uint32_t> hop_;
  std::vector<uint64_t> tent_;
  std::vector<uint32_t> tent_seen_;
  uint32_t stamp_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

}  // namespace

RoutingTables route_trees(const FabricView& fv, const TreeOptions& opts, std::string& note, uint64_t& busiest) {
  const size_t n = fv.switch_count();
  const ArcEnds ends = arc_ends(fv);
  const std::vector<uint32_t>& rev = ends.rev;
  const std::vector<SwIdx>& tail = ends.tail;
  const std::vector<SwIdx>& head = ends.head;
  const std::vector<uint32_t> order = dest_rounds(fv);
  // Trees grown side by side from the same loads herd onto the same links (a batch of 10 on
  // ft3-r16: 7680 routes on the busiest link, 1640 one at a time): one at a time.
  const size_t batch = 1;
  const unsigned workers = worker_count(batch, opts.threads);
  std::vector<TreeGrower> growers;
  for (unsigned w = 0; w < workers; ++w) growers.emplace_back(fv, rev, tail, 1);
  std::vector<std::vector<uint32_t>> chans(batch);
  std::vector<std::vector<SwIdx>> orders(batch);
  std::vector<uint64_t> load(fv.arc_count(), 0), flow(n, 0);

  // With trees_per_switch k: the tree of each destination is its switch's tree number
  // (its port's rank on the switch) mod k; a switch LID takes tree 0.
  const size_t k = opts.trees_per_switch;
  std::vector<size_t> key(order.size(), 0);
  std::vector<std::vector<uint32_t>> tree_chan(k == 0 ? 0 : n * k);
  std::vector<std::vector<SwIdx>> tree_ord(tree_chan.size());
  if (k != 0) {
    std::vector<size_t> seen(n, 0);
    for (size_t i = 0; i < order.size(); ++i) {
      const Dest& d = fv.dests()[order[i]];
      key[i] = d.sw * k + (d.out == 0 ? 0 : seen[d.sw]++ % k);
    }
  }
  RoutingTables tables(fv.topo(), fv.max_lid());
  RoutingDiagnostics& diag = tables.diagnostics();
  // LMC > 0: the trees of a port's earlier LIDs; the arcs lmc_avoid_arcs() names weigh
  // `spread_penalty` more (more than the busiest channel) for its next LID.
  std::map<std::pair<fabric::NodeId, uint8_t>, std::vector<std::vector<uint32_t>>> port_trees;
  uint64_t spread_penalty = 0;
  std::vector<uint32_t> penalised;
  for (size_t start = 0; start < order.size(); start += batch) {
    const size_t m = std::min(batch, order.size() - start);
    std::vector<std::vector<uint32_t>>* earlier = nullptr;
    if (k == 0 && batch == 1) {
      const Dest& d0 = fv.dests()[order[start]];
      if (d0.lmc > 0 && d0.out != 0) {
        earlier = &port_trees[{d0.node, d0.node_port.value()}];
        std::vector<std::span<const uint32_t>> prev(earlier->begin(), earlier->end());
        penalised = lmc_avoid_arcs(fv, d0.sw, prev, kNoTreeArc);
        // More than any difference of load: another way wins whatever the loads.
        spread_penalty = (load.empty() ? 0 : *std::max_element(load.begin(), load.end())) + fv.endpoints().size() + 1;
        for (uint32_t arc : penalised) load[arc] += spread_penalty;
      }
    }
    parallel_for(
        m, opts.threads,
        [&](size_t i, unsigned w) {
          if (k != 0 && !tree_chan[key[start + i]].empty()) return;  // grown already
          growers[w].grow(fv.dests()[order[start + i]].sw, load, opts.min_hop, opts.bottleneck, chans[i], orders[i]);
        },
        1);
    if (earlier) {
      for (uint32_t a : penalised) load[a] -= spread_penalty;
      earlier->push_back(chans[0]);
      if (earlier->size() >= (size_t{1} << fv.dests()[order[start]].lmc)) earlier->clear();  // its last LID
    }
    for (size_t i = 0; i < m; ++i) {
      const Dest& d = fv.dests()[order[start + i]];
      if (k != 0) {  // the first destination of its key grew the tree; the others share it
        const size_t t = key[start + i];
        if (tree_chan[t].empty()) {
          tree_chan[t] = chans[i];
          tree_ord[t] = orders[i];
        }
        chans[i] = tree_chan[t];
        orders[i] = tree_ord[t];
      }
      const std::vector<uint32_t>& chan = chans[i];
      for (SwIdx s = 0; s < n; ++s) {
        const fabric::NodeId node = fv.node_of(s);
        if (s == d.sw) {
          tables.set(node, d.lid, d.out);
        } else if (chan[s] != kNoTreeArc) {
          tables.set(node, d.lid, fv.arcs(s)[chan[s] - fv.arc_base(s)].port);
        } else if (d.path == 0) {
          ++diag.unrouted_pairs;
          if (!fv.topo().node(d.node).is_switch()) diag.unrouted_ca_pairs += fv.endpoints_at(s).size();
          if (diag.unrouted.size() < RoutingDiagnostics::kMaxListed)
            diag.unrouted.push_back(UnroutedPair{node, d.node, d.node_port, d.lid});
        }
      }
      if (d.out == 0) continue;  // a switch LID: management traffic, no load
      const std::vector<SwIdx>& ord = orders[i];
      for (SwIdx s : ord) flow[s] = fv.endpoints_at(s).size();
      for (size_t j = ord.size(); j-- > 1;) {  // ord[0] is the root
        const SwIdx s = ord[j];
        load[chan[s]] += flow[s];
        flow[head[chan[s]]] += flow[s];
      }
    }
  }
  std::sort(diag.unrouted.begin(), diag.unrouted.end(), [](const UnroutedPair& a, const UnroutedPair& b) {
    return std::tie(a.from, a.lid) < std::tie(b.from, b.lid);
  });
  busiest = load.empty() ? 0 : *std::max_element(load.begin(), load.end());
  note = fmt::format("{} paths{}, {}, busiest channel {} CA routes", opts.min_hop ? "shortest" : "weighted",
                     opts.bottleneck ? " (least loaded busiest channel)" : "",
                     k == 0 ? std::string("a tree per destination LID") : fmt::format("{} tree(s) per switch", k), busiest);
  return tables;
}

}  // namespace routing

namespace routing {

namespace {

// Destinations x channels within which the fallback tries every tree count and parent rule
// (4x4x4 torus: 123k; a 32x32 torus with 8 CAs: 37M, where one attempt takes seconds).
constexpr uint64_t kTryAllBudget = 8'000'000;

}  // namespace

mad::Result<RoutingTables> route_layered(const fabric::Topology& topo, const RoutingOptions& opts, bool min_hop,
                                         std::string_view engine) {
  auto fv = FabricView::build(topo);
  if (!fv) return std::unexpected(fv.error());
  const unsigned max_vls = std::clamp(opts.max_vls, 1u, kMaxDataVls);
  struct Attempt {
    unsigned trees;
    bool bottleneck;
    bool counts;  // the last: its error says how many VLs it needs
  };
  std::vector<Attempt> fallbacks;
  const bool all = uint64_t{fv->dests().size()} * fv->arc_count() <= kTryAllBudget;
  if (all) {
    for (unsigned k : {3u, 2u, 1u})
      for (bool b : {false, true})
        if (min_hop || !b) fallbacks.push_back(Attempt{k, b, false});
  } else {
    fallbacks = {Attempt{2, false, false}, Attempt{1, false, false}};
  }
  fallbacks.back().counts = true;

  const auto attempt = [&](const Attempt& a, uint64_t& busiest) -> mad::Result<RoutingTables> {
    std::string note;
    RoutingTables tables =
        route_trees(*fv, TreeOptions{min_hop, opts.threads, a.trees, a.bottleneck}, note, busiest);
    auto layers = assign_layers(*fv, tables, max_vls, opts.threads, a.counts);
    if (!layers) return std::unexpected(layers.error());
    tables.diagnostics().note_first(
        fmt::format("{}: {} VL(s) for {} routes; {}", engine, layers->layers, layers->routes, note));
    return tables;
  };
  uint64_t busiest = 0;
  auto first = attempt(Attempt{0, false, false}, busiest);
  if (first) return first;
  mad::Error last = first.error();
  std::optional<RoutingTables> best;
  uint64_t best_load = UINT64_MAX;
  for (const Attempt& a : fallbacks) {
    auto t = attempt(a, busiest);
    if (!t) {
      last = t.error();
      continue;
    }
    if (!all) return t;
    // Least loaded busiest channel, then fewer VLs, then the earlier attempt.
    if (!best || busiest < best_load || (busiest == best_load && t->vls_used() < best->vls_used())) {
      best_load = busiest;
      best = std::move(*t);
    }
  }
  if (best) return std::move(*best);
  return std::unexpected(last);
}

}  // namespace routing
