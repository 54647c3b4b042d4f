#include "routing/balance.h"

#include <algorithm>
#include <cassert>
#include <tuple>

namespace routing {

namespace {

// Past its share, an arc into the destination costs this much per route: moving elsewhere
// beats any difference in the loads on the way. Capped so that the cost word cannot overflow.
constexpr uint64_t kOverWeight = 1024;
constexpr uint64_t kMaxOver = uint64_t{1} << 36;

// The candidate graph toward one destination switch t, shared by all of t's LIDs: the switches
// with a legal path by up/down distance, t itself at position 0, each with its candidate arcs
// (in port order), which lead to earlier positions.
class CandidateDag {
 public:
  struct Cand {
    uint32_t arc;      // global arc id (FabricView::arc_base + k): indexes the link loads
    uint32_t to_port;  // the neighbour's position << 8 | the output port
    uint32_t to() const { return to_port >> 8; }
    uint8_t port() const { return static_cast<uint8_t>(to_port & 0xFF); }
  };

  void build(const FabricView& fv, const Orientation& o, std::span<const uint16_t> row, SwIdx t,
             std::vector<uint32_t>& pos) {
    using C = UpDownCosts;
    const auto legal = [&](SwIdx s) { return s != t && row[s] != C::kFar && C::hops(row[s]) != 0; };
    // Counting sort by distance; switch order within a distance.
    size_t far = 0;
    for (SwIdx s = 0; s < fv.switch_count(); ++s)
      if (legal(s)) far = std::max<size_t>(far, C::hops(row[s]));
    count_.assign(far + 2, 0);
    count_[1] = 1;  // t
    for (SwIdx s = 0; s < fv.switch_count(); ++s)
      if (legal(s)) ++count_[C::hops(row[s]) + 1];
    for (size_t h = 1; h < count_.size(); ++h) count_[h] += count_[h - 1];
    order_.resize(count_.back());
    order_[0] = t;
    for (SwIdx s = 0; s < fv.switch_count(); ++s)
      if (legal(s)) order_[count_[C::hops(row[s])]++] = s;
    for (size_t k = 0; k < order_.size(); ++k) pos[order_[k]] = static_cast<uint32_t>(k);

    begin_.assign(1, 0);
    cands_.clear();
    sources_.assign(1, 0);
    entries_.clear();
    total_sources_ = 0;
    for (size_t k = 1; k < order_.size(); ++k) {
      const SwIdx s = order_[k];
      const uint16_t c = row[s];
      const uint16_t h = C::hops(c);
      const auto arcs = fv.arcs(s);
      // The rule of updown_candidates: down only, once down is possible; else up, one closer.
      for (size_t j = 0; j < arcs.size(); ++j) {
        const Arc& a = arcs[j];
        const bool ok =
            C::down(c) ? !o.up(s, a.to) && row[a.to] == static_cast<uint16_t>(C::kDown | (h - 1))
                       : o.up(s, a.to) && C::hops(row[a.to]) == h - 1;
        if (!ok) continue;
        cands_.push_back({fv.arc_base(s) + static_cast<uint32_t>(j), pos[a.to] << 8 | a.port});
        if (a.to == t) entries_.push_back(cands_.back().arc);
      }
      begin_.push_back(static_cast<uint32_t>(cands_.size()));
      sources_.push_back(static_cast<uint32_t>(fv.endpoints_at(s).size()));
      total_sources_ += sources_.back();
    }
  }

  size_t size() const { return order_.size(); }
  SwIdx at(size_t k) const { return order_[k]; }
  // Candidates of position k >= 1: cands()[first(k) .. last(k)).
  uint32_t first(size_t k) const { return begin_[k - 1]; }
  uint32_t last(size_t k) const { return begin_[k]; }
  const Cand* cands() const { return cands_.data(); }
  uint32_t sources(size_t k) const { return sources_[k]; }
  uint64_t total_sources() const { return total_sources_; }
  std::span<const uint32_t> entries() const { return entries_; }  // candidate arcs into t

 private:
  std::vector<uint32_t> count_;
  std::vector<SwIdx> order_;
  std::vector<uint32_t> begin_;
  std::vector<Cand> cands_;
  std::vector<uint32_t> sources_;
  std::vector<uint32_t> entries_;
  uint64_t total_sources_ = 0;
};

// LFT entries are chosen destination by destination but stored switch by switch: they are
// collected for kBatch LIDs, then written one cache line per switch rather than one miss per
// entry.
class LftWriter {
 public:
  static constexpr size_t kBatch = 64;
  LftWriter(const FabricView& fv, RoutingTables& tables)
      : fv_(fv), tables_(tables), buf_(fv.switch_count() * kBatch, kNoRoute) {}
  ~LftWriter() { flush(); }
  LftWriter(const LftWriter&) = delete;
  LftWriter& operator=(const LftWriter&) = delete;

  // The slot of the next LID; its entries go to set(s, slot, port).
  size_t open(mad::Lid lid) {
    if (lids_.size() == kBatch) flush();
    lids_.push_back(lid);
    return lids_.size() - 1;
  }
  void set(SwIdx s, size_t slot, uint8_t port) { buf_[s * kBatch + slot] = port; }

 private:
  void flush() {
    for (SwIdx s = 0; s < fv_.switch_count(); ++s) {
      const auto lft = tables_.lft(fv_.node_of(s));
      uint8_t* b = buf_.data() + s * kBatch;
      for (size_t j = 0; j < lids_.size(); ++j)
        if (b[j] != kNoRoute) lft[lids_[j].value()] = b[j];
      std::fill(b, b + lids_.size(), kNoRoute);
    }
    lids_.clear();
  }

  const FabricView& fv_;
  RoutingTables& tables_;
  std::vector<uint8_t> buf_;  // per switch, kBatch slots
  std::vector<mad::Lid> lids_;
};

}  // namespace

void balance_updown(const FabricView& fv, const Orientation& o, const UpDownCosts& costs,
                    RoutingTables& tables) {
  assert(!costs.by_source());
  // CA LIDs in leaf order (switch, port, LMC path): a switch's LIDs share one DAG.
  std::vector<Dest> order;
  for (const Dest& d : fv.dests())
    if (d.out != 0 && d.lid <= tables.max_lid()) order.push_back(d);
  std::sort(order.begin(), order.end(), [](const Dest& a, const Dest& b) {
    return std::tuple(a.sw, a.out, a.path) < std::tuple(b.sw, b.out, b.path);
  });

  std::vector<uint64_t> load(fv.arc_count(), 0);  // routes per directed link so far
  std::vector<uint64_t> into(fv.arc_count(), 0);  // this LID's routes per arc into t so far
  std::vector<uint32_t> pos(fv.switch_count());
  std::vector<uint64_t> cost, flow;
  std::vector<uint32_t> pick;   // per position: the chosen candidate
  std::vector<uint32_t> entry;  // per position: the arc by which its route enters t
  CandidateDag dag;
  LftWriter out(fv, tables);
  uint64_t share = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || order[i].sw != order[i - 1].sw) {
      dag.build(fv, o, costs.row(order[i].sw), order[i].sw, pos);
      size_t lids = 0;
      while (i + lids < order.size() && order[i + lids].sw == order[i].sw) ++lids;
      // What each arc into t carries when all of t's traffic is spread evenly over them.
      const uint64_t arcs_in = std::max<size_t>(1, dag.entries().size());
      share = (lids * dag.total_sources() + arcs_in - 1) / arcs_in;
    }
    const size_t m = dag.size();
    const CandidateDag::Cand* cand = dag.cands();
    const size_t slot = out.open(order[i].lid);
    cost.assign(m, 0);
    flow.resize(m);
    pick.resize(m);
    entry.resize(m);
    const auto entry_of = [&](uint32_t j) {
      return cand[j].to() == 0 ? cand[j].arc : entry[cand[j].to()];
    };
    for (size_t k = 1; k < m; ++k) {
      // Cost and candidate in one word: a branch-free min picks the cheapest, the lowest port
      // on ties. Which one wins is unpredictable, and this loop is most of the time.
      const uint32_t first = dag.first(k), last = dag.last(k);
      uint64_t best = UINT64_MAX;
      for (uint32_t j = first; j < last; ++j)
        best = std::min(best, (load[cand[j].arc] + cost[cand[j].to()]) << 8 | (j - first));
      cost[k] = best >> 8;
      pick[k] = first + static_cast<uint32_t>(best & 0xFF);
      entry[k] = entry_of(pick[k]);
      out.set(dag.at(k), slot, cand[pick[k]].port());
    }

    // One route per source CA (those on t cross no link), pushed from the far end inward:
    // each switch has its predecessors' flow before it passes it on. Where that would fill
    // the arc into t past its share, the switch moves to another candidate if one enters t
    // by an emptier arc: a destination splits only as much as the arcs into t need.
    for (size_t k = 1; k < m; ++k) flow[k] = dag.sources(k);
    for (size_t k = m; k-- > 1;) {
      const uint64_t f = flow[k];
      if (f == 0) continue;
      const uint64_t own = dag.sources(k);  // the rest is already counted in into[was]
      const uint32_t was = entry[k];
      const uint32_t first = dag.first(k), last = dag.last(k);
      if (load[was] + into[was] + own > share && last - first > 1) {
        uint64_t best = UINT64_MAX;
        for (uint32_t j = first; j < last; ++j) {
          const uint32_t e = entry_of(j);
          const uint64_t fill = load[e] + into[e] + (e == was ? own : f);
          const uint64_t over = fill > share ? std::min(fill - share, kMaxOver) : 0;
          best = std::min(best, (load[cand[j].arc] + cost[cand[j].to()] + over * kOverWeight)
                                        << 8 |
                                    (j - first));
        }
        pick[k] = first + static_cast<uint32_t>(best & 0xFF);
        entry[k] = entry_of(pick[k]);
        out.set(dag.at(k), slot, cand[pick[k]].port());
      }
      if (entry[k] == was) {
        into[was] += own;
      } else {
        into[was] -= f - own;
        into[entry[k]] += f;
      }
      load[cand[pick[k]].arc] += f;
      flow[cand[pick[k]].to()] += f;
    }
    for (uint32_t e : dag.entries()) into[e] = 0;
  }
}

}  // namespace routing
