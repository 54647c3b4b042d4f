#include "routing/roots.h"

#include <fmt/format.h>

#include <algorithm>

#include "routing/levels.h"
#include "routing/switch_graph.h"

namespace routing {

namespace {

// The switch of minimum eccentricity among `comp` (one connected component), lowest index on
// ties. One BFS per member: only run for fabrics that are not trees.
SwIdx centre(const SwitchGraph& g, const std::vector<SwIdx>& comp, size_t n) {
  HopSearch<uint32_t> bfs(g);
  std::vector<uint32_t> d(n);
  SwIdx best = comp.front();
  uint32_t best_ecc = UINT32_MAX;
  for (SwIdx s : comp) {
    bfs.run({&s, 1}, d);
    uint32_t ecc = 0;
    for (SwIdx v : comp) ecc = std::max(ecc, d[v]);
    if (ecc < best_ecc) best_ecc = ecc, best = s;
  }
  return best;
}

std::string names(const FabricView& fv, const std::vector<SwIdx>& roots) {
  std::vector<std::string> out;
  for (size_t i = 0; i < roots.size() && i < 8; ++i)
    out.push_back(fmt::format("'{}'", fv.topo().node(fv.node_of(roots[i])).description));
  if (roots.size() > 8) out.push_back(fmt::format("and {} more", roots.size() - 8));
  return fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

mad::Result<RootChoice> choose_roots(const FabricView& fv, const RoutingOptions& opts) {
  const size_t n = fv.switch_count();
  RootChoice rc;
  if (n == 0) return rc;
  const SwitchGraph g = make_switch_graph(fv);
  std::string how;
  if (!opts.root_guids.empty()) {
    std::vector<std::string> unknown;
    for (mad::Guid guid : opts.root_guids) {
      const auto node = fv.topo().find(guid);
      const SwIdx s = node ? fv.index_of(*node) : kNoSw;
      if (s == kNoSw)
        unknown.push_back(guid.str());
      else
        rc.roots.push_back(s);
    }
    if (rc.roots.empty())
      return mad::fail(mad::Errc::not_found,
                       fmt::format("none of the configured root GUIDs is a switch here ({})",
                                   fmt::join(unknown, ", ")));
    how = "configured";
    if (!unknown.empty())
      how += fmt::format(" ({} not found: {})", unknown.size(), fmt::join(unknown, ", "));
  } else {
    const Levels lv = leaf_levels(fv);
    if (fat_tree_violation(fv, lv).empty()) {
      for (SwIdx s = 0; s < n; ++s) {
        if (lv.level[s] == kNoLevel) continue;
        bool top = true;
        for (const Arc& a : fv.arcs(s)) top = top && lv.level[a.to] < lv.level[s];
        if (top) rc.roots.push_back(s);
      }
      how = "tree: switches with no neighbour above";
    } else {
      how = "not a tree: centre of the switch graph";
    }
  }
  std::sort(rc.roots.begin(), rc.roots.end());
  rc.roots.erase(std::unique(rc.roots.begin(), rc.roots.end()), rc.roots.end());

  // Components without a root get their centre.
  HopSearch<uint32_t> bfs(g);
  rc.rank.assign(n, 0);
  if (!rc.roots.empty()) bfs.run(rc.roots, rc.rank);
  else std::fill(rc.rank.begin(), rc.rank.end(), HopSearch<uint32_t>::kFar);
  std::vector<uint32_t> d(n);
  for (SwIdx s = 0; s < n; ++s) {
    if (rc.rank[s] != HopSearch<uint32_t>::kFar) continue;
    bfs.run({&s, 1}, d);
    std::vector<SwIdx> comp;
    for (SwIdx v = 0; v < n; ++v)
      if (d[v] != HopSearch<uint32_t>::kFar) comp.push_back(v);
    const SwIdx c = centre(g, comp, n);
    rc.roots.push_back(c);
    bfs.run({&c, 1}, d);
    for (SwIdx v : comp) rc.rank[v] = d[v];
  }
  std::sort(rc.roots.begin(), rc.roots.end());
  rc.how = fmt::format("{} root(s), {}: {}", rc.roots.size(), how, names(fv, rc.roots));
  return rc;
}

}  // namespace routing
