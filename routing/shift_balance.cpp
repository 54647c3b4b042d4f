#include "routing/shift_balance.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "routing/parallel.h"

namespace routing {

namespace {

constexpr uint32_t kNoArc = UINT32_MAX;
constexpr size_t kMaxPath = 32;  // arcs; longer is a loop (none in legal tables of a tree)
constexpr int kMaxPasses = 4;       // over all destinations; most moves come in the first
constexpr int kMaxPeakPasses = 16;
// Shift evaluations (one candidate, one shift) before the pass stops where it is: bounds the
// time on large fabrics (ft3-r16-degraded5 takes about 33 million, 1.3 s here; larger trees stop
// at about 1.5x that), deterministically.
constexpr uint64_t kWorkBudget = 50'000'000;

// The flow counts of every shift, and per shift a histogram of them (for its maximum).
class ShiftCounts {
 public:
  // Link-major: the shifts of one link's flows to one destination from one leaf are adjacent.
  ShiftCounts(size_t shifts, size_t links) : shifts_(shifts), cnt_(shifts * links, 0) {}

  uint8_t& cell(size_t k, uint32_t l) { return cnt_[l * shifts_ + k]; }
  uint8_t at(size_t k, uint32_t l) const { return cnt_[l * shifts_ + k]; }

  // After the counting: histograms sized for counts up to the largest seen (moves that would
  // pass it are refused).
  void index(size_t shifts) {
    top_ = 0;
    for (uint8_t c : cnt_) top_ = std::max<uint16_t>(top_, c);
    levels_ = static_cast<size_t>(top_) + 1;
    hist_.assign(shifts * levels_, 0);
    max_.assign(shifts, 0);
    for (size_t i = 0; i < cnt_.size(); i += shifts_)
      for (size_t k = 0; k < shifts_; ++k) {
        ++hist_[k * levels_ + cnt_[i + k]];
        max_[k] = std::max<uint16_t>(max_[k], cnt_[i + k]);
      }
  }
  uint16_t top() const { return top_; }
  uint16_t max(size_t k) const { return max_[k]; }
  uint32_t links_at(size_t k, int v) const {
    return v < 0 || static_cast<size_t>(v) >= levels_ ? 0 : hist_[k * levels_ + static_cast<size_t>(v)];
  }
  void add(size_t k, uint32_t l, int delta) {
    uint8_t& c = cnt_[l * shifts_ + k];
    --hist_[k * levels_ + c];
    c = static_cast<uint8_t>(c + delta);
    ++hist_[k * levels_ + c];
    if (c > max_[k]) max_[k] = c;
    while (max_[k] > 0 && hist_[k * levels_ + max_[k]] == 0) --max_[k];
  }

 private:
  size_t shifts_;
  std::vector<uint8_t> cnt_;  // 8 bits: half the cache misses of 16
  uint16_t top_ = 0;
  size_t levels_ = 1;
  std::vector<uint32_t> hist_;
  std::vector<uint16_t> max_;
};

struct SbPath {
  std::array<uint32_t, kMaxPath> arc;  // the first len are set
  size_t len = 0;
};

class ShiftBalancer {
 public:
  ShiftBalancer(const FabricView& fv, RoutingTables& tables, size_t shifts)
      : fv_(fv), tables_(tables), counts_(shifts, fv.arc_count()) {
    const auto eps = fv.endpoints();
    n_ = eps.size();
    arc_of_slot_.assign(fv.port_slots(), kNoArc);
    for (SwIdx s = 0; s < fv.switch_count(); ++s) {
      const auto arcs = fv.arcs(s);
      for (size_t a = 0; a < arcs.size(); ++a)
        arc_of_slot_[fv.port_slot(s, arcs[a].port)] = fv.arc_base(s) + static_cast<uint32_t>(a);
    }
    arc_to_.resize(fv.arc_count());
    for (SwIdx s = 0; s < fv.switch_count(); ++s) {
      const auto arcs = fv.arcs(s);
      for (size_t a = 0; a < arcs.size(); ++a) arc_to_[fv.arc_base(s) + a] = arcs[a].to;
    }
    for (size_t i = 0; i < n_; ++i) {
      if (leaves_.empty() || leaves_.back().sw != eps[i].sw)
        leaves_.push_back({eps[i].sw, static_cast<uint32_t>(i), static_cast<uint32_t>(i)});
      ++leaves_.back().end;
    }
  }

  // The flows of every shift per link, destination by destination: a leaf's CAs are adjacent
  // in the ring, so the shifts of their flows to one destination are adjacent cells of each
  // link (link-major), and each leaf's route is walked once. False when some link carries more
  // than an 8-bit count of one shift's flows (no balancing then).
  bool count() {
    const auto eps = fv_.endpoints();
    next_.resize(fv_.switch_count());
    SbPath p;
    for (size_t j = 0; j < n_; ++j) {
      const mad::Lid lid = eps[j].lid;
      if (lid.value() == 0) continue;
      for (SwIdx s = 0; s < fv_.switch_count(); ++s) next_[s] = arc_at(s, lid);
      for (const Leaf& lf : leaves_) {
        if (lf.sw == eps[j].sw) continue;
        walk_next(lf.sw, p);
        for (size_t h = 0; h < p.len; ++h)
          for (uint32_t i = lf.begin; i < lf.end; ++i) {
            uint8_t& c = counts_.cell((j + n_ - i) % n_ - 1, p.arc[h]);
            if (c == UINT8_MAX) return false;
            ++c;
          }
      }
    }
    counts_.index(n_ - 1);
    a2a_.assign(fv_.arc_count(), 0);
    for (uint32_t l = 0; l < fv_.arc_count(); ++l)
      for (size_t k = 0; k + 1 < n_; ++k) a2a_[l] += counts_.at(k, l);
    cap_ = a2a_.empty() ? 0 : *std::max_element(a2a_.begin(), a2a_.end());
    return true;
  }

  uint64_t work() const { return work_; }
  uint64_t peak() const { return a2a_.empty() ? 0 : *std::max_element(a2a_.begin(), a2a_.end()); }
  uint64_t objective() const {
    uint64_t sum = 0;
    for (size_t k = 0; k + 1 < n_; ++k) sum += counts_.max(k);
    return sum;
  }

  // One pass over the destinations in leaf order; returns the moves made.
  // Shift mode: moves that lower the shift objective, all-to-all loads up to cap_. Peak mode:
  // moves off the links at the all-to-all peak (which becomes cap_) to links below it, the sum
  // of the shifts' maxima not rising.
  enum class Mode : uint8_t { shifts, peak };
  uint64_t pass(const std::vector<CandidateLists>& cands, Mode mode) {
    mode_ = mode;
    if (mode == Mode::peak) cap_ = peak();
    uint64_t moves = 0;
    const auto eps = fv_.endpoints();
    via_.assign(fv_.switch_count(), {});
    for (size_t j = 0; j < n_ && work_ < kWorkBudget; ++j) {
      if (eps[j].lid.value() == 0) continue;
      moves += sweep(j, cands);
    }
    return moves;
  }

 private:
  struct Leaf {
    SwIdx sw;
    uint32_t begin, end;  // its CAs in the ring
  };

  // The arcs a packet for `lid` crosses from switch s (stops where the LFT leaves the switch
  // graph: at the destination's CA).
  void walk(SwIdx s, mad::Lid lid, SbPath& p) const {
    p.len = 0;
    while (p.len < kMaxPath) {
      const uint32_t a = arc_at(s, lid);
      if (a == kNoArc) return;
      p.arc[p.len++] = a;
      s = arc_to_[a];
    }
  }
  uint32_t arc_at(SwIdx s, mad::Lid lid) const {
    const uint8_t port = tables_.lft(fv_.node_of(s))[lid.value()];
    if (port == kNoRoute || port > fv_.port_count(s)) return kNoArc;
    return arc_of_slot_[fv_.port_slot(s, port)];
  }
  // The same toward the destination of the current sweep (next_).
  void walk_next(SwIdx s, SbPath& p) const {
    p.len = 0;
    for (uint32_t a = next_[s]; a != kNoArc && p.len < kMaxPath; a = next_[arc_to_[a]])
      p.arc[p.len++] = a;
  }

  // Which leaves' routes to j cross each switch (leaf j's own CAs reach it directly).
  void trace(size_t j) {
    const Endpoint& dst = fv_.endpoints()[j];
    for (SwIdx s : touched_) via_[s].clear();
    touched_.clear();
    SbPath p;
    for (uint32_t li = 0; li < leaves_.size(); ++li) {
      const Leaf& lf = leaves_[li];
      if (lf.sw == dst.sw) continue;
      walk_next(lf.sw, p);
      SwIdx s = lf.sw;
      for (size_t h = 0; h <= p.len; ++h) {
        if (via_[s].empty()) touched_.push_back(s);
        via_[s].push_back(li);
        if (h < p.len) s = arc_to_[p.arc[h]];
      }
    }
  }

  // Tries every switch on the routes to ring index j once, lowest index first; returns the
  // moves made. A move changes which switches carry j's flows: the trace is redone.
  uint64_t sweep(size_t j, const std::vector<CandidateLists>& cands) {
    const SwIdx dsw = fv_.endpoints()[j].sw;
    const mad::Lid lid = fv_.endpoints()[j].lid;
    next_.resize(fv_.switch_count());
    bool peak_here = false;  // peak mode: only where j's routes cross a peak link
    for (SwIdx s = 0; s < fv_.switch_count(); ++s) {
      next_[s] = arc_at(s, lid);
      peak_here = peak_here || (next_[s] != kNoArc && a2a_[next_[s]] == cap_);
    }
    if (mode_ == Mode::peak && !peak_here) return 0;
    trace(j);
    order_ = touched_;
    std::sort(order_.begin(), order_.end());
    uint64_t moves = 0;
    for (SwIdx s : order_) {
      if (s == dsw || via_[s].empty()) continue;
      if (try_switch(s, j, cands[s].of(dsw))) {
        ++moves;
        trace(j);
      }
    }
    for (SwIdx s : touched_) via_[s].clear();
    touched_.clear();
    return moves;
  }

  // The shifts of the flows to j through s: one per source.
  template <class Fn>
  void for_each_shift(SwIdx s, size_t j, Fn&& fn) const {
    for (uint32_t li : via_[s])
      for (uint32_t i = leaves_[li].begin; i < leaves_[li].end; ++i)
        fn((j + n_ - i) % n_ - 1);  // row of shift (j - i) mod n
  }

  bool try_switch(SwIdx s, size_t j, std::span<const uint8_t> cand) {
    if (cand.size() < 2) return false;
    const mad::Lid lid = fv_.endpoints()[j].lid;
    uint8_t& entry = tables_.lft(fv_.node_of(s))[lid.value()];
    SbPath old_path;
    walk_next(s, old_path);
    // A move lowers the objective only if some shift has this flow on one of its busiest
    // links, and that link carries more than this flow (a shift at 1 is at its best).
    bool hot = false;
    if (mode_ == Mode::peak)
      for (size_t h = 0; h < old_path.len && !hot; ++h) hot = a2a_[old_path.arc[h]] == cap_;
    for (size_t v = 0; v < via_[s].size() && !hot && mode_ == Mode::shifts; ++v) {
      const Leaf& lf = leaves_[via_[s][v]];
      for (uint32_t i = lf.begin; i < lf.end && !hot; ++i) {
        const size_t k = (j + n_ - i) % n_ - 1;
        for (size_t h = 0; h < old_path.len && !hot; ++h)
          hot = counts_.max(k) >= 2 && counts_.at(k, old_path.arc[h]) == counts_.max(k);
      }
    }
    if (!hot) return false;
    uint64_t weight = 0;
    for (uint32_t li : via_[s]) weight += leaves_[li].end - leaves_[li].begin;

    // Per shift of the flows through s: its state and the counts on the old path, read once.
    const size_t olen = std::min<size_t>(old_path.len, 63);
    shift_.clear();
    old_val_.clear();
    for_each_shift(s, j, [&](size_t k) {
      const int m = counts_.max(k);
      shift_.push_back({k, m, counts_.links_at(k, m), counts_.links_at(k, m - 1)});
      for (size_t h = 0; h < olen; ++h) old_val_.push_back(counts_.at(k, old_path.arc[h]));
    });
    using Key = std::tuple<int64_t, int64_t, int64_t>;
    Key best{0, 0, 0};
    uint8_t best_port = kNoRoute;
    SbPath best_on;
    uint64_t best_keep = 0;
    for (uint8_t q : cand) {
      if (q == entry) continue;
      const uint32_t first = arc_of_slot_[fv_.port_slot(s, q)];
      if (first == kNoArc) continue;
      SbPath tail;
      walk_next(arc_to_[first], tail);
      // The arcs that gain this flow, and the old ones it leaves (those on both paths, the
      // common end of the route, change nothing).
      SbPath on;
      uint64_t keep_old = 0;  // bit h: old_path.arc[h] is left
      on.arc[on.len++] = first;
      for (size_t h = 0; h < tail.len && on.len < kMaxPath; ++h) on.arc[on.len++] = tail.arc[h];
      {
        size_t out = 0;
        for (size_t h = 0; h < on.len; ++h) {
          const auto it = std::find(old_path.arc.begin(), old_path.arc.begin() + olen, on.arc[h]);
          if (it == old_path.arc.begin() + olen) on.arc[out++] = on.arc[h];
          else keep_old |= uint64_t{1} << (it - old_path.arc.begin());
        }
        on.len = out;
        keep_old = ~keep_old & ((olen == 64 ? 0 : uint64_t{1} << olen) - 1);
      }
      bool ok = true;
      int64_t d_sq = 0;
      for (size_t h = 0; h < on.len; ++h) {
        const uint64_t a = a2a_[on.arc[h]];
        ok = ok && (mode_ == Mode::shifts ? a + weight <= cap_ : a + weight < cap_);
        d_sq += static_cast<int64_t>((a + weight) * (a + weight) - a * a);
      }
      if (!ok) continue;
      for (size_t h = 0; h < olen; ++h) {
        if (!(keep_old >> h & 1)) continue;
        const uint64_t a = a2a_[old_path.arc[h]];
        d_sq -= static_cast<int64_t>(a * a - (a - weight) * (a - weight));
      }
      int64_t d_max = 0, d_at = 0;
      work_ += shift_.size();
      for (size_t x = 0; x < shift_.size() && ok; ++x) {
        const ShiftState& st = shift_[x];
        const int m = st.m;
        int on_at_m = 0, on_at_m1 = 0, on_at_m2 = 0, off_at_m = 0, off_at_m1 = 0;
        for (size_t h = 0; h < on.len; ++h) {
          const int c = counts_.at(st.k, on.arc[h]);
          on_at_m += c == m;
          on_at_m1 += c == m - 1;
          on_at_m2 += c == m - 2;
        }
        const uint8_t* ov = old_val_.data() + x * olen;
        for (size_t h = 0; h < olen; ++h) {
          if (!(keep_old >> h & 1)) continue;
          off_at_m += ov[h] == m;
          off_at_m1 += ov[h] == m - 1;
        }
        // Shift k's busiest count and how many links have it after the move.
        int m2 = m;
        int64_t c2 = 0;
        if (on_at_m > 0) {
          ok = m + 1 <= counts_.top();
          m2 = m + 1;
          c2 = on_at_m;
        } else if (const int64_t at_m = int64_t{st.at_m} - off_at_m + on_at_m1; at_m > 0 || m == 0) {
          c2 = m == 0 ? 0 : at_m;
        } else {
          m2 = m - 1;
          c2 = m2 == 0 ? 0 : int64_t{st.at_m1} + off_at_m - off_at_m1 + on_at_m2;
        }
        d_max += m2 - m;
        d_at += c2 - int64_t{st.at_m};
      }
      if (!ok) continue;
      const Key key{d_max, d_at, d_sq};
      const bool better = mode_ == Mode::shifts ? key < best
                                                : d_max <= 0 && (best_port == kNoRoute || key < best);
      if (better) {
        best = key;
        best_port = q;
        best_keep = keep_old;
        best_on = on;
      }
    }
    if (best_port == kNoRoute) return false;
    for_each_shift(s, j, [&](size_t k) {
      for (size_t h = 0; h < olen; ++h)
        if (best_keep >> h & 1) counts_.add(k, old_path.arc[h], -1);
      for (size_t h = 0; h < best_on.len; ++h) counts_.add(k, best_on.arc[h], +1);
    });
    for (size_t h = 0; h < olen; ++h)
      if (best_keep >> h & 1) a2a_[old_path.arc[h]] -= weight;
    for (size_t h = 0; h < best_on.len; ++h) a2a_[best_on.arc[h]] += weight;
    entry = best_port;
    next_[s] = arc_of_slot_[fv_.port_slot(s, best_port)];
    return true;
  }

  const FabricView& fv_;
  RoutingTables& tables_;
  ShiftCounts counts_;
  size_t n_ = 0;
  std::vector<uint32_t> arc_of_slot_;
  std::vector<SwIdx> arc_to_;
  std::vector<Leaf> leaves_;
  std::vector<uint64_t> a2a_;
  uint64_t cap_ = 0;
  Mode mode_ = Mode::shifts;
  uint64_t work_ = 0;  // shift evaluations so far (kWorkBudget)
  std::vector<std::vector<uint32_t>> via_;
  std::vector<SwIdx> touched_, order_;
  std::vector<uint32_t> next_;  // per switch: its arc toward the sweep's destination
  struct ShiftState {
    size_t k;
    int m;            // its busiest link's count
    uint32_t at_m, at_m1;  // links at m, at m - 1
  };
  std::vector<ShiftState> shift_;
  std::vector<uint8_t> old_val_;  // per entry of shift_: the counts on the old path
};

}  // namespace

ShiftBalanceStats balance_shifts(const FabricView& fv, const CandidateFn& candidates,
                                 unsigned threads, RoutingTables& tables) {
  ShiftBalanceStats st;
  const size_t n = fv.endpoints().size();
  if (n < 3 || fv.arc_count() == 0) return st;  // nothing to balance (or no switch links)
  for (const Endpoint& e : fv.endpoints())
    if (e.lmc > 0) return st;  // the LIDs of one port are spread on purpose: leave them
  const size_t bytes = (n - 1) * fv.arc_count() * sizeof(uint8_t);
  if (bytes > kShiftBalanceMaxBytes) return st;
  ShiftBalancer b(fv, tables, n - 1);
  if (!b.count()) return st;
  std::vector<CandidateLists> cands(fv.switch_count());
  parallel_for(fv.switch_count(), threads, [&](size_t s, unsigned) {
    candidates(static_cast<SwIdx>(s), cands[s]);
  }, 4);
  st.ran = true;
  st.before = b.objective();
  using Mode = ShiftBalancer::Mode;
  const auto passes = [&](Mode mode, int most) {
    // A shift whose busiest link has one flow is at its best (a complete tree's all are).
    if (mode == Mode::shifts && st.before == n - 1 && b.objective() == n - 1) return;
    for (int pass = 0; pass < most; ++pass) {
      const uint64_t m = b.pass(cands, mode);
      st.moves += m;
      if (m == 0) break;
    }
  };
  passes(Mode::shifts, kMaxPasses);
  // Lowers the fill's all-to-all peak where it can, unless it is at a leaf's cut bound
  // already (fabric/bounds.h: a leaf's n CAs send n (N - n) routes over its c up-links).
  uint64_t leaf_bound = 0;
  for (SwIdx s = 0; s < fv.switch_count(); ++s) {
    const uint64_t cas = fv.endpoints_at(s).size(), c = fv.arcs(s).size();
    if (cas > 0 && c > 0) leaf_bound = std::max(leaf_bound, (cas * (n - cas) + c - 1) / c);
  }
  if (b.peak() > leaf_bound) passes(Mode::peak, kMaxPeakPasses);
  passes(Mode::shifts, 1);             // under the new peak
  st.after = b.objective();
  return st;
}

}  // namespace routing
