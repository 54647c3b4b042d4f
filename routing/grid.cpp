#include "routing/grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <span>

#include "routing/lowest_root_sets.h"

namespace routing {

namespace {

mad::Error not_a_grid(std::string why) {
  return mad::Error{mad::Errc::unsupported, fmt::format("not a mesh, torus or HyperX: {}", why)};
}

// The switch graph without parallel cables: sorted distinct neighbours (CSR) and the id of
// each undirected edge, numbered in (lower end, higher end) order.
struct SimpleGraph {
  std::vector<uint32_t> begin;
  std::vector<SwIdx> nbr;
  std::vector<uint32_t> edge;
  uint32_t edges = 0;

  std::span<const SwIdx> neighbours(SwIdx s) const { return {nbr.data() + begin[s], begin[s + 1] - begin[s]}; }
  // The CSR slot of b among a's neighbours, or UINT32_MAX.
  uint32_t slot(SwIdx a, SwIdx b) const {
    const auto n = neighbours(a);
    const auto it = std::lower_bound(n.begin(), n.end(), b);
    return it != n.end() && *it == b ? begin[a] + static_cast<uint32_t>(it - n.begin()) : UINT32_MAX;
  }
  bool adjacent(SwIdx a, SwIdx b) const { return slot(a, b) != UINT32_MAX; }
  uint32_t edge_of(SwIdx a, SwIdx b) const { return edge[slot(a, b)]; }
};

SimpleGraph simple_graph(const FabricView& fv) {
  SimpleGraph g;
  const size_t n = fv.switch_count();
  g.begin.assign(n + 1, 0);
  for (SwIdx s = 0; s < n; ++s) {
    std::vector<SwIdx> mine;
    for (const Arc& a : fv.arcs(s))
      if (a.to != s) mine.push_back(a.to);
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    g.nbr.insert(g.nbr.end(), mine.begin(), mine.end());
    g.begin[s + 1] = static_cast<uint32_t>(g.nbr.size());
  }
  g.edge.assign(g.nbr.size(), 0);
  for (SwIdx s = 0; s < n; ++s)
    for (uint32_t k = g.begin[s]; k < g.begin[s + 1]; ++k)
      g.edge[k] = g.nbr[k] > s ? g.edges++ : g.edge_of(g.nbr[k], s);
  return g;
}

// The square relation's classes: one id per edge, classes numbered by their lowest edge.
mad::Result<std::vector<uint32_t>> edge_classes(const SimpleGraph& g, size_t n, uint32_t& classes) {
  LowestRootSets uf(g.edges);
  std::vector<SwIdx> common;
  for (SwIdx s = 0; s < n; ++s) {
    const auto nb = g.neighbours(s);
    for (size_t i = 0; i < nb.size(); ++i) {
      for (size_t j = i + 1; j < nb.size(); ++j) {
        const SwIdx a = nb[i], b = nb[j];
        common.clear();
        const auto na = g.neighbours(a), nbb = g.neighbours(b);
        std::set_intersection(na.begin(), na.end(), nbb.begin(), nbb.end(), std::back_inserter(common));
        const bool ab = g.adjacent(a, b);
        // In a product two switches two steps apart share at most two neighbours: a fat tree's
        // spines share every leaf, so this refuses it at once.
        if (!ab && common.size() > 2)
          return std::unexpected(not_a_grid(fmt::format("switches {} and {} have {} common neighbours", a, b, common.size())));
        bool square = false;
        for (SwIdx w : common) {
          if (w == s || ab || g.adjacent(s, w)) continue;
          square = true;
          uf.join(g.edge_of(s, a), g.edge_of(b, w));
          uf.join(g.edge_of(s, b), g.edge_of(a, w));
        }
        if (!square) uf.join(g.edge_of(s, a), g.edge_of(s, b));
      }
    }
  }
  std::vector<uint32_t> cls(g.edges);
  std::vector<uint32_t> id_of_root(g.edges, UINT32_MAX);
  classes = 0;
  for (uint32_t e = 0; e < g.edges; ++e) {
    const uint32_t r = uf.find(e);
    if (id_of_root[r] == UINT32_MAX) id_of_root[r] = classes++;
    cls[e] = id_of_root[r];
  }
  return cls;
}

// The fibre of dimension `c` through `seed`, in coordinate order, and its kind.
mad::Result<std::pair<GridDim, std::vector<SwIdx>>> fibre(const SimpleGraph& g, const std::vector<uint32_t>& cls,
                                                          uint32_t c, SwIdx seed) {
  auto in_dim = [&](SwIdx s) {
    std::vector<SwIdx> out;
    for (uint32_t k = g.begin[s]; k < g.begin[s + 1]; ++k)
      if (cls[g.edge[k]] == c) out.push_back(g.nbr[k]);
    return out;
  };
  std::vector<SwIdx> members{seed};
  std::vector<bool> seen(g.begin.size() - 1, false);
  seen[seed] = true;
  for (size_t i = 0; i < members.size(); ++i)
    for (SwIdx t : in_dim(members[i]))
      if (!seen[t]) {
        seen[t] = true;
        members.push_back(t);
      }
  const size_t m = members.size();
  if (m < 2) return std::unexpected(not_a_grid(fmt::format("switch {} has no cable of one of the dimensions", seed)));
  std::sort(members.begin(), members.end());
  size_t ends = 0, twos = 0, full = 0;
  for (SwIdx s : members) {
    const size_t d = in_dim(s).size();
    ends += d == 1;
    twos += d == 2;
    full += d == m - 1;
  }
  // Walks from `from` along the fibre (a path from an end, or a ring).
  auto walk = [&](SwIdx from) {
    std::vector<SwIdx> order{from};
    SwIdx prev = kNoSw, cur = from;
    for (;;) {
      SwIdx next = kNoSw;
      for (SwIdx t : in_dim(cur))
        if (t != prev && t != from && (next == kNoSw || t < next)) next = t;
      if (next == kNoSw) return order;
      order.push_back(next);
      prev = cur;
      cur = next;
    }
  };
  if (m == 2 || (m > 2 && ends == 2 && twos == m - 2)) {
    const SwIdx end = *std::find_if(members.begin(), members.end(), [&](SwIdx s) { return in_dim(s).size() == 1; });
    return std::pair{GridDim{DimKind::path, static_cast<uint32_t>(m)}, walk(end)};
  }
  if (full == m) return std::pair{GridDim{DimKind::clique, static_cast<uint32_t>(m)}, members};
  if (twos == m) {
    auto order = walk(members.front());
    if (order.size() == m) return std::pair{GridDim{DimKind::ring, static_cast<uint32_t>(m)}, order};
  }
  return std::unexpected(not_a_grid(fmt::format("a dimension of {} switches is neither a path, a ring nor a clique", m)));
}

}  // namespace

SwIdx Grid::at(const std::vector<uint32_t>& coords) const {
  uint64_t idx = 0;
  for (size_t d = 0; d < dims_.size(); ++d) idx = idx * dims_[d].size + coords[d];
  return switch_at_[idx];
}

std::string Grid::describe() const {
  std::vector<std::string> parts;
  const bool rings = std::all_of(dims_.begin(), dims_.end(), [](const GridDim& d) { return d.kind == DimKind::ring; });
  const bool paths = std::all_of(dims_.begin(), dims_.end(), [](const GridDim& d) { return d.kind == DimKind::path; });
  const bool cliques = std::all_of(dims_.begin(), dims_.end(), [](const GridDim& d) { return d.kind == DimKind::clique; });
  for (const GridDim& d : dims_) {
    if (rings || paths || cliques) {
      parts.push_back(std::to_string(d.size));
      continue;
    }
    const char* kind = d.kind == DimKind::ring ? "ring" : d.kind == DimKind::path ? "path" : "clique";
    parts.push_back(fmt::format("{} of {}", kind, d.size));
  }
  if (parts.empty()) return "one switch";
  const char* what = rings ? " torus" : paths ? " mesh" : cliques ? " HyperX" : "";
  return fmt::format("{}{}", fmt::join(parts, " x "), what);
}

mad::Result<Grid> Grid::recover(const FabricView& fv) {
  const size_t n = fv.switch_count();
  if (n == 0) return std::unexpected(not_a_grid("no switches"));
  const SimpleGraph g = simple_graph(fv);
  uint32_t classes = 0;
  auto cls = edge_classes(g, n, classes);
  if (!cls) return std::unexpected(cls.error());

  Grid grid;
  grid.coord_.assign(n * classes, UINT32_MAX);
  uint64_t product = 1;
  for (uint32_t c = 0; c < classes; ++c) {
    auto f = fibre(g, *cls, c, 0);
    if (!f) return std::unexpected(f.error());
    grid.dims_.push_back(f->first);
    product *= f->first.size;
    if (product > n) return std::unexpected(not_a_grid(fmt::format("{} dimensions hold more than {} switches", c + 1, n)));
    // Switches off the fibre take the coordinate of the fibre switch they reach over the
    // other dimensions' cables (in a product those keep this coordinate).
    std::deque<SwIdx> queue;
    for (uint32_t i = 0; i < f->second.size(); ++i) {
      grid.coord_[f->second[i] * classes + c] = i;
      queue.push_back(f->second[i]);
    }
    while (!queue.empty()) {
      const SwIdx s = queue.front();
      queue.pop_front();
      for (uint32_t k = g.begin[s]; k < g.begin[s + 1]; ++k) {
        uint32_t& to = grid.coord_[g.nbr[k] * classes + c];
        if ((*cls)[g.edge[k]] == c || to != UINT32_MAX) continue;
        to = grid.coord_[s * classes + c];
        queue.push_back(g.nbr[k]);
      }
    }
  }
  if (product != n) return std::unexpected(not_a_grid(fmt::format("{} switches, but the dimensions hold {}", n, product)));

  // Checked, not assumed: distinct coordinates, every cable one step in its own dimension,
  // and exactly the product's number of cables.
  grid.switch_at_.assign(n, kNoSw);
  std::vector<uint32_t> c(classes);
  for (SwIdx s = 0; s < n; ++s) {
    for (uint32_t d = 0; d < classes; ++d) {
      c[d] = grid.coord(s, d);
      if (c[d] == UINT32_MAX) return std::unexpected(not_a_grid("a switch is not reached"));
    }
    uint64_t idx = 0;
    for (size_t d = 0; d < classes; ++d) idx = idx * grid.dims_[d].size + c[d];
    if (grid.switch_at_[idx] != kNoSw)
      return std::unexpected(not_a_grid(fmt::format("switches {} and {} get the same coordinates", grid.switch_at_[idx], s)));
    grid.switch_at_[idx] = s;
  }
  uint64_t expected = 0;
  for (const GridDim& d : grid.dims_) {
    const uint64_t per_fibre = d.kind == DimKind::path ? d.size - 1 : d.kind == DimKind::ring ? d.size : uint64_t{d.size} * (d.size - 1) / 2;
    expected += per_fibre * (n / d.size);
  }
  if (expected != g.edges)
    return std::unexpected(not_a_grid(fmt::format("{} cabled switch pairs where a complete {} has {}", g.edges, grid.describe(), expected)));
  for (SwIdx s = 0; s < n; ++s)
    for (uint32_t k = g.begin[s]; k < g.begin[s + 1]; ++k) {
      const SwIdx t = g.nbr[k];
      const uint32_t dim = (*cls)[g.edge[k]];
      bool ok = true;
      for (uint32_t d = 0; d < classes && ok; ++d)
        if (d != dim) ok = grid.coord(s, d) == grid.coord(t, d);
      const uint32_t a = grid.coord(s, dim), b = grid.coord(t, dim), m = grid.dims_[dim].size;
      const uint32_t diff = a > b ? a - b : b - a;
      if (grid.dims_[dim].kind == DimKind::path) ok = ok && diff == 1;
      if (grid.dims_[dim].kind == DimKind::ring) ok = ok && (diff == 1 || diff == m - 1);
      if (!ok) return std::unexpected(not_a_grid(fmt::format("the cable between switches {} and {} is no step of one dimension", s, t)));
    }
  return grid;
}

}  // namespace routing
