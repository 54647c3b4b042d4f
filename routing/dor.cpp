// dor: dimension-order routing for meshes, tori and HyperX. The coordinates come from the
// cabling (routing/grid.h), not from port numbers or names as OpenSM's dor assumes. A route
// corrects the first dimension its coordinates differ in, then the next: a path or clique
// dimension directly, a ring the short way round (half way: by the destination's parity, so
// half the destinations go each way). Dependencies only lead from a dimension to a later one,
// so a mesh or HyperX is deadlock-free on one VL; a ring closes a cycle inside its dimension.
// That cycle is broken as a dateline does (Dally and Seitz, 1987) with what IB offers, an SL
// per route: SL bit r is set when the route crosses the wrap-around cable of ring dimension r.
// On VL v every ring dimension then carries only routes that all cross its dateline, or none
// that do: no cycle, in 2^rings VLs. Where the generic layering (vl_layers.h) fits the same
// routes in fewer VLs on fabrics of a bounded size, that is used instead.
#include <fmt/format.h>

#include <algorithm>

#include "routing/dor.h"
#include "routing/engine.h"
#include "routing/parallel.h"
#include "routing/vl_layers.h"

namespace routing {

namespace {

// Destinations x channels within which the generic layering is tried (as vl_trees.cpp's).
constexpr uint64_t kLayeringBudget = 8'000'000;
constexpr unsigned kMaxRings = 3;  // 2^3 = 8 VLs

// One step of the route from coordinate a to b in dimension d (a != b): the next coordinate,
// and whether the route crosses the ring's wrap-around cable (at any step: it is decided at
// the first, and each step keeps it the short way).
struct Step {
  uint32_t next;
  bool wraps;
};
Step step(const GridDim& dim, uint32_t a, uint32_t b, bool tie_up) {
  switch (dim.kind) {
    case DimKind::clique:
      return {b, false};
    case DimKind::path:
      return {b > a ? a + 1 : a - 1, false};
    case DimKind::ring: {
      const uint32_t up = (b + dim.size - a) % dim.size;  // steps in the + direction
      const uint32_t down = dim.size - up;
      const bool go_up = up < down || (up == down && tie_up);
      if (go_up) return {(a + 1) % dim.size, b < a};
      return {(a + dim.size - 1) % dim.size, b > a};
    }
  }
  return {b, false};
}

}  // namespace

RoutingTables dimension_order(const FabricView& fv, const Grid& grid, unsigned threads) {
  const auto& dims = grid.dims();
  std::vector<int> ring_bit(dims.size(), -1);
  unsigned rings = 0;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].kind == DimKind::ring) ring_bit[d] = static_cast<int>(rings++);
  RoutingTables tables(fv.topo(), fv.max_lid());
  if (rings > 0) tables.reserve_sls();
  const auto dests = fv.dests();
  const size_t n = fv.switch_count();
  parallel_for(dests.size(), threads, [&](size_t i, unsigned) {
    const Dest& dst = dests[i];
    const SwIdx t = dst.sw;
    // Half-way round a ring: + for half the destinations (by coordinate parity), per dimension.
    uint32_t parity = dst.path;
    for (size_t d = 0; d < dims.size(); ++d) parity += grid.coord(t, d);
    std::vector<uint32_t> here(dims.size());
    for (SwIdx s = 0; s < n; ++s) {
      const fabric::NodeId node = fv.node_of(s);
      if (s == t) {
        tables.set(node, dst.lid, dst.out);
        continue;
      }
      uint8_t sl = 0;
      size_t first = dims.size();
      Step first_step{};
      for (size_t d = 0; d < dims.size(); ++d) {
        here[d] = grid.coord(s, d);
        const uint32_t want = grid.coord(t, d);
        if (here[d] == want) continue;
        const Step st = step(dims[d], here[d], want, (parity + d) % 2 == 0);
        if (st.wraps) sl |= static_cast<uint8_t>(1u << ring_bit[d]);
        if (first == dims.size()) {
          first = d;
          first_step = st;
        }
      }
      here[first] = first_step.next;
      const SwIdx next = grid.at(here);
      // Parallel cables to the next switch: the LIDs take them in turn.
      uint32_t cables = 0;
      for (const Arc& a : fv.arcs(s)) cables += a.to == next;
      uint32_t pick = dst.lid.value() % cables;
      for (const Arc& a : fv.arcs(s))
        if (a.to == next && pick-- == 0) {
          tables.set(node, dst.lid, a.port);
          break;
        }
      if (rings > 0) tables.set_sl(node, dst.lid, sl);
    }
  });

  return tables;
}

namespace {

class DorEngine final : public Engine {
 public:
  std::string_view name() const override { return "dor"; }
  std::string_view description() const override {
    return "dimension-order routes on coordinates recovered from the cabling, torus rings broken by dateline SLs";
  }
  bool deadlock_free() const override { return true; }
  unsigned vls() const override { return 1u << kMaxRings; }
  std::string_view topologies() const override { return "meshes, tori, HyperX (complete)"; }
  RepairRule repair_rule() const override { return RepairRule::none; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override;
};

Result<RoutingTables> DorEngine::compute(const Topology& topo, const RoutingOptions& opts) const {
  auto fv = FabricView::build(topo);
  if (!fv) return std::unexpected(fv.error());
  auto grid = Grid::recover(*fv);
  if (!grid) return std::unexpected(grid.error());
  const auto& dims = grid->dims();
  const auto rings = static_cast<unsigned>(
      std::count_if(dims.begin(), dims.end(), [](const GridDim& d) { return d.kind == DimKind::ring; }));
  const unsigned max_vls = std::clamp(opts.max_vls, 1u, kMaxDataVls);
  const bool try_layering = rings > 0 && uint64_t{fv->dests().size()} * fv->arc_count() <= kLayeringBudget;
  const unsigned dateline_vls = rings > kMaxRings ? 0 : 1u << rings;  // 0: more than 2^kMaxRings
  const auto too_few_vls = [&] {
    return mad::fail(mad::Errc::unsupported,
                     fmt::format("a {} needs {} VLs (a dateline per ring), max_vls allows {}", grid->describe(),
                                 dateline_vls == 0 ? std::string("more than 8") : std::to_string(dateline_vls), max_vls));
  };
  if (dateline_vls == 0 || (dateline_vls > max_vls && !try_layering)) return too_few_vls();

  RoutingTables tables = dimension_order(*fv, *grid, opts.threads);

  std::string vls_note = "1 VL";
  if (rings > 0) {
    std::optional<LayerStats> layered;
    if (try_layering) {
      RoutingTables copy = tables;
      auto l = assign_layers(*fv, copy, std::min(max_vls, dateline_vls - 1), opts.threads, false);
      if (l) {
        layered = *l;
        tables = std::move(copy);
      }
    }
    if (layered) {
      vls_note = fmt::format("{} VL(s) by layering (a dateline per ring would take {})", layered->layers, dateline_vls);
    } else if (dateline_vls > max_vls) {
      return too_few_vls();
    } else {
      vls_note = fmt::format("{} VL(s), a dateline per ring", tables.vls_used());
    }
  }
  tables.diagnostics().note_first(fmt::format("dor: {}, {}", grid->describe(), vls_note));
  return tables;
}

}  // namespace

std::unique_ptr<Engine> make_dor_engine() { return std::make_unique<DorEngine>(); }

}  // namespace routing
