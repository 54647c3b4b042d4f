#include "routing/repair.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <limits>
#include <queue>

#include "routing/fabric_view.h"
#include "routing/updown.h"

namespace routing {

namespace {

constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();
constexpr uint8_t kNone = 0xFF;

// Ranks of `fv` by the engine's orientation; empty for shortest-path engines.
mad::Result<std::vector<uint32_t>> ranks(const FabricView& fv, const Engine& engine, const RoutingOptions& o) {
  switch (engine.repair_rule()) {
    case RepairRule::shortest_paths: return std::vector<uint32_t>{};
    case RepairRule::up_down: return engine.orientation(fv, o);
    case RepairRule::none: break;
  }
  return mad::fail(mad::Errc::unsupported, fmt::format("no repair rules for engine '{}'", engine.name()));
}

// Connected components of the switch graph: a switch in another component than a destination
// has no route to it at all.
std::vector<uint32_t> components(const FabricView& fv) {
  std::vector<uint32_t> comp(fv.switch_count(), kInf);
  std::vector<SwIdx> q;
  for (SwIdx r = 0; r < fv.switch_count(); ++r) {
    if (comp[r] != kInf) continue;
    comp[r] = r;
    q.assign(1, r);
    for (size_t h = 0; h < q.size(); ++h)
      for (const Arc& a : fv.arcs(q[h]))
        if (comp[a.to] == kInf) {
          comp[a.to] = r;
          q.push_back(a.to);
        }
  }
  return comp;
}

}  // namespace

mad::Result<RepairResult> repair_routes(const Topology& before, const RoutingTables& old, const Topology& now,
                                        std::string_view engine_name, const RoutingOptions& opts) {
  auto engine = make_engine(engine_name);
  if (!engine) return std::unexpected(engine.error());
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
  // A port that is new, or answers on another switch port than before, has no old routes to
  // keep (and an untouched kNoRoute column would look healthy below).
  const auto old_dests = fb->dests();  // in LID order
  for (const Dest& d : fn->dests()) {
    const auto it = std::lower_bound(old_dests.begin(), old_dests.end(), d.lid,
                                     [](const Dest& x, mad::Lid l) { return x.lid < l; });
    if (it == old_dests.end() || it->lid != d.lid || it->sw != was[d.sw] || it->out != d.out)
      return mad::fail(mad::Errc::unsupported, fmt::format("destination LID {} was added or moved", d.lid));
  }
  auto rank_now = ranks(*fn, **engine, opts);
  auto rank_before = ranks(*fb, **engine, opts);
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
  // The cables that are gone, per switch (their ports).
  std::vector<std::pair<SwIdx, std::bitset<256>>> dead;
  for (SwIdx s = 0; s < S; ++s) {
    std::bitset<256> ports;
    for (unsigned p = 1; p <= fb->port_count(was[s]); ++p)
      if (fb->peer(was[s], static_cast<uint8_t>(p)) != kNoSw && fn->peer(s, static_cast<uint8_t>(p)) == kNoSw)
        ports.set(p);
    if (ports.any()) dead.emplace_back(s, ports);
  }
  // Only a destination with an entry into a cable that is gone can have a broken route (a
  // route into a lost switch too: its predecessor's cable is gone). Every other route runs
  // over the links it did, under the same orientation, so it is as good as before.
  std::vector<uint8_t> affected(L, 0);
  for (const auto& [s, ports] : dead) {
    const auto lft = t.lft(fn->node_of(s));
    for (size_t l = 0; l < L; ++l) affected[l] |= lft[l] != kNone && ports.test(lft[l]);
  }
  // Their columns (every switch's entry), gathered table by table: fetching one entry of
  // every switch per destination costs a cache miss per switch, reading each table once is a
  // stream. Repairs change only their own destination's column, so gathering first is exact.
  std::vector<uint32_t> column(L, kInf);
  std::vector<uint16_t> gathered;
  for (size_t l = 0; l < L; ++l)
    if (affected[l]) {
      column[l] = static_cast<uint32_t>(gathered.size());
      gathered.push_back(static_cast<uint16_t>(l));
    }
  const size_t K = gathered.size();
  std::vector<uint8_t> entries(K * S);  // switch by switch: writes in order, and a destination
  for (SwIdx s = 0; s < S; ++s) {       // reads only the few switches it visits
    const uint8_t* lft = t.lft(fn->node_of(s)).data();
    for (size_t k = 0; k < K; ++k) entries[s * K + k] = lft[gathered[k]];
  }
  struct Column {  // one destination's entries
    uint8_t* base;
    size_t stride;
    uint8_t& operator[](SwIdx s) const { return base[s * stride]; }
  };

  // Per destination, only the switches around the break are looked at: arrays are stamped
  // with the destination's number instead of being cleared.
  //  bad: the switches whose route runs into a gone cable (the switches with an entry into
  //    one, and everything routed through them), to be re-routed;
  //  known: a switch whose route's state and length are known (kept and walked, or repaired).
  constexpr uint8_t kReach = 1, kLegal = 2, kDown = 4, kBusy = 8;
  std::vector<uint32_t> bad_at(S, 0), known_at(S, 0), done_at(S, 0);
  std::vector<uint8_t> state(S);  // kReach | kLegal (up*/down*) | kDown (down moves only)
  std::vector<uint32_t> hops(S), cost(S);
  std::vector<uint32_t> usage(fn->port_slots(), 0);  // repaired entries per port: balance
  std::vector<SwIdx> bad, stack;
  using Queued = std::pair<uint32_t, SwIdx>;
  std::priority_queue<Queued, std::vector<Queued>, std::greater<>> heap;
  const std::vector<uint32_t> comp = components(*fn);
  uint32_t stamp = 0;
  for (const Dest& d : fn->dests()) {
    const uint16_t lid = d.lid.value();
    if (column[lid] == kInf) continue;
    const Column entry{&entries[column[lid]], K};
    ++stamp;
    const bool updown = orient && d.out != 0;  // switch LIDs carry management traffic only
    bad.clear();
    for (const auto& [s, ports] : dead)
      if (entry[s] != kNone && ports.test(entry[s])) {
        bad_at[s] = stamp;
        bad.push_back(s);
      }
    for (size_t h = 0; h < bad.size(); ++h)  // and whoever routes through them
      for (const Arc& a : fn->arcs(bad[h]))
        if (bad_at[a.to] != stamp && a.to != d.sw && entry[a.to] == a.peer_port) {
          bad_at[a.to] = stamp;
          bad.push_back(a.to);
        }
    // Cut off from the destination: nothing to repair toward (but a CA there loses it).
    for (size_t k = 0; k < bad.size();) {
      if (comp[bad[k]] == comp[d.sw]) {
        ++k;
        continue;
      }
      if (!fn->endpoints_at(bad[k]).empty())
        return mad::fail(mad::Errc::unsupported, "a destination became unreachable");
      bad_at[bad[k]] = 0;
      bad[k] = bad.back();
      bad.pop_back();
    }
    if (bad.empty()) continue;
    ++out.destinations;

    // What a kept route does: reaches the destination, is legal up*/down*, is down-only (what
    // a predecessor moving down into it needs), in how many hops. Memoised walks; a kept
    // route never enters a bad switch (or it would be bad itself).
    auto walk = [&](SwIdx u) {
      stack.clear();
      SwIdx s = u;
      while (known_at[s] != stamp) {
        known_at[s] = stamp;
        if (s == d.sw) {
          state[s] = entry[s] == d.out ? kReach | kLegal | kDown : 0;
          hops[s] = 0;
          break;
        }
        const SwIdx next = entry[s] == kNone ? kNoSw : fn->peer(s, entry[s]);
        if (next == kNoSw || bad_at[next] == stamp) {
          state[s] = 0;
          break;
        }
        state[s] = kBusy;
        stack.push_back(s);
        s = next;
      }
      uint8_t after = state[s] == kBusy ? 0 : state[s];  // a loop reaches nothing
      uint32_t h = hops[s];
      for (size_t k = stack.size(); k-- > 0;) {
        const SwIdx w = stack[k];
        uint8_t st = 0;
        if (after & kReach) {
          st = kReach;
          if (orient && orient->up(w, fn->peer(w, entry[w]))) st |= (after & kLegal);
          else st |= (after & kDown) ? (kLegal | kDown) : 0;
        }
        state[w] = after = st;
        hops[w] = ++h;
      }
    };
    // The state a route from s gets by moving to a resolved u; 0 if the move breaks the rules.
    auto via = [&](SwIdx s, SwIdx u, bool legal) -> uint8_t {
      if (bad_at[u] != stamp) walk(u);
      const uint8_t su = state[u];
      if (!(su & kReach)) return 0;
      if (!legal) return kReach;
      if (orient->up(s, u)) return (su & kLegal) ? kReach | kLegal : 0;
      return (su & kDown) ? kReach | kLegal | kDown : 0;
    };
    auto resolved = [&](SwIdx u) { return bad_at[u] != stamp || done_at[u] == stamp; };
    // Re-routes the bad switches it can, nearest first (a Dijkstra from the kept routes
    // around them): each takes a shortest way into a kept or already repaired route, under
    // the engine's rules (`legal`: up*/down*) or as a shortest path. A kept route was the
    // shortest of its kind and still is (it lost nothing, and removals only lengthen), so
    // this is the engine's own rule wherever the old routes were the engine's.
    auto settle = [&](bool legal) -> mad::Result<void> {
      for (const SwIdx s : bad) {
        if (done_at[s] == stamp) continue;
        cost[s] = kInf;
        for (const Arc& a : fn->arcs(s))
          if (resolved(a.to) && via(s, a.to, legal)) cost[s] = std::min(cost[s], hops[a.to] + 1);
        if (cost[s] != kInf) heap.emplace(cost[s], s);
      }
      while (!heap.empty()) {
        const auto [c, s] = heap.top();
        heap.pop();
        if (done_at[s] == stamp || c != cost[s]) continue;
        // Among the moves that achieve it: the old port (it was the engine's balanced choice,
        // and keeping it writes nothing), then a down move (it serves more predecessors),
        // then the port least used by this repair.
        uint8_t best = kNone, best_state = 0;
        uint32_t best_use = kInf;
        for (const Arc& a : fn->arcs(s)) {
          if (!resolved(a.to)) continue;
          const uint8_t st = via(s, a.to, legal);
          if (!st || hops[a.to] + 1 != c) continue;
          const bool keep = a.port == entry[s];
          const uint32_t use = usage[fn->port_slot(s, a.port)];
          const bool better = best == kNone || keep || (st & kDown) > (best_state & kDown) ||
                              ((st & kDown) == (best_state & kDown) && use < best_use);
          if (better) {
            best = a.port;
            best_state = st;
            best_use = use;
          }
          if (keep) break;
        }
        if (best == kNone) return mad::fail(mad::Errc::unsupported, "no consistent repair");
        ++usage[fn->port_slot(s, best)];
        if (best != entry[s]) {
          ++out.entries;
          entry[s] = best;
          t.set(fn->node_of(s), d.lid, best);
        }
        state[s] = best_state;
        hops[s] = c;
        done_at[s] = known_at[s] = stamp;
        for (const Arc& a : fn->arcs(s)) {  // its predecessors may now get through it
          const SwIdx x = a.to;
          if (bad_at[x] != stamp || done_at[x] == stamp || c + 1 >= cost[x]) continue;
          if (!via(x, s, legal)) continue;
          cost[x] = c + 1;
          heap.emplace(cost[x], x);
        }
      }
      return {};
    };
    if (auto r = settle(updown); !r) return std::unexpected(r.error());
    if (updown) {
      // No legal route from here: only management traffic and nothing from a CA comes this
      // way, so the shortest path will do (as the engines' fallback does).
      for (const SwIdx s : bad)
        if (done_at[s] != stamp && !fn->endpoints_at(s).empty())
          return mad::fail(mad::Errc::unsupported, "a switch with CAs lost every legal route");
      if (auto r = settle(false); !r) return std::unexpected(r.error());
    }
    for (const SwIdx s : bad)
      if (done_at[s] != stamp) return mad::fail(mad::Errc::unsupported, "no consistent repair");
  }
  // Anything the old tables had for LIDs that are gone now is dropped by the copy's length;
  // entries for LIDs that lost their port keep pointing where they did, harmlessly unused.
  return out;
}

}  // namespace routing
