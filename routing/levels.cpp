#include "routing/levels.h"

#include <fmt/format.h>

#include "routing/switch_graph.h"

namespace routing {

Levels leaf_levels(const FabricView& fv) {
  Levels lv;
  const size_t n = fv.switch_count();
  for (SwIdx s = 0; s < n; ++s)
    if (!fv.endpoints_at(s).empty()) lv.leaves.push_back(s);
  lv.level.assign(n, kNoLevel);
  if (lv.leaves.empty()) return lv;
  const SwitchGraph g = make_switch_graph(fv);
  HopSearch<uint32_t> bfs(g);
  bfs.run(lv.leaves, lv.level);  // HopSearch<uint32_t>::kFar == kNoLevel
  for (uint32_t l : lv.level)
    if (l != kNoLevel) lv.top = std::max(lv.top, l);
  return lv;
}

std::string fat_tree_violation(const FabricView& fv, const Levels& lv) {
  if (lv.leaves.empty()) return "no switch has CAs attached";
  const fabric::Topology& topo = fv.topo();
  for (SwIdx s = 0; s < fv.switch_count(); ++s)
    for (const Arc& a : fv.arcs(s)) {
      if (a.to < s || lv.level[s] == kNoLevel || lv.level[s] != lv.level[a.to]) continue;
      return fmt::format(
          "switches '{}' and '{}' are both at level {} and linked (port {} - port {})",
          topo.node(fv.node_of(s)).description, topo.node(fv.node_of(a.to)).description,
          lv.level[s], a.port, a.peer_port);
    }
  return {};
}

std::vector<uint32_t> ranks_from_levels(const Levels& lv) {
  std::vector<uint32_t> rank(lv.level.size());
  for (size_t s = 0; s < rank.size(); ++s)
    rank[s] = lv.level[s] == kNoLevel ? lv.top + 1 : lv.top - lv.level[s];
  return rank;
}

}  // namespace routing
