#include "routing/ftree_plan.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "routing/ftree_slots.h"
#include "routing/switch_graph.h"

namespace routing {

namespace {

constexpr double kUnreachable = 1e300;

// A share of one destination's traffic climbing the tree: the groups still going up, and the
// switch it has reached.
struct Part {
  uint32_t dest;
  SwIdx at;
  uint32_t seq;  // creation order, for a stable sort
  std::vector<uint32_t> groups;
};

struct Groups {
  std::vector<uint32_t> of;      // per switch
  std::vector<uint64_t> weight;  // CA ports per group
};

// Connected components of the switches below the top level.
Groups find_groups(const FabricView& fv, const Levels& lv) {
  const size_t n = fv.switch_count();
  Groups g;
  g.of.assign(n, kNoGroup);
  const auto below_top = [&](SwIdx s) { return lv.level[s] != kNoLevel && lv.level[s] < lv.top; };
  const SwitchGraph graph = make_switch_graph(
      fv, [&](SwIdx s, const Arc& a) { return below_top(s) && below_top(a.to); });
  HopSearch<uint32_t> bfs(graph);
  std::vector<uint32_t> d(n);
  for (SwIdx s = 0; s < n; ++s) {
    if (!below_top(s) || g.of[s] != kNoGroup) continue;
    const uint32_t id = static_cast<uint32_t>(g.weight.size());
    bfs.run({&s, 1}, d);
    uint64_t w = 0;
    for (SwIdx v = 0; v < n; ++v)
      if (d[v] != HopSearch<uint32_t>::kFar) {
        g.of[v] = id;
        w += fv.endpoints_at(v).size();
      }
    g.weight.push_back(w);
  }
  return g;
}

class Planner {
 public:
  Planner(const FabricView& fv, const Levels& lv, std::span<const Dest> order,
          const TreeSlots& slots, const PortWeights* weights)
      : fv_(fv), lv_(lv), order_(order), hw_(weights), groups_(find_groups(fv, lv)),
        slots_(slots),
        presets_(order.size()), turns_(order.size()), top_index_(fv.switch_count(), kNoGroup) {
    index_tops();
  }

  FtreePlan run() {
    std::vector<Part> level;
    for (uint32_t i = 0; i < order_.size(); ++i) {
      const Dest& d = order_[i];
      if (lv_.level[d.sw] == kNoLevel) continue;
      Part p{i, d.sw, seq_++, {}};
      for (uint32_t g = 0; g < groups_.weight.size(); ++g)
        if (!is_ca(i) || weight(i, g) > 0) p.groups.push_back(g);
      // Groups that do not fit move to another parent in this order: rotate it by destination,
      // so that no group is always the one that moves.
      if (!p.groups.empty())
        std::rotate(p.groups.begin(), p.groups.begin() + i % p.groups.size(), p.groups.end());
      level.push_back(std::move(p));
    }
    while (!level.empty()) level = climb(std::move(level));

    FtreePlan plan;
    plan.group_of = groups_.of;
    plan.preset_begin.push_back(0);
    plan.turn_begin.push_back(0);
    for (size_t i = 0; i < order_.size(); ++i) {
      // Turns at one switch together: the convergence searches one switch at a time.
      std::stable_sort(
          turns_[i].begin(), turns_[i].end(),
          [](const FtreePlan::Turn& a, const FtreePlan::Turn& b) { return a.sw < b.sw; });
      plan.presets.insert(plan.presets.end(), presets_[i].begin(), presets_[i].end());
      plan.turns.insert(plan.turns.end(), turns_[i].begin(), turns_[i].end());
      plan.preset_begin.push_back(static_cast<uint32_t>(plan.presets.size()));
      plan.turn_begin.push_back(static_cast<uint32_t>(plan.turns.size()));
    }
    return plan;
  }

 private:
  bool is_ca(uint32_t i) const { return order_[i].out != 0; }
  // Sources of group g sending to destination i (its own switch's CAs use no link).
  uint64_t weight(uint32_t i, uint32_t g) const {
    if (!is_ca(i)) return 0;
    const SwIdx sw = order_[i].sw;
    return groups_.weight[g] - (groups_.of[sw] == g ? fv_.endpoints_at(sw).size() : 0);
  }

  // Top switches, the groups each has a cable into, and every group's fair share of the
  // traffic it sends up into one cable to the top (its CAs times the CA destinations outside
  // it, over its cables to the top).
  void index_tops() {
    const size_t groups = groups_.weight.size();
    std::vector<uint64_t> cables(groups, 0), dests_in(groups, 0);
    uint64_t ca_dests = 0;
    for (uint32_t i = 0; i < order_.size(); ++i)
      if (is_ca(i) && groups_.of[order_[i].sw] != kNoGroup) {
        ++ca_dests;
        ++dests_in[groups_.of[order_[i].sw]];
      }
    for (SwIdx t = 0; t < fv_.switch_count(); ++t) {
      if (groups_.of[t] != kNoGroup || lv_.level[t] == kNoLevel) continue;
      top_index_[t] = static_cast<uint32_t>(top_groups_.size());
      top_groups_.emplace_back();
      for (const Arc& a : fv_.arcs(t))
        if (const uint32_t g = groups_.of[a.to]; g != kNoGroup) {
          top_groups_.back().push_back(g);
          ++cables[g];
        }
      std::sort(top_groups_.back().begin(), top_groups_.back().end());
    }
    // The floor: a leaf's CAs send and receive through its up-links, however routed.
    const uint64_t sources = fv_.endpoints().size();
    std::vector<uint64_t> lids_at(fv_.switch_count(), 0);
    for (uint32_t i = 0; i < order_.size(); ++i) lids_at[order_[i].sw] += is_ca(i) ? 1 : 0;
    for (SwIdx s : lv_.leaves) {
      const uint64_t here = lids_at[s];
      uint64_t ups = 0;
      for (const Arc& a : fv_.arcs(s)) ups += lv_.level[a.to] == 1 ? 1 : 0;
      const uint64_t cas = fv_.endpoints_at(s).size();
      const uint64_t traffic = std::max(here * (sources - cas), cas * (ca_dests - here));
      if (ups > 0) floor_ = std::max(floor_, (traffic + ups - 1) / ups);
    }

    // The tops above every switch, from the top down.
    anc_.assign(fv_.switch_count(), {});
    std::vector<SwIdx> by_level(fv_.switch_count());
    std::iota(by_level.begin(), by_level.end(), SwIdx{0});
    std::stable_sort(by_level.begin(), by_level.end(), [&](SwIdx a, SwIdx b) {
      return lv_.level[a] != kNoLevel && (lv_.level[b] == kNoLevel || lv_.level[a] > lv_.level[b]);
    });
    for (SwIdx s : by_level) {
      if (lv_.level[s] == kNoLevel) continue;
      if (top_index_[s] != kNoGroup) {
        anc_[s] = {top_index_[s]};
        continue;
      }
      for (const Arc& a : fv_.arcs(s))
        if (lv_.level[a.to] == lv_.level[s] + 1)
          anc_[s].insert(anc_[s].end(), anc_[a.to].begin(), anc_[a.to].end());
      std::sort(anc_[s].begin(), anc_[s].end());
      anc_[s].erase(std::unique(anc_[s].begin(), anc_[s].end()), anc_[s].end());
    }
    via_.assign(fv_.switch_count() * groups, {});
    via_done_.assign(fv_.switch_count() * groups, false);
    tops_.resize(top_groups_.size());
    for (SwIdx t = 0; t < fv_.switch_count(); ++t)
      if (top_index_[t] != kNoGroup) tops_[top_index_[t]] = t;
    up_load_.assign(top_groups_.size() * groups, 0);
    reserved_.assign(top_groups_.size() * groups, 0.0);
    up_share_.assign(groups, 1);
    for (uint32_t g = 0; g < groups; ++g)
      if (cables[g] > 0)
        up_share_[g] = std::max<uint64_t>(
            1, (groups_.weight[g] * (ca_dests - dests_in[g]) + cables[g] - 1) / cables[g]);
  }

  // Group g's sources can meet at top switch t: t has a cable down into g.
  bool top_reaches(uint32_t top, uint32_t g) const {
    const auto& gs = top_groups_[top];
    return std::binary_search(gs.begin(), gs.end(), g);
  }
  // The tops above switch s where group g can meet: where a part at s can turn for g.
  const std::vector<uint32_t>& via(SwIdx s, uint32_t g) {
    const size_t k = static_cast<size_t>(s) * groups_.weight.size() + g;
    if (!via_done_[k]) {
      for (uint32_t t : anc_[s])
        if (top_reaches(t, g)) via_[k].push_back(t);
      via_done_[k] = true;
    }
    return via_[k];
  }
  uint64_t& up_load(uint32_t top, uint32_t g) { return up_load_[top * groups_.weight.size() + g]; }
  double& reserved(uint32_t top, uint32_t g) { return reserved_[top * groups_.weight.size() + g]; }
  // Below the top, a part's group will turn at one of via(s, g): until then its traffic is
  // reserved evenly over them, so that the levels below see what the tops will get.
  void reserve(SwIdx s, uint32_t g, double w) {
    const auto& ts = via(s, g);
    for (uint32_t t : ts) reserved(t, g) += w / static_cast<double>(ts.size());
  }

  // One level: every part at a switch goes up one hop (split where it does not fit).
  std::vector<Part> climb(std::vector<Part> parts) {
    std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
      return std::tie(a.at, a.dest, a.seq) < std::tie(b.at, b.dest, b.seq);
    });
    std::vector<Part> next;
    for (size_t k = 0; k < parts.size();) {
      size_t e = k;
      while (e < parts.size() && parts[e].at == parts[k].at) ++e;
      spread(std::span<Part>(parts.data() + k, e - k), next);
      k = e;
    }
    return next;
  }

  // A parent of the current switch: the cables to it count as one bin.
  struct Bin {
    SwIdx parent;
    uint8_t back;        // the parent's (first) port toward the current switch
    uint32_t top = kNoGroup;  // the parent's index among the tops: groups turn there
    uint32_t links = 0;  // parallel cables
    uint64_t hint = 1;   // the heaviest hinted weight among them
    uint64_t load = 0;   // traffic planned down them so far
    uint32_t pos = 0;    // the parent's position (TreeSlots)
  };

  // The parts at one switch m: turn the groups that meet here, spread the rest over m's
  // parents. Each switch is at one level, so this runs once per switch and the loads of the
  // cables to its parents are local to it.
  void spread(std::span<Part> parts, std::vector<Part>& next) {
    const SwIdx m = parts.front().at;
    std::vector<Bin> bins;
    for (const Arc& a : fv_.arcs(m)) {
      if (lv_.level[a.to] != lv_.level[m] + 1) continue;
      auto it =
          std::find_if(bins.begin(), bins.end(), [&](const Bin& b) { return b.parent == a.to; });
      if (it == bins.end()) it = bins.insert(bins.end(), Bin{a.to, a.peer_port, top_index_[a.to]});
      ++it->links;
      if (hw_) it->hint = std::max<uint64_t>(it->hint, hw_->at(fv_, a.to, a.peer_port));
    }
    // Groups meeting at m: m's own group once m is above the leaves; all of them at the top.
    const uint32_t group_here = lv_.level[m] >= 1 ? groups_.of[m] : kNoGroup;
    for (Part& p : parts) {
      if (lv_.level[m] >= 1 && top_index_[m] == kNoGroup)
        for (uint32_t g : p.groups)
          if (g != group_here) reserve(m, g, -static_cast<double>(weight(p.dest, g)));
      auto own = std::find(p.groups.begin(), p.groups.end(), group_here);
      if (own != p.groups.end()) {
        turns_[p.dest].push_back({m, group_here});
        p.groups.erase(own);
      }
      if (bins.empty()) {
        for (uint32_t g : p.groups) turns_[p.dest].push_back({m, g});
        p.groups.clear();
      }
    }
    if (bins.empty()) return;

    // The fair share per cable of the traffic climbing past m.
    uint64_t total = 0, links = 0;
    for (const Part& p : parts)
      for (uint32_t g : p.groups) total += weight(p.dest, g);
    for (const Bin& b : bins) links += b.links;
    // Loading a cable up to the fabric's unavoidable maximum costs nothing: only beyond it do
    // groups move (fewer splits keep the d-mod-k pattern that permutations like).
    const double share =
        static_cast<double>(std::max<uint64_t>({1, (total + links - 1) / links, floor_}));

    // How full bin b gets with w more of group g, 1.0 = its fair share: the cables down from
    // b to m (per cable, hints multiplying), and g's way up: at a top, g's cables into it; below,
    // g's planned traffic into the tops above b, which all parts through b share. +inf when g
    // cannot meet at or above b.
    const auto fill = [&](Bin& b, uint64_t w, uint32_t g) {
      const double down = static_cast<double>((b.load + w) * b.hint) /
                          static_cast<double>(b.links) / share;
      if (g == kNoGroup || g == groups_.of[b.parent]) return down;
      const double cap = static_cast<double>(std::max(up_share_[g], floor_));
      if (b.top != kNoGroup)
        return top_reaches(b.top, g)
                   ? std::max(down, static_cast<double>(up_load(b.top, g) + w) / cap)
                   : kUnreachable;
      const auto& ts = via(b.parent, g);
      if (ts.empty()) return kUnreachable;
      double planned = static_cast<double>(w);
      for (uint32_t t : ts) planned += static_cast<double>(up_load(t, g)) + reserved(t, g);
      return std::max(down, planned / (cap * static_cast<double>(ts.size())));
    };

    // Bins in position order (TreeSlots): a part's canonical parent is the one at its digit's
    // position, as d-mod-k picks it on a complete tree.
    for (Bin& b : bins) b.pos = slots_.position(m, b.parent);
    std::stable_sort(bins.begin(), bins.end(), [](const Bin& a, const Bin& b) { return a.pos < b.pos; });
    const uint32_t positions = slots_.positions(m);
    const auto at_position = [&](uint32_t pos) -> Bin* {
      for (Bin& b : bins)
        if (b.pos == pos) return &b;
      return nullptr;
    };
    // A group that cannot stay there (no cable, no way to its sources, or full) goes to one of
    // the other bins by index: the parts displaced here, counted in leaf order, plus the
    // group and m's place in the tree, modulo the bins that can take it; the next one that fits
    // from there. Consecutive displaced destinations so take different bins for one group of
    // sources (no two of them on one link in a shift), and the displaced traffic spreads over
    // all the bins (all-to-all).
    const auto displace = [&](uint32_t dest, uint64_t w, uint32_t g, uint64_t index) -> Bin* {
      std::vector<Bin*> ok;
      for (Bin& b : bins)
        if (!conflicts(dest, b) && fill(b, w, g) < kUnreachable) ok.push_back(&b);
      if (ok.empty())
        for (Bin& b : bins) ok.push_back(&b);
      const size_t start = index % ok.size();
      Bin* least = nullptr;
      double least_fill = 0;
      for (size_t k = 0; k < ok.size(); ++k) {
        Bin* b = ok[(start + k) % ok.size()];
        const double f = fill(*b, w, g);
        if (f <= 1.0) return b;
        if (least == nullptr || f < least_fill) least = b, least_fill = f;
      }
      return least;
    };

    uint32_t displaced = 0;
    for (Part& p : parts) {
      if (p.groups.empty()) continue;
      Bin* canon = positions > 0 ? at_position(slots_.digit(p.dest, lv_.level[m]) % positions)
                                 : nullptr;
      if (canon != nullptr && conflicts(p.dest, *canon)) canon = nullptr;
      bool moved = false;
      std::vector<std::pair<Bin*, std::vector<uint32_t>>> out;
      for (uint32_t g : p.groups) {
        const uint64_t w = weight(p.dest, g);
        Bin* cur = canon;
        if (cur == nullptr || fill(*cur, w, g) > 1.0) {
          cur = displace(p.dest, w, g, uint64_t{displaced} + slots_.home(m) + g);
          moved = true;
        }
        cur->load += w;
        if (cur->top != kNoGroup)
          up_load(cur->top, g) += w;
        else if (g != groups_.of[cur->parent])
          reserve(cur->parent, g, static_cast<double>(w));
        auto it =
            std::find_if(out.begin(), out.end(), [&](const auto& o) { return o.first == cur; });
        if (it == out.end()) it = out.insert(out.end(), {cur, {}});
        it->second.push_back(g);
      }
      if (moved) ++displaced;
      for (auto& [b, gs] : out) {
        add_preset(p.dest, b->parent, b->back);
        next.push_back(Part{p.dest, b->parent, seq_++, std::move(gs)});
      }
    }
  }

  // A destination's entry at a switch is one port: a second part must not reach it another way.
  bool conflicts(uint32_t dest, const Bin& b) const {
    for (const auto& pr : presets_[dest])
      if (pr.sw == b.parent) return pr.port != b.back;
    return false;
  }
  void add_preset(uint32_t dest, SwIdx sw, uint8_t port) {
    for (const auto& pr : presets_[dest])
      if (pr.sw == sw) return;
    presets_[dest].push_back({sw, port});
  }

  const FabricView& fv_;
  const Levels& lv_;
  std::span<const Dest> order_;
  const PortWeights* hw_;
  Groups groups_;
  const TreeSlots& slots_;
  std::vector<std::vector<FtreePlan::Preset>> presets_;
  std::vector<std::vector<FtreePlan::Turn>> turns_;
  std::vector<uint32_t> top_index_;                // per switch: index among the tops, or kNoGroup
  std::vector<std::vector<uint32_t>> top_groups_;  // per top: the groups it has cables into
  std::vector<SwIdx> tops_;                        // top index -> switch
  std::vector<uint64_t> up_load_;                  // per (top, group): traffic planned up
  std::vector<double> reserved_;                   // per (top, group): not yet placed on one top
  std::vector<uint64_t> up_share_;                 // per group: fair share per top it reaches
  std::vector<std::vector<uint32_t>> anc_;         // per switch: the tops above it
  std::vector<std::vector<uint32_t>> via_;         // per (switch, group): tops above it reaching g
  std::vector<bool> via_done_;
  uint64_t floor_ = 0;  // the busiest leaf's traffic per up-link: no routing does better
  uint32_t seq_ = 0;
};

}  // namespace

FtreePlan plan_ftree(const FabricView& fv, const Levels& lv, std::span<const Dest> order,
                     const TreeSlots& slots, const PortWeights* weights) {
  return Planner(fv, lv, order, slots, weights).run();
}

}  // namespace routing
