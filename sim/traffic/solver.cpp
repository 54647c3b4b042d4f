#include "sim/traffic/solver.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace sim::traffic {

void solve_max_min(const Problem& p, Allocation& out, SolverScratch& s) {
  const size_t C = p.capacity.size();
  const size_t F = p.path_off.empty() ? 0 : p.path_off.size() - 1;
  auto weight = [&](size_t f) { return p.weight.empty() ? 1.0 : p.weight[f]; };
  out.rate.assign(F, 0.0);
  out.load.assign(C, 0.0);
  s.residual.assign(p.capacity.begin(), p.capacity.end());
  s.weight_sum.assign(C, 0.0);
  s.open.assign(C, 0);  // flows not yet frozen, by channel (exact, unlike the weight sum)
  s.frozen.assign(F, 0);
  // Channel -> flows, as CSR (a counting sort of the path entries).
  s.chan_off.assign(C + 1, 0);
  for (size_t f = 0; f < F; ++f)
    for (uint32_t k = p.path_off[f]; k < p.path_off[f + 1]; ++k) {
      const uint32_t c = p.path[k];
      ++s.chan_off[c + 1];
      ++s.open[c];
      s.weight_sum[c] += weight(f);
    }
  for (size_t c = 0; c < C; ++c) s.chan_off[c + 1] += s.chan_off[c];
  s.chan_flows.resize(s.chan_off[C]);
  {
    std::vector<uint32_t> fill(s.chan_off.begin(), s.chan_off.end() - 1);
    for (size_t f = 0; f < F; ++f)
      for (uint32_t k = p.path_off[f]; k < p.path_off[f + 1]; ++k) s.chan_flows[fill[p.path[k]]++] = static_cast<uint32_t>(f);
  }
  // Keys are the fair share residual / weight when pushed; a channel's share only grows as
  // flows elsewhere freeze (they take no more than the share they froze at), so a popped key
  // that is out of date is pushed again with its current share.
  using Key = std::pair<double, uint32_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> heap;
  for (uint32_t c = 0; c < C; ++c)
    if (s.open[c]) heap.emplace(s.residual[c] / s.weight_sum[c], c);
  while (!heap.empty()) {
    const auto [key, c] = heap.top();
    heap.pop();
    if (s.open[c] == 0) continue;
    const double share = std::max(0.0, s.residual[c]) / s.weight_sum[c];
    if (share > key * (1 + 1e-12) + 1e-300) {
      heap.emplace(share, c);
      continue;
    }
    for (uint32_t k = s.chan_off[c]; k < s.chan_off[c + 1]; ++k) {
      const uint32_t f = s.chan_flows[k];
      if (s.frozen[f]) continue;
      s.frozen[f] = 1;
      const double w = weight(f);
      const double r = w * share;
      out.rate[f] = r;
      for (uint32_t j = p.path_off[f]; j < p.path_off[f + 1]; ++j) {
        const uint32_t d = p.path[j];
        s.residual[d] -= r;
        s.weight_sum[d] -= w;
        out.load[d] += r;
        if (--s.open[d] == 0) s.weight_sum[d] = 0;
        else if (s.weight_sum[d] < 1e-12) s.weight_sum[d] = 1e-12;  // rounding, never below
      }
    }
  }
}

Allocation solve_max_min(const Problem& p) {
  Allocation a;
  SolverScratch s;
  solve_max_min(p, a, s);
  return a;
}

}  // namespace sim::traffic
