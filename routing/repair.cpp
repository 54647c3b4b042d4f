#include "routing/repair.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "routing/fabric_view.h"
#include "routing/levels.h"
#include "routing/roots.h"
#include "routing/updown.h"

namespace routing {

namespace {

constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();
constexpr uint8_t kNone = 0xFF;

// Ranks of `fv` by the engine's orientation rule; empty for shortest-path engines.
mad::Result<std::vector<uint32_t>> ranks(const FabricView& fv, std::string_view engine, const RoutingOptions& o) {
  if (engine == "minhop") return std::vector<uint32_t>{};
  if (engine == "ftree") {
    const Levels lv = leaf_levels(fv);
    if (auto why = fat_tree_violation(fv, lv); !why.empty()) return mad::fail(mad::Errc::unsupported, why);
    return ranks_from_levels(lv);
  }
  if (engine == "updn") {
    auto roots = choose_roots(fv, o);
    if (!roots) return std::unexpected(roots.error());
    return roots->rank;
  }
  return mad::fail(mad::Errc::unsupported, fmt::format("no repair rules for engine '{}'", engine));
}

// Per destination switch t: hop costs toward t. `down` = only down moves (up*/down* only),
// `any` = the shortest legal route (for shortest-path engines: plain BFS distance).
struct Costs {
  std::vector<uint32_t> down, any;
  std::vector<uint32_t> plain;  // hop distance ignoring up/down (for switches with no legal route)
};

std::vector<uint32_t> bfs_to(const FabricView& fv, SwIdx t) {
  std::vector<uint32_t> d(fv.switch_count(), kInf);
  std::vector<SwIdx> q{t};
  d[t] = 0;
  for (size_t h = 0; h < q.size(); ++h)
    for (const Arc& a : fv.arcs(q[h]))
      if (d[a.to] == kInf) {
        d[a.to] = d[q[h]] + 1;
        q.push_back(a.to);
      }
  return d;
}

Costs costs_to(const FabricView& fv, SwIdx t, const Orientation* o) {
  const size_t n = fv.switch_count();
  Costs c;
  c.down.assign(n, kInf);
  c.any.assign(n, kInf);
  // Reverse BFS: s reaches t by moving s -> u; for up*/down*'s down part the move must be down.
  std::vector<SwIdx> q{t};
  std::vector<uint32_t>& d = o ? c.down : c.any;
  d[t] = 0;
  for (size_t h = 0; h < q.size(); ++h) {
    const SwIdx u = q[h];
    for (const Arc& a : fv.arcs(u)) {  // links are symmetric: a.to -> u exists too
      const SwIdx s = a.to;
      if (d[s] != kInf || (o && o->up(s, u))) continue;
      d[s] = d[u] + 1;
      q.push_back(s);
    }
  }
  if (!o) {
    c.plain = c.any;
    return c;
  }
  c.plain = bfs_to(fv, t);
  // any(s) = min(down(s), 1 + any(u) over up-moves s -> u); up-neighbours come earlier in
  // top-down order.
  for (SwIdx s : o->top_down()) {
    uint32_t best = c.down[s];
    for (const Arc& a : fv.arcs(s))
      if (o->up(s, a.to) && c.any[a.to] != kInf) best = std::min(best, c.any[a.to] + 1);
    c.any[s] = best;
  }
  return c;
}

}  // namespace

mad::Result<RepairResult> repair_routes(const Topology& before, const RoutingTables& old, const Topology& now,
                                        std::string_view engine, const RoutingOptions& opts) {
  auto fb = FabricView::build(before);
  auto fn = FabricView::build(now);
  if (!fb || !fn) return mad::fail(mad::Errc::invalid, "cannot view the topology");
  const size_t S = fn->switch_count();
  // The change must be a pure removal: every switch and usable link of `now` was there, and
  // every destination LID is delivered where it was.
  std::vector<SwIdx> was(S, kNoSw);
  for (SwIdx s = 0; s < S; ++s) {
    auto id = before.find(now.node(fn->node_of(s)).guid);
    if (!id || fb->index_of(*id) == kNoSw) return mad::fail(mad::Errc::unsupported, "a switch was added");
    was[s] = fb->index_of(*id);
    for (const Arc& a : fn->arcs(s))
      if (fb->peer(was[s], a.port) == kNoSw) return mad::fail(mad::Errc::unsupported, "a link was added");
  }
  auto rank_now = ranks(*fn, engine, opts);
  auto rank_before = ranks(*fb, engine, opts);
  if (!rank_now || !rank_before) return std::unexpected(rank_now ? rank_before.error() : rank_now.error());
  for (SwIdx s = 0; s < S && !rank_now->empty(); ++s)
    if ((*rank_now)[s] != (*rank_before)[was[s]])
      return mad::fail(mad::Errc::unsupported, "the up/down orientation moved");
  std::optional<Orientation> orient;
  if (!rank_now->empty()) orient.emplace(*rank_now);

  RepairResult out;
  out.tables = RoutingTables(now, now.max_lid());
  RoutingTables& t = out.tables;
  const size_t L = static_cast<size_t>(now.max_lid().value()) + 1;
  for (SwIdx s = 0; s < S; ++s) {
    const auto from = old.lft(fb->node_of(was[s]));
    auto to = t.lft(fn->node_of(s));
    std::copy_n(from.begin(), std::min(from.size(), L), to.begin());
  }

  std::vector<SwIdx> next(S);
  std::vector<uint8_t> port(S);
  std::vector<uint8_t> state(S);  // per destination: kReach | kLegal | kDown, or kBusy while walking
  constexpr uint8_t kReach = 1, kLegal = 2, kDown = 4, kBusy = 8, kUnknown = 16;
  std::vector<uint8_t> bad(S), settled(S);
  std::vector<uint32_t> usage(fn->port_slots(), 0);  // repaired entries per port: balance
  std::vector<SwIdx> order, stack;
  for (const Dest& d : fn->dests()) {
    const uint16_t lid = d.lid.value();
    const bool updown = orient && d.out != 0;  // switch LIDs carry management traffic only
    // What each switch's route does now: reaches the destination; is legal up*/down*; is
    // down-only (what a predecessor moving down into it needs). Memoised walks.
    for (SwIdx s = 0; s < S; ++s) {
      const uint8_t p = t.lft(fn->node_of(s))[lid];
      port[s] = p;
      next[s] = p == kNone ? kNoSw : fn->peer(s, p);
      state[s] = s == d.sw ? (p == d.out ? kReach | kLegal | kDown : 0) : kUnknown;
    }
    for (SwIdx s0 = 0; s0 < S; ++s0) {
      if (state[s0] != kUnknown) continue;
      stack.clear();
      SwIdx s = s0;
      while (state[s] == kUnknown && next[s] != kNoSw) {
        state[s] = kBusy;
        stack.push_back(s);
        s = next[s];
      }
      if (state[s] == kUnknown) state[s] = 0;  // goes nowhere
      uint8_t after = state[s] == kBusy ? 0 : state[s];  // a loop reaches nothing
      for (size_t k = stack.size(); k-- > 0;) {
        const SwIdx w = stack[k];
        const bool up = orient && orient->up(w, next[w]);
        uint8_t st = 0;
        if (after & kReach) {
          st = kReach;
          if (up) st |= (after & kLegal);
          else st |= (after & kDown) ? (kLegal | kDown) : 0;
        }
        state[w] = after = st;
      }
    }
    // Worth a look only when a route broke somewhere (unrouted entries stay as they were).
    bool broken = false;
    for (SwIdx s = 0; s < S && !broken; ++s) broken = !(state[s] & kReach) && port[s] != kNone;
    if (!broken) continue;
    const Costs c = costs_to(*fn, d.sw, updown ? &*orient : nullptr);
    // Bad: a route that no longer reaches, or that lost its legality where a legal one exists.
    // A bad switch's predecessors are bad too (their routes run through it), so no kept route
    // depends on a repaired one.
    order.clear();
    for (SwIdx s = 0; s < S; ++s) {
      const bool legal_possible = updown && c.any[s] != kInf;
      bad[s] = s != d.sw && (!(state[s] & kReach) || (legal_possible && !(state[s] & kLegal)));
      if (bad[s] && c.plain[s] == kInf) {
        if (!fn->endpoints_at(s).empty())
          return mad::fail(mad::Errc::unsupported, "a destination became unreachable");
        bad[s] = 0;  // cut off: nothing to repair toward
      }
      if (bad[s]) order.push_back(s);
    }
    if (order.empty()) continue;
    ++out.destinations;
    auto cost = [&](SwIdx x) { return updown && c.any[x] != kInf ? c.any[x] : c.plain[x]; };
    std::sort(order.begin(), order.end(), [&](SwIdx a, SwIdx b) { return cost(a) < cost(b); });
    std::fill(settled.begin(), settled.end(), 0);
    for (const SwIdx s : order) {
      // No legal route from here: only management traffic and nothing from a CA comes this
      // way, so the shortest path will do (as the engines' fallback does).
      const bool fallback = !updown || c.any[s] == kInf;
      if (updown && fallback && !fn->endpoints_at(s).empty())
        return mad::fail(mad::Errc::unsupported, "a switch with CAs lost every legal route");
      const uint32_t want = fallback ? c.plain[s] : c.any[s];
      uint8_t best = kNone;
      uint32_t best_use = kInf;
      bool best_down = false;
      for (const Arc& a : fn->arcs(s)) {
        const SwIdx u = a.to;
        if (bad[u] && !settled[u]) continue;
        bool ok;
        bool down_path = false;
        if (fallback) {
          ok = c.plain[u] != kInf && c.plain[u] + 1 == want && (state[u] & kReach);
        } else if (orient->up(s, u)) {
          ok = c.any[u] != kInf && c.any[u] + 1 == want && (state[u] & kLegal);
        } else {
          ok = c.down[u] != kInf && c.down[u] + 1 == want && (state[u] & kDown);
          down_path = true;
        }
        if (!ok) continue;
        const uint32_t use = usage[fn->port_slot(s, a.port)];
        if (use < best_use || (use == best_use && a.port < best)) {
          best = a.port;
          best_use = use;
          best_down = down_path;
        }
      }
      if (best == kNone) return mad::fail(mad::Errc::unsupported, "no consistent repair");
      ++usage[fn->port_slot(s, best)];
      if (best != port[s]) ++out.entries;
      t.set(fn->node_of(s), d.lid, best);
      next[s] = fn->peer(s, best);
      state[s] = fallback ? kReach : (best_down ? kReach | kLegal | kDown : kReach | kLegal);
      settled[s] = 1;
    }
  }
  // Anything the old tables had for LIDs that are gone now is dropped by the copy's length;
  // entries for LIDs that lost their port keep pointing where they did, harmlessly unused.
  return out;
}

}  // namespace routing
