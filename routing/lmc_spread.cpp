#include "routing/lmc_spread.h"

namespace routing {

std::vector<uint32_t> lmc_avoid_arcs(const FabricView& fv, SwIdx root,
                                     std::span<const std::span<const uint32_t>> earlier, uint32_t none) {
  std::vector<uint32_t> out;
  if (earlier.empty()) return out;
  const size_t n = fv.switch_count();
  std::vector<uint32_t> hops(n, UINT32_MAX);
  std::vector<SwIdx> q{root};
  hops[root] = 0;
  for (size_t i = 0; i < q.size(); ++i)
    for (const Arc& a : fv.arcs(q[i]))
      if (hops[a.to] == UINT32_MAX) {
        hops[a.to] = hops[q[i]] + 1;
        q.push_back(a.to);
      }
  for (std::span<const uint32_t> prev : earlier)
    for (SwIdx s = 0; s < n && s < prev.size(); ++s) {
      if (prev[s] == none) continue;
      const uint32_t base = fv.arc_base(s);
      const auto arcs = fv.arcs(s);
      const SwIdx taken = arcs[prev[s] - base].to;
      bool other = false;
      for (const Arc& a : arcs) other = other || (a.to != taken && hops[a.to] == hops[taken]);
      if (!other) continue;
      for (uint32_t k = 0; k < arcs.size(); ++k)
        if (arcs[k].to == taken) out.push_back(base + k);
    }
  return out;
}

}  // namespace routing
