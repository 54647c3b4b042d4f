// cdg: routing on the channel dependency graph, after Nue (Domke, Hoefler and Matsuoka, "Routing
// on the Dependency Graph: A New Approach to Deadlock-Free High-Performance Routing", HPDC
// 2016), on one VL.
//
// One global CDG (cdg_order.h) holds every dependency the routes use and stays acyclic, so the
// tables are deadlock-free on any topology. Destinations are routed one at a time: from the
// destination's switch, a Dijkstra over reversed channels grows its routing tree; a switch x
// joins by the channel c = x -> v only when v is in the tree already and the dependency
// c -> (v's channel) is in the CDG or can be added without closing a cycle. Channel weights
// are a base cost plus the routes placed on them so far, so later destinations go round the
// loaded links (the balance comes from there, not from a final fill).
//
// Escape paths make sure every pair is routed, in one of two kinds whose dependencies are
// in the CDG from the start: a spanning tree of the switches (BFS from the up/down roots of
// roots.h; a tree has no cycle without a U-turn), or up*/down* routes from those roots. When
// the Dijkstra cannot reach every switch of the component (an impasse), the switches left take
// their escape paths to where they meet the tree (one junction dependency checked), or, if that
// closes a cycle, the whole destination takes them. Up*/down* escape paths have no legal path
// from some spines of a degraded tree: entries no CA's packet takes (a CA-less switch's own,
// routes to switch LIDs) then take the shortest path, as updn's fallback does (updown.h).
//
// Attempts: both kinds of escape paths (the spanning tree leaves the Dijkstra more freedom:
// tori, HyperX; up*/down* spreads better where the tree's single paths pile up: fat trees,
// random graphs, Dragonfly), each with three base weights of an empty channel (1: routes spread
// over longer paths; 128: they stay short), five prices on a dependency the CDG does not hold
// yet, and the destinations of each round in switch or in scattered order: 60 starting points,
// side by side on the threads, because the search is chaotic (one early route decides which
// dependencies later ones find); kept: fewest pairs unrouted, then the lightest busiest
// channel. The best four are routed again with rerouting passes (rip-up and reroute: each
// destination's tree is taken out, its dependencies released where no other tree holds them,
// and routed again over everyone else's loads; the pass with the lightest busiest channel is
// kept). A work budget (destinations x channels) limits the extra attempts and passes to small
// fabrics.
//
// Destinations go in rounds (the first CA of every switch, then the second, ...), CA LIDs
// before switch LIDs (these carry management traffic only, and add no load). The CDG is
// shared state, so the destinations of one attempt run one after another: deterministic, but
// sequential; the attempts and the root choice (eccentricities) are parallel.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>
#include <tuple>

#include "routing/cdg_order.h"
#include "routing/engines.h"
#include "routing/lmc_spread.h"
#include "routing/parallel.h"
#include "routing/roots.h"
#include "routing/updown.h"

namespace routing {

namespace {

constexpr uint32_t kNone = UINT32_MAX;
// Rerouting passes of the best attempts, and the work (destinations x channels) the attempts
// and passes together may take: the 8x8 torus gets all 60 attempts and three passes for the
// best four, the 64-switch random graph 33 and the same passes, a 1k-CA fat tree or a
// 1,000-switch torus the two base-1 attempts only.
constexpr unsigned kReroutePasses = 3;
constexpr size_t kRerouted = 4;  // the best attempts that get them
constexpr uint64_t kWorkBudget = 8'000'000;

// Tree arcs (BFS from the roots, then from any switch left, so it spans every component).
std::vector<uint8_t> spanning_tree(const FabricView& fv, const ChannelOrder& cdg,
                                   std::span<const SwIdx> roots, std::vector<uint32_t>& comp) {
  const size_t n = fv.switch_count();
  std::vector<uint8_t> tree(fv.arc_count(), 0);
  comp.assign(n, kNone);
  std::vector<SwIdx> queue;
  std::vector<SwIdx> starts(roots.begin(), roots.end());
  for (SwIdx s = 0; s < n; ++s) starts.push_back(s);
  for (SwIdx r : starts) {
    if (comp[r] != kNone) continue;
    comp[r] = r;
    queue.assign(1, r);
    for (size_t i = 0; i < queue.size(); ++i) {
      const SwIdx s = queue[i];
      for (uint32_t k = 0; k < fv.arcs(s).size(); ++k) {
        const uint32_t a = fv.arc_base(s) + k;
        const SwIdx t = fv.arcs(s)[k].to;
        if (comp[t] != kNone) continue;
        comp[t] = r;
        tree[a] = tree[cdg.reverse(a)] = 1;
        queue.push_back(t);
      }
    }
  }
  return tree;
}

// The first port of s on a shortest path to t (0: none); `dist` holds t's hop counts once
// computed (cleared for each destination).
uint8_t shortest_port(const FabricView& fv, SwIdx t, SwIdx s, std::vector<int32_t>& dist, std::vector<SwIdx>& queue) {
  if (dist.empty()) {
    dist.assign(fv.switch_count(), -1);
    dist[t] = 0;
    queue.assign(1, t);
    for (size_t i = 0; i < queue.size(); ++i)
      for (const auto& a : fv.arcs(queue[i]))
        if (dist[a.to] < 0) {
          dist[a.to] = dist[queue[i]] + 1;
          queue.push_back(a.to);
        }
  }
  if (dist[s] <= 0) return 0;
  for (const auto& a : fv.arcs(s))
    if (dist[a.to] == dist[s] - 1) return a.port;
  return 0;
}

class Router {
 public:
  Router(const FabricView& fv, ChannelOrder& cdg, std::span<const uint8_t> tree,
         std::span<const uint32_t> comp, uint64_t base, uint64_t fresh, const Orientation* orient,
         const UpDownCosts* costs)
      : fv_(fv), cdg_(cdg), tree_(tree), comp_(comp), orient_(orient), costs_(costs), base_(base), fresh_(fresh),
        n_(fv.switch_count()),
        load_(fv.arc_count(), 0), chan_(n_, kNone), seen_(n_, 0), cas_(n_, 0), flow_(n_, 0) {
    for (SwIdx s = 0; s < n_; ++s) {
      cas_[s] = fv.endpoints_at(s).size();
      ++comp_size_[comp[s]];
    }
  }

  // Routes to switch t; chan()[s] is then the channel s leaves by (kNone at t and outside
  // t's component). Adds the routes of every CA to the loads when `traffic`.
  void route(SwIdx t, bool traffic) {
    if (++stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      stamp_ = 1;
    }
    order_.clear();
    if (!dijkstra(t)) {
      if (attach(t)) {
        ++partial_;
      } else {
        for (auto [c, d] : added_) cdg_.remove(c, d);
        ++impasses_;
        escape(t);
      }
    }
    if (!traffic) return;
    for (SwIdx s : order_) flow_[s] = cas_[s];
    for (size_t i = order_.size(); i-- > 1;) {  // order_[0] is t
      const SwIdx s = order_[i];
      load_[chan_[s]] += flow_[s];
      flow_[cdg_.head(chan_[s])] += flow_[s];
    }
  }
  // A destination's routing tree as routed: the channel every switch leaves by (kNone at the
  // destination and where it was not reached) and the order they joined in (destination first).
  struct Tree {
    std::vector<uint32_t> chan;
    std::vector<SwIdx> order;
    bool traffic = false;
  };
  // The tree just routed, its dependencies held in the CDG (hold()) so that a later pass can
  // take it out again.
  Tree keep(bool traffic) {
    Tree tr{std::vector<uint32_t>(n_, kNone), order_, traffic};
    for (SwIdx s : order_) tr.chan[s] = chan_[s];
    for (size_t i = 1; i < order_.size(); ++i) {
      const uint32_t c = chan_[order_[i]], next = chan_[cdg_.head(c)];
      if (next != kNone) cdg_.hold(c, next);
    }
    return tr;
  }
  // Takes a kept tree out: its loads, and the dependencies no other tree uses.
  void rip(const Tree& tr) {
    for (size_t i = 1; i < tr.order.size(); ++i) {
      const uint32_t c = tr.chan[tr.order[i]], next = tr.chan[cdg_.head(c)];
      if (next != kNone) cdg_.release(c, next);
    }
    if (!tr.traffic) return;
    for (SwIdx s : tr.order) flow_[s] = cas_[s];
    for (size_t i = tr.order.size(); i-- > 1;) {
      const SwIdx s = tr.order[i];
      load_[tr.chan[s]] -= flow_[s];
      flow_[cdg_.head(tr.chan[s])] += flow_[s];
    }
  }
  std::span<const uint32_t> chan() const { return chan_; }
  bool reached(SwIdx s) const { return seen_[s] == stamp_; }
  uint64_t impasses() const { return impasses_; }
  uint64_t max_load() const { return load_.empty() ? 0 : *std::max_element(load_.begin(), load_.end()); }
  uint64_t partial() const { return partial_; }
  // Extra weight on `arcs` for the next route() (LMC spread, routing/lmc_spread.h); none: cleared.
  void avoid(std::span<const uint32_t> arcs, uint64_t w) {
    if (!extra_.empty()) std::fill(extra_.begin(), extra_.end(), 0);
    if (arcs.empty()) return;
    extra_.resize(load_.size(), 0);
    for (uint32_t c : arcs) extra_[c] += w;
  }

 private:
  uint64_t weight(uint32_t c) const { return base_ + load_[c] + (extra_.empty() ? 0 : extra_[c]); }
  using Entry = std::tuple<uint64_t, SwIdx, uint32_t>;  // distance, switch, its channel

  void settle(SwIdx x, uint32_t c, uint64_t d) {
    seen_[x] = stamp_;
    chan_[x] = c;
    order_.push_back(x);
    for (uint32_t k = 0; k < fv_.arcs(x).size(); ++k) {
      const uint32_t in = cdg_.reverse(fv_.arc_base(x) + k);  // y -> x
      const SwIdx y = cdg_.tail(in);
      // A dependency not in the CDG yet costs `fresh_` more: routes that reuse dependencies
      // leave later destinations more room.
      if (seen_[y] != stamp_) heap_.emplace(d + weight(in) + (c != kNone && !cdg_.has(in, c) ? fresh_ : 0), y, in);
    }
  }

  bool dijkstra(SwIdx t) {
    added_.clear();
    heap_ = {};
    settle(t, kNone, 0);
    while (!heap_.empty()) {
      const auto [d, x, c] = heap_.top();
      heap_.pop();
      if (seen_[x] == stamp_) continue;
      const uint32_t next = chan_[cdg_.head(c)];
      if (next != kNone) {
        bool added = false;
        if (!cdg_.add(c, next, &added)) continue;
        if (added) added_.emplace_back(c, next);
      }
      settle(x, c, d);
    }
    return order_.size() == comp_size_[comp_[t]];
  }

  // After an impasse: the switches the tree did not reach take their escape paths, which
  // join the tree where they first meet it. Only that junction's dependency is new (the rest
  // are escape dependencies, in the CDG from the start); false when one closes a cycle.
  bool attach(SwIdx t) {
    dj_chan_.resize(n_);
    esc_chan_.resize(n_);
    dj_mark_.resize(n_);
    ++dj_stamp_;
    dj_order_ = order_;
    for (SwIdx s : dj_order_) {
      dj_chan_[s] = chan_[s];
      dj_mark_[s] = dj_stamp_;
    }
    escape(t);
    esc_order_ = order_;
    for (SwIdx s : esc_order_) esc_chan_[s] = chan_[s];
    ++stamp_;
    order_.clear();
    for (SwIdx s : dj_order_) {
      seen_[s] = stamp_;
      chan_[s] = dj_chan_[s];
      order_.push_back(s);
    }
    for (SwIdx s : esc_order_) {
      if (dj_mark_[s] == dj_stamp_) continue;
      const uint32_t c = esc_chan_[s];
      const SwIdx e = cdg_.head(c);
      if (dj_mark_[e] == dj_stamp_ && chan_[e] != kNone) {
        bool added = false;
        if (!cdg_.add(c, chan_[e], &added)) return false;
        if (added) added_.emplace_back(c, chan_[e]);
      }
      seen_[s] = stamp_;
      chan_[s] = c;
      order_.push_back(s);
    }
    return true;
  }

  // The up*/down* paths toward t (updown.h's rule: a switch that reaches t going only down
  // goes down, the others up, one hop closer; lowest arc on ties).
  void escape_updown(SwIdx t) {
    const auto row = costs_->row(t);
    std::vector<std::vector<SwIdx>>& by_hops = by_hops_;
    for (auto& b : by_hops) b.clear();
    for (SwIdx s = 0; s < n_; ++s) {
      const uint16_t c = row[s];
      if (s == t || c == UpDownCosts::kFar) continue;
      const uint16_t h = UpDownCosts::hops(c);
      const bool down = UpDownCosts::down(c);
      for (uint32_t k = 0; k < fv_.arcs(s).size(); ++k) {
        const SwIdx v = fv_.arcs(s)[k].to;
        const uint16_t cv = row[v];
        const bool ok = down ? !orient_->up(s, v) && cv == (UpDownCosts::kDown | (h - 1))
                             : orient_->up(s, v) && UpDownCosts::hops(cv) == h - 1;
        if (!ok) continue;
        chan_[s] = fv_.arc_base(s) + k;
        seen_[s] = stamp_;
        if (by_hops.size() <= h) by_hops.resize(h + 1u);
        by_hops[h].push_back(s);
        break;
      }
    }
    for (const auto& b : by_hops) order_.insert(order_.end(), b.begin(), b.end());
  }

  // The tree paths toward t: a BFS from t over the tree arcs.
  void escape(SwIdx t) {
    ++stamp_;
    order_.clear();
    seen_[t] = stamp_;
    chan_[t] = kNone;
    order_.push_back(t);
    if (costs_) return escape_updown(t);
    for (size_t i = 0; i < order_.size(); ++i) {
      const SwIdx v = order_[i];
      for (uint32_t k = 0; k < fv_.arcs(v).size(); ++k) {
        const uint32_t out = fv_.arc_base(v) + k;
        if (!tree_[out]) continue;
        const SwIdx x = fv_.arcs(v)[k].to;
        if (seen_[x] == stamp_) continue;
        seen_[x] = stamp_;
        chan_[x] = cdg_.reverse(out);
        order_.push_back(x);
      }
    }
  }

  const FabricView& fv_;
  ChannelOrder& cdg_;
  std::span<const uint8_t> tree_;
  std::span<const uint32_t> comp_;
  const Orientation* orient_;
  const UpDownCosts* costs_;
  const uint64_t base_;
  const uint64_t fresh_;
  const size_t n_;
  std::vector<uint64_t> load_;
  std::vector<uint64_t> extra_;  // avoid()
  std::vector<uint32_t> chan_, seen_;
  std::vector<uint64_t> cas_, flow_;
  std::unordered_map<uint32_t, size_t> comp_size_;
  std::vector<SwIdx> order_;
  std::vector<std::vector<SwIdx>> by_hops_;
  std::vector<std::pair<uint32_t, uint32_t>> added_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  uint32_t stamp_ = 0;
  uint64_t impasses_ = 0, partial_ = 0;
  std::vector<SwIdx> dj_order_, esc_order_;
  std::vector<uint32_t> dj_chan_, esc_chan_, dj_mark_;
  uint32_t dj_stamp_ = 0;
};

class CdgEngine final : public Engine {
 public:
  std::string_view name() const override { return "cdg"; }
  std::string_view description() const override {
    return "load-balanced routing trees grown on an acyclic channel dependency graph (Nue-like)";
  }
  bool deadlock_free() const override { return true; }
  // Repair would add dependencies the CDG never checked: the caller routes in full.
  RepairRule repair_rule() const override { return RepairRule::none; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override;
};

// One routing of every destination with one kind of escape path: a spanning tree (its
// dependencies are few, so the Dijkstra keeps most of its freedom: best on tori and HyperX) or
// up*/down* from the roots (all its dependencies from the start: best on trees and random
// graphs, where the tree's single paths pile up).
struct Attempt {
  RoutingTables tables;
  uint64_t max_load = 0;  // all-to-all routes on the busiest channel, as the weights counted them
  std::string note;
};

// How an attempt routes: its kind of escape paths, the weight of an empty channel (the routes
// on a channel are added to it: a low base spreads routes over longer paths, a high one keeps
// them short; which is best depends on the fabric) and its rerouting passes.
struct AttemptConfig {
  bool updown = false;
  uint64_t base = 1;
  uint64_t fresh = 0;  // the extra weight of a channel whose dependency is not in the CDG yet
  bool scatter = false;  // each round's destinations in a scattered switch order
  unsigned passes = 0;
};

// The attempts in the order the work budget admits them: both kinds of escape paths with base
// weight 1 (a large fabric gets these two), then each round of destinations in a scattered
// switch order, base weights 8 and 128, then all of that with a price on new dependencies. The
// search is chaotic (one early route changes which dependencies later ones find), so several
// starting points are what it takes: measured with new dependencies priced 0, 2, 8, 32 or 128
// (switches in order), the 8x8 torus's busiest channel ranged from 2216 to 3756 routes with no
// trend, the random 64-switch graph's from 508 to 924; the scattered order took the torus's
// best from 2216 to 1936.
std::vector<AttemptConfig> attempt_configs() {
  std::vector<AttemptConfig> out;
  for (uint64_t base : {1, 8, 128})
    for (uint64_t fresh : {0, 128, 8, 32, 2})
      for (bool scatter : {false, true})
        for (bool updown : {false, true}) out.push_back(AttemptConfig{updown, base, fresh, scatter, 0});
  return out;
}

Attempt route_all(const Topology& topo, const FabricView& fv, const RootChoice& roots, AttemptConfig cfg,
                  unsigned threads) {
  const bool updown = cfg.updown;
  const size_t n = fv.switch_count();
  ChannelOrder cdg(fv);
  std::vector<uint32_t> comp;
  const std::vector<uint8_t> tree = spanning_tree(fv, cdg, roots.roots, comp);
  const Orientation orient(roots.rank);
  UpDownCosts costs;
  if (updown) {
    // Up channels from the bottom up, then down channels from the top down: an order that
    // every up*/down* dependency follows.
    std::vector<uint32_t> pos(n), seq;
    for (uint32_t i = 0; i < n; ++i) pos[orient.top_down()[i]] = i;
    std::vector<std::pair<uint64_t, uint32_t>> keyed;
    for (uint32_t c = 0; c < fv.arc_count(); ++c) {
      const SwIdx u = cdg.tail(c), v = cdg.head(c);
      keyed.emplace_back(orient.up(u, v) ? uint64_t{n - 1 - pos[u]} : uint64_t{n} + pos[u], c);
    }
    std::sort(keyed.begin(), keyed.end());
    for (auto [k, c] : keyed) seq.push_back(c);
    cdg.set_order(seq);
    for (uint32_t c = 0; c < fv.arc_count(); ++c) {
      const SwIdx u = cdg.tail(c), v = cdg.head(c);
      const bool c_up = orient.up(u, v);
      for (uint32_t k = 0; k < fv.arcs(v).size(); ++k) {
        const uint32_t d = fv.arc_base(v) + k;
        if (d == cdg.reverse(c) || (!c_up && orient.up(v, cdg.head(d)))) continue;
        cdg.add(c, d);
        cdg.hold(c, d);  // escape dependencies stay, whatever the routes do
      }
    }
    costs = UpDownCosts::compute(fv, orient, threads);
  } else {
    for (uint32_t c = 0; c < fv.arc_count(); ++c) {
      if (!tree[c]) continue;
      const SwIdx v = cdg.head(c);
      for (uint32_t k = 0; k < fv.arcs(v).size(); ++k) {
        const uint32_t d = fv.arc_base(v) + k;
        if (tree[d] && d != cdg.reverse(c)) {
          cdg.add(c, d);
          cdg.hold(c, d);
        }
      }
    }
  }
  const size_t escape_deps = cdg.dependencies();

  // Rounds: (LID index within its port, the port's rank on its switch, switch); switch LIDs last.
  std::vector<uint32_t> rank(fv.dests().size());
  {
    std::vector<uint32_t> seen(n, 0);
    for (size_t i = 0; i < fv.dests().size(); ++i)
      if (fv.dests()[i].out != 0 && fv.dests()[i].path == 0) rank[i] = seen[fv.dests()[i].sw]++;
    for (size_t i = 1; i < fv.dests().size(); ++i)
      if (fv.dests()[i].path != 0) rank[i] = rank[i - 1];
  }
  std::vector<uint32_t> order(fv.dests().size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key = [&](uint32_t i) {
    const Dest& d = fv.dests()[i];
    // Scattered: the switches of a round in a fixed pseudo-random order (Knuth's multiplicative
    // hash), so consecutive destinations sit far apart.
    const uint64_t sw = cfg.scatter ? (uint64_t{d.sw} * 2654435761u) % 1000003u : d.sw;
    return std::make_tuple(d.out == 0, d.path, rank[i], sw, i);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });

  Router router(fv, cdg, tree, comp, cfg.base, cfg.fresh, &orient, updown ? &costs : nullptr);
  Attempt out{RoutingTables(topo, fv.max_lid()), 0, {}};
  RoutingTables& tables = out.tables;
  RoutingDiagnostics& diag = tables.diagnostics();
  std::vector<Router::Tree> trees(order.size());
  // LMC > 0: the other LIDs of each CA port, whose trees the next one avoids where it can.
  std::map<std::pair<fabric::NodeId, uint8_t>, std::vector<uint32_t>> port_lids;
  for (uint32_t i = 0; i < fv.dests().size(); ++i)
    if (fv.dests()[i].lmc > 0 && fv.dests()[i].out != 0)
      port_lids[{fv.dests()[i].node, fv.dests()[i].node_port.value()}].push_back(i);
  const auto spread = [&](uint32_t i) {
    const Dest& d = fv.dests()[i];
    if (d.lmc == 0 || d.out == 0) return router.avoid({}, 0);
    std::vector<std::span<const uint32_t>> others;
    for (uint32_t j : port_lids[{d.node, d.node_port.value()}])
      if (j != i && !trees[j].chan.empty()) others.push_back(trees[j].chan);
    // More than any difference of load: another way wins whatever the loads.
    router.avoid(lmc_avoid_arcs(fv, d.sw, others, kNone), router.max_load() + fv.endpoints().size() + 1);
  };
  for (uint32_t i : order) {
    const Dest& d = fv.dests()[i];
    spread(i);
    router.route(d.sw, d.out != 0);
    trees[i] = router.keep(d.out != 0);
  }
  // Rerouting passes: each destination taken out and routed again over the loads of all the
  // others (the first pass saw only those before it); the pass whose busiest channel is the
  // least loaded is kept (its trees' dependencies were one acyclic CDG at the time).
  uint64_t best_max = router.max_load();
  std::vector<Router::Tree> best = trees;
  for (unsigned pass = 0; pass < cfg.passes; ++pass) {
    for (uint32_t i : order) {
      const Dest& d = fv.dests()[i];
      router.rip(trees[i]);
      trees[i].chan.clear();  // not an other LID's tree while it is routed again
      spread(i);
      router.route(d.sw, d.out != 0);
      trees[i] = router.keep(d.out != 0);
    }
    if (router.max_load() < best_max) {
      best_max = router.max_load();
      best = trees;
    }
  }
  router.avoid({}, 0);
  std::vector<int32_t> dist;
  std::vector<SwIdx> queue;
  for (uint32_t i : order) {
    const Dest& d = fv.dests()[i];
    const Router::Tree& tr = best[i];
    const bool to_switch = topo.node(d.node).is_switch();
    dist.clear();
    for (SwIdx s = 0; s < n; ++s) {
      const fabric::NodeId node = fv.node_of(s);
      if (s == d.sw) {
        tables.set(node, d.lid, d.out);
      } else if (tr.chan[s] != kNone) {
        const uint32_t c = tr.chan[s];
        tables.set(node, d.lid, fv.arcs(s)[c - fv.arc_base(s)].port);
      } else if (const uint8_t p = (to_switch || fv.endpoints_at(s).empty()) ? shortest_port(fv, d.sw, s, dist, queue) : 0;
                 p != 0) {
        // No CA's packet takes this entry (up*/down* escape on a degraded tree: a spine's own
        // traffic, or a route to a switch's LID), so it needs no dependency in the CDG: the
        // shortest path, as updn's fallback (updown.h) for the same pairs.
        tables.set(node, d.lid, p);
        if (d.path == 0) ++diag.fallback_pairs;
      } else if (d.path == 0) {
        ++diag.unrouted_pairs;
        if (!topo.node(d.node).is_switch()) diag.unrouted_ca_pairs += fv.endpoints_at(s).size();
        if (diag.unrouted.size() < RoutingDiagnostics::kMaxListed)
          diag.unrouted.push_back(UnroutedPair{node, d.node, d.node_port, d.lid});
      }
    }
  }
  std::sort(diag.unrouted.begin(), diag.unrouted.end(), [](const UnroutedPair& a, const UnroutedPair& b) {
    return std::tie(a.from, a.lid) < std::tie(b.from, b.lid);
  });
  out.max_load = best_max;
  out.note = fmt::format("{} escape, base weight {}, new dependencies {} more, {} order, {} rerouting passes: "
                         "busiest channel {} routes, {} dependencies ({} of the escape paths), {} of {} "
                         "destinations on escape paths",
                         updown ? "up*/down*" : "spanning-tree", cfg.base, cfg.fresh,
                         cfg.scatter ? "scattered" : "switch", cfg.passes, out.max_load,
                         cdg.dependencies(), escape_deps, router.impasses(), fv.dests().size());
  return out;
}

Result<RoutingTables> CdgEngine::compute(const Topology& topo, const RoutingOptions& opts) const {
  auto fvr = FabricView::build(topo);
  if (!fvr) return std::unexpected(fvr.error());
  const FabricView& fv = *fvr;
  auto roots = choose_roots(fv, opts);
  if (!roots) return std::unexpected(roots.error());
  // Several attempts (attempt_configs()), side by side on the threads, and the routes that
  // leave fewest pairs unrouted (up*/down* has no path for some pairs of a degraded tree; the
  // spanning tree always has one), then whose busiest channel carries less, then the first:
  // which one wins depends on the fabric, not on a guess about it. The best are then routed
  // again with rerouting passes. All within a work budget, so a large fabric gets the two
  // base-1 attempts only.
  const std::vector<AttemptConfig> configs = attempt_configs();
  const uint64_t pass_work = std::max<uint64_t>(1, uint64_t{fv.dests().size()} * fv.arc_count());
  // In units of one routing of every destination: up to a third kept for rerouting passes.
  const uint64_t units = kWorkBudget / pass_work;
  const uint64_t reserve = std::min<uint64_t>(kRerouted * (kReroutePasses + 1), units / 3);
  const size_t attempts = std::clamp<uint64_t>(units > reserve ? units - reserve : 0, 2, configs.size());
  std::vector<Attempt> tried(attempts);
  parallel_for(attempts, opts.threads, [&](size_t i, unsigned) {
    tried[i] = route_all(topo, fv, *roots, configs[i], 1);
  }, 1);
  const auto rank = [](const Attempt& a) { return std::make_pair(a.tables.diagnostics().unrouted_pairs, a.max_load); };
  std::vector<size_t> by_rank(attempts);
  for (size_t i = 0; i < attempts; ++i) by_rank[i] = i;
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](size_t a, size_t b) { return rank(tried[a]) < rank(tried[b]); });
  // The best few are routed again with rerouting passes (each its first pass again and
  // then the passes), as many as the budget left allows; each is never worse than it was.
  const uint64_t left = units > attempts ? units - attempts : 0;
  const unsigned passes = static_cast<unsigned>(std::min<uint64_t>(kReroutePasses, left > 0 ? left - 1 : 0));
  const size_t again = passes == 0 ? 0 : std::min<uint64_t>(kRerouted, left / (passes + 1));
  parallel_for(again, opts.threads, [&](size_t i, unsigned) {
    AttemptConfig cfg = configs[by_rank[i]];
    cfg.passes = passes;
    tried[by_rank[i]] = route_all(topo, fv, *roots, cfg, again == 1 ? opts.threads : 1);
  }, 1);
  size_t pick = 0;
  for (size_t i = 1; i < attempts; ++i)
    if (rank(tried[i]) < rank(tried[pick])) pick = i;
  Attempt& best = tried[pick];
  uint64_t lightest = UINT64_MAX, heaviest = 0;
  for (const Attempt& a : tried) {
    lightest = std::min(lightest, a.max_load);
    heaviest = std::max(heaviest, a.max_load);
  }
  best.tables.diagnostics().note_first(fmt::format("cdg: {} (kept of {} attempts, whose busiest channels carried {} to {} routes); {}",
                                                   best.note, attempts, lightest, heaviest, roots->how));
  return std::move(best.tables);
}

}  // namespace

std::unique_ptr<Engine> make_cdg_engine() { return std::make_unique<CdgEngine>(); }

}  // namespace routing
