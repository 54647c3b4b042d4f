#include "fabric/bounds.h"

#include <algorithm>

#include "fabric/cut_search.h"
#include "fabric/wiring.h"

namespace fabric {

namespace {

// A run of CAs in leaf order, [begin, end).
struct CaRange {
  uint64_t begin, end;
};

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// |R ∩ (R + k)| with indices mod `total`, for R sorted, disjoint, within [0, total) and
// 0 < k < total: how many CAs of R send into R under shift k. The shifted ranges that wrap past
// the end all land below k, before the others, so both lists come out sorted.
uint64_t kept_inside(std::span<const CaRange> r, uint64_t k, uint64_t total, std::vector<CaRange>& moved) {
  moved.clear();
  for (const CaRange& x : r)
    if (x.end + k > total) moved.push_back({x.begin + k >= total ? x.begin + k - total : 0, x.end + k - total});
  for (const CaRange& x : r)
    if (x.begin + k < total) moved.push_back({x.begin + k, std::min(x.end + k, total)});
  uint64_t both = 0;
  for (size_t i = 0, j = 0; i < r.size() && j < moved.size();) {
    const uint64_t lo = std::max(r[i].begin, moved[j].begin), hi = std::min(r[i].end, moved[j].end);
    if (hi > lo) both += hi - lo;
    if (r[i].end < moved[j].end) ++i;
    else ++j;
  }
  return both;
}

}  // namespace

CutBounds cut_bounds(const Topology& topo, const MetricsOptions& opts) {
  CutBounds r;
  const Wiring w = wire(topo, {});
  const cuts::SwitchGraph g = cuts::switch_graph(topo, w);
  const uint64_t N = g.total_cas;
  r.ca_ports = N;
  const auto [shifts, sampled] = shift_list(N, opts);
  r.shifts = shifts.size();
  r.shifts_sampled = sampled;
  const std::vector<cuts::Cut> cuts = cuts::candidate_cuts(g);
  r.cuts = cuts.size();

  // Each shift's bound so far, and the flows and channels of its cut: of two cuts that give
  // the same bound, the one with more flows per channel is named (the tighter, before rounding).
  std::vector<uint64_t> best(shifts.size(), 0), best_flows(shifts.size(), 0), best_channels(shifts.size(), 1);
  std::vector<size_t> best_cut(shifts.size(), cuts.size());
  uint64_t lowest = 0;  // the least of them: a cut that cannot reach it is not walked
  uint64_t all_pairs = 0, all_channels = 1;  // the same for the all-to-all bound
  std::vector<BoundCut> info(cuts.size());
  std::vector<uint8_t> in(g.size(), 0);
  std::vector<CaRange> ranges, moved;
  for (size_t i = 0; i < cuts.size(); ++i) {
    const cuts::Cut& cut = cuts[i];
    for (uint32_t s : cut.members) in[s] = 1;
    uint64_t n = 0, c = 0;
    ranges.clear();
    for (uint32_t s : cut.members) {  // ascending, so the CA ranges come in leaf order
      for (uint32_t e = g.adj_begin[s]; e < g.adj_begin[s + 1]; ++e)
        if (!in[g.adj[e]]) c += g.cables[e];
      if (!g.cas[s]) continue;
      n += g.cas[s];
      if (!ranges.empty() && ranges.back().end == g.first_ca[s]) ranges.back().end += g.cas[s];
      else ranges.push_back({g.first_ca[s], uint64_t{g.first_ca[s]} + g.cas[s]});
    }
    for (uint32_t s : cut.members) in[s] = 0;
    info[i] = BoundCut{cut.what, n, c};
    if (c == 0) continue;  // no channel out: those pairs have no route at all, nothing to bound
    const uint64_t pairs = n * (N - n), all = ceil_div(pairs, c);
    if (all > r.max_link_load || (all == r.max_link_load && pairs * all_channels > all_pairs * c)) {
      r.max_link_load = all;
      r.max_link_load_cut = info[i];
      all_pairs = pairs;
      all_channels = c;
    }
    // Flows leaving = flows entering, so at most the smaller side's CAs.
    const uint64_t most = ceil_div(std::min(n, N - n), c);
    if (most < lowest) continue;
    bool raised = false;
    for (size_t j = 0; j < shifts.size(); ++j) {
      if (most < best[j]) continue;
      const uint64_t leaving = n - kept_inside(ranges, shifts[j] % N, N, moved);
      const uint64_t b = ceil_div(leaving, c);
      if (b > best[j] || (b == best[j] && b > 0 && leaving * best_channels[j] > best_flows[j] * c)) {
        raised = raised || b > best[j];
        best[j] = b;
        best_flows[j] = leaving;
        best_channels[j] = c;
        best_cut[j] = i;
      }
    }
    if (raised) lowest = *std::min_element(best.begin(), best.end());
  }
  if (shifts.empty()) return r;
  uint64_t sum = 0;
  std::vector<size_t> count(cuts.size() + 1, 0);
  for (size_t j = 0; j < shifts.size(); ++j) {
    sum += best[j];
    r.shift_congestion_max = std::max(r.shift_congestion_max, best[j]);
    ++count[best_cut[j]];
  }
  r.shift_congestion = static_cast<double>(sum) / static_cast<double>(shifts.size());
  const size_t most_often = static_cast<size_t>(std::max_element(count.begin(), count.end() - 1) - count.begin());
  if (most_often < cuts.size() && count[most_often] > 0) {
    r.shift_cut = info[most_often];
    r.shift_cut_shifts = count[most_often];
  }
  return r;
}

}  // namespace fabric
