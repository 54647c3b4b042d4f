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
// Destinations x switches within which every tree is kept for rerouting passes (8 bytes an
// entry, twice with the best pass's copy: 64 MB at most; ft3-r16 with 1,344 LIDs: 430k).
constexpr uint64_t kRerouteBudget = 4'000'000;

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

// A tree per destination LID can be rerouted: LMC 0 (a port's LIDs are spread apart as they
// grow), and within the budget of kept trees.
bool reroutable(const FabricView& fv) {
  const auto dests = fv.dests();
  return std::none_of(dests.begin(), dests.end(), [](const Dest& d) { return d.lmc > 0; }) &&
         uint64_t{dests.size()} * fv.switch_count() <= kRerouteBudget;
}

// Adds (or takes out) the CA routes of one destination's tree to the channel loads.
void tree_load(const FabricView& fv, std::span<const SwIdx> head, const std::vector<uint32_t>& chan,
               const std::vector<SwIdx>& ord, std::vector<uint64_t>& flow, std::vector<uint64_t>& load, bool add) {
  for (SwIdx s : ord) flow[s] = fv.endpoints_at(s).size();
  for (size_t j = ord.size(); j-- > 1;) {  // ord[0] is the root
    const SwIdx s = ord[j];
    if (add) load[chan[s]] += flow[s];
    else load[chan[s]] -= flow[s];
    flow[head[chan[s]]] += flow[s];
  }
}

// The rerouting passes of TreeOptions::reroute_passes over the kept trees (their loads in
// `load`); rewrites the tables' entries when a pass beat the first growth, and `load` is the
// kept trees' again. Returns the pass kept (0: the first growth). Sequential: deterministic.
unsigned reroute_trees(const FabricView& fv, std::span<const uint32_t> order, const TreeOptions& opts,
                       TreeGrower& grower, std::span<const SwIdx> head, std::vector<uint64_t>& load,
                       std::vector<std::vector<uint32_t>>& chan, std::vector<std::vector<SwIdx>>& ord,
                       RoutingTables& tables) {
  const auto dests = fv.dests();
  std::vector<uint64_t> flow(fv.switch_count(), 0);
  uint64_t best = load.empty() ? 0 : *std::max_element(load.begin(), load.end());
  unsigned best_pass = 0;
  std::vector<std::vector<uint32_t>> best_chan;
  std::vector<std::vector<SwIdx>> best_ord;
  std::vector<uint64_t> best_load;
  for (unsigned pass = 1; pass <= opts.reroute_passes; ++pass) {
    for (size_t i = 0; i < order.size(); ++i) {
      const Dest& d = dests[order[i]];
      if (d.out == 0) continue;  // a switch LID carries no CA routes
      tree_load(fv, head, chan[i], ord[i], flow, load, false);
      grower.grow(d.sw, load, opts.min_hop, opts.bottleneck, chan[i], ord[i]);
      tree_load(fv, head, chan[i], ord[i], flow, load, true);
    }
    const uint64_t now = load.empty() ? 0 : *std::max_element(load.begin(), load.end());
    if (now < best) {
      best = now;
      best_pass = pass;
      best_chan = chan;
      best_ord = ord;
      best_load = load;
    }
  }
  if (best_pass == 0) return 0;
  // The first growth wrote the tables and the loads: the kept pass's replace them.
  chan = std::move(best_chan);
  ord = std::move(best_ord);
  load = std::move(best_load);
  for (size_t i = 0; i < order.size(); ++i) {
    const Dest& d = dests[order[i]];
    for (SwIdx s = 0; s < fv.switch_count(); ++s)
      if (s != d.sw && chan[i][s] != kNoTreeArc)
        tables.set(fv.node_of(s), d.lid, fv.arcs(s)[chan[i][s] - fv.arc_base(s)].port);
  }
  return best_pass;
}

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
  // Rerouting passes: every destination's tree as grown, by position in `order`.
  const bool reroute = opts.reroute_passes > 0 && k == 0 && reroutable(fv);
  std::vector<std::vector<uint32_t>> kept_chan(reroute ? order.size() : 0);
  std::vector<std::vector<SwIdx>> kept_ord(kept_chan.size());
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
      if (reroute) {
        kept_chan[start + i] = chans[i];
        kept_ord[start + i] = orders[i];
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
      tree_load(fv, head, chan, orders[i], flow, load, true);
    }
  }
  unsigned kept_pass = 0;
  if (reroute) kept_pass = reroute_trees(fv, order, opts, growers[0], head, load, kept_chan, kept_ord, tables);
  std::sort(diag.unrouted.begin(), diag.unrouted.end(), [](const UnroutedPair& a, const UnroutedPair& b) {
    return std::tie(a.from, a.lid) < std::tie(b.from, b.lid);
  });
  busiest = load.empty() ? 0 : *std::max_element(load.begin(), load.end());
  note = fmt::format("{} paths{}, {}{}, busiest channel {} CA routes", opts.min_hop ? "shortest" : "weighted",
                     opts.bottleneck ? " (least loaded busiest channel)" : "",
                     k == 0 ? std::string("a tree per destination LID") : fmt::format("{} tree(s) per switch", k),
                     reroute ? fmt::format(" (rerouting: pass {} of {} kept)", kept_pass, opts.reroute_passes) : "", busiest);
  return tables;
}

}  // namespace routing

namespace routing {

namespace {

// Destinations x channels within which the fallback tries every tree count and parent rule
// (4x4x4 torus: 123k; a 32x32 torus with 8 CAs: 37M, where one attempt takes seconds).
constexpr uint64_t kTryAllBudget = 8'000'000;
// Rerouting passes for the trees of the first attempt (a third found nothing more on the
// degraded radix-16 trees and the tori: ft3-r16-d10 dfsssp 2336 -> 2296 -> 2264 -> 2296).
constexpr unsigned kReroutePasses = 2;

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
    unsigned reroute = 0;
  };
  // Rerouted trees may close cycles the first growth did not: without the passes next.
  const unsigned passes = reroutable(*fv) ? kReroutePasses : 0;
  std::vector<Attempt> fallbacks;
  if (passes > 0) fallbacks.push_back(Attempt{0, false, false});
  const bool all = uint64_t{fv->dests().size()} * fv->arc_count() <= kTryAllBudget;
  if (all) {
    for (unsigned k : {3u, 2u, 1u})
      for (bool b : {false, true})
        if (min_hop || !b) fallbacks.push_back(Attempt{k, b, false});
  } else {
    fallbacks.push_back(Attempt{2, false, false});
    fallbacks.push_back(Attempt{1, false, false});
  }
  fallbacks.back().counts = true;

  const auto attempt = [&](const Attempt& a, uint64_t& busiest) -> mad::Result<RoutingTables> {
    std::string note;
    RoutingTables tables =
        route_trees(*fv, TreeOptions{min_hop, opts.threads, a.trees, a.bottleneck, a.reroute}, note, busiest);
    auto layers = assign_layers(*fv, tables, max_vls, opts.threads, a.counts);
    if (!layers) return std::unexpected(layers.error());
    tables.diagnostics().note_first(
        fmt::format("{}: {} VL(s) for {} routes; {}", engine, layers->layers, layers->routes, note));
    return tables;
  };
  uint64_t busiest = 0;
  auto first = attempt(Attempt{0, false, false, passes}, busiest);
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
