// ftree: fat-tree routing. Levels are counted up from the leaves (switches with CAs); the
// fabric is refused unless every usable link joins adjacent levels. Routes go up then down
// (never down then up: deadlock-free), always along a shortest such path.
//
// What makes it a fat-tree routing rather than updn-by-levels is where each destination's
// routes converge. Destinations are taken in leaf order (leaves by GUID, CAs by leaf port,
// then the switches' own LIDs). ftree_plan.h gives each destination its main path(s) from its
// leaf upward, balanced by the traffic they will carry, and says where each group of sources
// (a pod) meets them. Here every switch of such a group takes the port toward the neighbour
// through which it joins (a search down from the meeting point), so all sources of one
// destination converge and each down-link into a leaf carries one destination. On a complete
// k-ary n-tree this is d-mod-k routing: shift permutations in leaf order meet no congestion and
// all-to-all loads every link equally (1016 routes per link on ft3-r16, the optimum). Where
// links are missing, the plan splits a destination over several main paths only as much as
// the surviving links need, and switches cut off from their meeting point fall back to the
// least-loaded legal port (fill.h); nothing falls back to a non-tree routing.
#include <fmt/format.h>

#include <algorithm>
#include <thread>
#include <tuple>

#include "routing/engines.h"
#include "routing/fill.h"
#include "routing/ftree_plan.h"
#include "routing/parallel.h"
#include "routing/shift_balance.h"
#include "routing/updown.h"

namespace routing {

namespace {

// CA ports by (leaf, leaf port, LMC path), then the switches' own LIDs by switch.
std::vector<Dest> leaf_order(const FabricView& fv) {
  std::vector<Dest> out(fv.dests().begin(), fv.dests().end());
  const auto key = [](const Dest& d) {
    return std::tuple(d.out == 0, d.sw, d.out, d.path);
  };
  std::sort(out.begin(), out.end(), [&](const Dest& a, const Dest& b) { return key(a) < key(b); });
  return out;
}

// Each switch's cables down one level, for the searches below.
struct Children {
  std::vector<uint32_t> begin;
  std::vector<Arc> arcs;
  Children(const FabricView& fv, const Levels& lv) {
    for (SwIdx s = 0; s < fv.switch_count(); ++s) {
      begin.push_back(static_cast<uint32_t>(arcs.size()));
      for (const Arc& a : fv.arcs(s))
        if (lv.level[s] != kNoLevel && lv.level[a.to] + 1 == lv.level[s]) arcs.push_back(a);
    }
    begin.push_back(static_cast<uint32_t>(arcs.size()));
  }
  std::span<const Arc> of(SwIdx s) const {
    return {arcs.data() + begin[s], begin[s + 1] - begin[s]};
  }
};

// Writes each destination's main paths into the LFTs and, for every switch of a group that
// meets them at a turn, the port toward the neighbour through which it joins (breadth-first
// down from the turn, along shortest legal paths only). The fill keeps those choices.
void preset_convergence(const FabricView& fv, const Levels& lv, const UpDownCosts& costs,
                        std::span<const Dest> order, const FtreePlan& plan,
                        const CoreOptions& opts, RoutingTables& tables) {
  using C = UpDownCosts;
  const size_t n = fv.switch_count();
  const Children children(fv, lv);
  size_t groups = 0;
  for (uint32_t g : plan.group_of)
    groups = g == kNoGroup ? groups : std::max<size_t>(groups, g + 1);
  struct Scratch {
    std::vector<uint32_t> stamp, group_stamp;
    uint32_t gen = 0;
    std::vector<SwIdx> queue;
  };
  std::vector<Scratch> scratch(worker_count(order.size(), opts.threads));
  for (Scratch& s : scratch) {
    s.stamp.assign(n, 0);
    s.group_stamp.assign(groups, 0);
  }
  parallel_for(order.size(), opts.threads, [&](size_t i, unsigned w) {
    Scratch& sc = scratch[w];
    const Dest& d = order[i];
    const uint16_t* row = costs.row(d.sw).data();
    const size_t lid = d.lid.value();
    const uint32_t dest_gen = ++sc.gen;  // switches stamped >= dest_gen are routed already
    sc.stamp[d.sw] = sc.gen;
    for (const auto& pr : plan.presets_of(i)) {
      tables.lft(fv.node_of(pr.sw))[lid] = pr.port;
      sc.stamp[pr.sw] = sc.gen;
    }
    // Turns come grouped by switch: one search per switch, for all its groups at once.
    const auto turns = plan.turns_of(i);
    for (size_t k = 0; k < turns.size();) {
      const SwIdx from = turns[k].sw;
      const uint32_t search = ++sc.gen;  // stamps the groups of this search
      for (; k < turns.size() && turns[k].sw == from; ++k) sc.group_stamp[turns[k].group] = search;
      sc.queue.assign(1, from);
      for (size_t q = 0; q < sc.queue.size(); ++q) {
        const SwIdx p = sc.queue[q];
        const uint16_t want = static_cast<uint16_t>(C::hops(row[p]) + 1);
        for (const Arc& a : children.of(p)) {
          const SwIdx c = a.to;
          // (A cell of a switch that must route down has kDown set: it never equals `want`.)
          if (sc.stamp[c] >= dest_gen || row[c] != want) continue;
          if (plan.group_of[c] == kNoGroup || sc.group_stamp[plan.group_of[c]] != search) continue;
          if (opts.weights && opts.weights->at(fv, c, a.peer_port) > 1) continue;  // hinted hot
          tables.lft(fv.node_of(c))[lid] = a.peer_port;
          sc.stamp[c] = sc.gen;
          sc.queue.push_back(c);
        }
      }
    }
  }, 64);
}

class FtreeEngine final : public Engine {
 public:
  std::string_view name() const override { return "ftree"; }
  std::string_view description() const override {
    return "fat trees only, up then down converging per destination, deadlock-free";
  }
  bool deadlock_free() const override { return true; }
  std::string_view topologies() const override { return "fat trees, complete or degraded"; }
  RepairRule repair_rule() const override { return RepairRule::up_down; }
  // Leaf levels, top rank 0; an error where compute() would refuse the fabric.
  Result<std::vector<uint32_t>> orientation(const FabricView& fv,
                                            const RoutingOptions&) const override {
    const Levels lv = leaf_levels(fv);
    if (auto why = fat_tree_violation(fv, lv); !why.empty())
      return mad::fail(mad::Errc::unsupported, why);
    return ranks_from_levels(lv);
  }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    auto fv = FabricView::build(topo);
    if (!fv) return std::unexpected(fv.error());
    const Levels lv = leaf_levels(*fv);
    if (const std::string why = fat_tree_violation(*fv, lv); !why.empty())
      return mad::fail(mad::Errc::unsupported, fmt::format("not a fat tree: {}", why));
    for (mad::Guid g : opts.root_guids) {
      const auto node = topo.find(g);
      const SwIdx s = node ? fv->index_of(*node) : kNoSw;
      if (s == kNoSw)
        return mad::fail(mad::Errc::not_found,
                         fmt::format("configured root {} is not a switch here", g));
      for (const Arc& a : fv->arcs(s))
        if (lv.level[a.to] > lv.level[s])
          return mad::fail(
              mad::Errc::invalid,
              fmt::format("configured root '{}' is not at the top of the tree (level {}, "
                          "linked up to '{}')",
                          topo.node(*node).description, lv.level[s],
                          topo.node(fv->node_of(a.to)).description));
    }
    auto tables = ftree_route(*fv, lv, CoreOptions{opts.threads, nullptr, false});
    if (!tables) return tables;
    auto& diag = tables->diagnostics();
    diag.note_first(fmt::format("ftree: {} leaves, {} levels, {} CA ports", lv.leaves.size(),
                                lv.top + 1, fv->endpoints().size()));
    if (diag.unrouted_pairs > 0)
      diag.notes.push_back(fmt::format("ftree: {} switch-destination pairs have no up/down path "
                                       "left ({} CA pairs)",
                                       diag.unrouted_pairs, diag.unrouted_ca_pairs));
    return tables;
  }
};

}  // namespace

std::unique_ptr<Engine> make_ftree_engine() { return std::make_unique<FtreeEngine>(); }

mad::Result<RoutingTables> ftree_route(const FabricView& fv, const Levels& lv,
                                       const CoreOptions& opts) {
  const Orientation orient(ranks_from_levels(lv));
  const std::vector<Dest> order = leaf_order(fv);
  // The plan is one thread's work (0.5 s of 3 at 43,011 nodes) and does not need the costs:
  // with a second thread it runs beside them. Each is the same as in turn.
  FtreePlan plan;
  const auto make_plan = [&] {
    const TreeSlots slots(fv, lv, order);
    plan = plan_ftree(fv, lv, order, slots, opts.weights);
  };
  std::jthread planner;
  if (effective_threads(opts.threads) > 1) planner = std::jthread(make_plan);
  else make_plan();
  UpDownCosts costs = UpDownCosts::compute(fv, orient, opts.threads);
  // The tables after the plan: its scratch (freed by then) is where they go, not beside them.
  if (planner.joinable()) planner.join();
  RoutingTables tables(fv.topo(), fv.max_lid(), opts.threads);
  preset_convergence(fv, lv, costs, order, plan, opts, tables);
  const SwitchFallback fallback = SwitchFallback::compute(fv, costs, opts.threads);
  costs.transpose(opts.threads);
  const CandidateFn candidates = [&](SwIdx s, CandidateLists& out) {
    updown_candidates(fv, orient, costs, s, out);
  };
  fill_tables(fv, candidates,
              FillOptions{opts.threads, opts.weights, true, opts.alternatives, &fallback}, tables);
  // Hinted links are the hints' business: the pass would weigh them as any other.
  if (opts.weights == nullptr || opts.weights->empty()) {
    const ShiftBalanceStats st = balance_shifts(fv, candidates, opts.threads, tables);
    if (st.moves > 0)
      tables.diagnostics().notes.push_back(fmt::format(
          "ftree: shift balance moved {} entries (sum over shifts of the busiest link {} -> {})",
          st.moves, st.before, st.after));
  }
  return tables;
}

}  // namespace routing
