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
// Escape paths make sure every pair is routed: a spanning tree of the switches (BFS from the
// up/down roots of roots.h) whose every non-U-turn dependency is in the CDG from the start
// (a tree has no cycle without a U-turn). When the Dijkstra cannot reach every switch of the
// component (an impasse), the dependencies it added for this destination are removed again
// and the destination takes the tree paths instead.
//
// Destinations go in rounds (the first CA of every switch, then the second, ...), CA LIDs
// before switch LIDs (these carry management traffic only, and add no load). The CDG is
// shared state, so the destinations run one after another: deterministic, but sequential;
// the root choice (eccentricities) is parallel.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <queue>
#include <unordered_map>
#include <tuple>

#include "routing/cdg_order.h"
#include "routing/engines.h"
#include "routing/roots.h"

namespace routing {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

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

class Router {
 public:
  Router(const FabricView& fv, ChannelOrder& cdg, std::span<const uint8_t> tree,
         std::span<const uint32_t> comp, uint64_t base)
      : fv_(fv), cdg_(cdg), tree_(tree), comp_(comp), base_(base), n_(fv.switch_count()),
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
      for (auto [c, d] : added_) cdg_.remove(c, d);
      ++impasses_;
      escape(t);
    }
    if (!traffic) return;
    for (SwIdx s : order_) flow_[s] = cas_[s];
    for (size_t i = order_.size(); i-- > 1;) {  // order_[0] is t
      const SwIdx s = order_[i];
      load_[chan_[s]] += flow_[s];
      flow_[cdg_.head(chan_[s])] += flow_[s];
    }
  }
  std::span<const uint32_t> chan() const { return chan_; }
  bool reached(SwIdx s) const { return seen_[s] == stamp_; }
  uint64_t impasses() const { return impasses_; }

 private:
  uint64_t weight(uint32_t c) const {
    static const int e = std::getenv("FABRICSM_CDG_EXP") ? std::atoi(std::getenv("FABRICSM_CDG_EXP")) : 1;
    const uint64_t l = load_[c];
    return e == 2 ? base_ + l * l / 64 : base_ + l;
  }
  using Entry = std::tuple<uint64_t, SwIdx, uint32_t>;  // distance, switch, its channel

  void settle(SwIdx x, uint32_t c, uint64_t d) {
    seen_[x] = stamp_;
    chan_[x] = c;
    order_.push_back(x);
    for (uint32_t k = 0; k < fv_.arcs(x).size(); ++k) {
      const uint32_t in = cdg_.reverse(fv_.arc_base(x) + k);  // y -> x
      const SwIdx y = cdg_.tail(in);
      if (seen_[y] != stamp_) heap_.emplace(d + weight(in), y, in);
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

  // The tree paths toward t: a BFS from t over the tree arcs.
  void escape(SwIdx t) {
    ++stamp_;
    order_.clear();
    seen_[t] = stamp_;
    chan_[t] = kNone;
    order_.push_back(t);
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
  const uint64_t base_;
  const size_t n_;
  std::vector<uint64_t> load_;
  std::vector<uint32_t> chan_, seen_;
  std::vector<uint64_t> cas_, flow_;
  std::unordered_map<uint32_t, size_t> comp_size_;
  std::vector<SwIdx> order_;
  std::vector<std::pair<uint32_t, uint32_t>> added_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  uint32_t stamp_ = 0;
  uint64_t impasses_ = 0;
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

Result<RoutingTables> CdgEngine::compute(const Topology& topo, const RoutingOptions& opts) const {
  auto fvr = FabricView::build(topo);
  if (!fvr) return std::unexpected(fvr.error());
  const FabricView& fv = *fvr;
  auto roots = choose_roots(fv, opts);
  if (!roots) return std::unexpected(roots.error());
  const size_t n = fv.switch_count();
  ChannelOrder cdg(fv);
  std::vector<uint32_t> comp;
  const std::vector<uint8_t> tree = spanning_tree(fv, cdg, roots->roots, comp);
  for (uint32_t c = 0; c < fv.arc_count(); ++c) {
    if (!tree[c] || std::getenv("FABRICSM_CDG_NOPRE")) continue;
    const SwIdx v = cdg.head(c);
    for (uint32_t k = 0; k < fv.arcs(v).size(); ++k) {
      const uint32_t d = fv.arc_base(v) + k;
      if (tree[d] && d != cdg.reverse(c)) cdg.add(c, d);
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
    return std::make_tuple(d.out == 0, d.path, rank[i], d.sw, i);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });

  uint64_t base = 0;
  if (const char* b = std::getenv("FABRICSM_CDG_BASE")) base = std::strtoull(b, nullptr, 10);
  if (base == 0) base = 1;
  Router router(fv, cdg, tree, comp, base);
  RoutingTables tables(topo, fv.max_lid());
  RoutingDiagnostics& diag = tables.diagnostics();
  for (uint32_t i : order) {
    const Dest& d = fv.dests()[i];
    router.route(d.sw, d.out != 0);
    for (SwIdx s = 0; s < n; ++s) {
      const fabric::NodeId node = fv.node_of(s);
      if (s == d.sw) {
        tables.set(node, d.lid, d.out);
      } else if (router.reached(s)) {
        const uint32_t c = router.chan()[s];
        tables.set(node, d.lid, fv.arcs(s)[c - fv.arc_base(s)].port);
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
  if (std::getenv("FABRICSM_CDG_DEBUG")) fmt::print(stderr, "impasses {} of {}, deps {}\n", router.impasses(), fv.dests().size(), cdg.dependencies());
  diag.note_first(fmt::format("cdg: {} dependencies ({} of the escape tree), {} of {} destinations on escape paths; {}",
                              cdg.dependencies(), escape_deps, router.impasses(), fv.dests().size(), roots->how));
  return tables;
}

}  // namespace

std::unique_ptr<Engine> make_cdg_engine() { return std::make_unique<CdgEngine>(); }

}  // namespace routing
