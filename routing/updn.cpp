// updn: up*/down* routing. Switches are ranked by BFS hops from root switches (roots.h says how
// they are chosen); every link points up toward the lower rank, ties broken by GUID. A route
// never goes down then up, so the channel dependency graph has no cycle: deadlock-free on any
// topology. A switch that can reach the destination going only down does so (shortest such
// path); the others go up along the shortest legal path. Among equally short legal ports, CA
// destinations take the one whose route is least loaded by the destinations before them
// (balance.h); switch LIDs are balanced as in minhop. Pairs with no legal path are listed in the
// diagnostics, by name.
#include <fmt/format.h>

#include "routing/balance.h"
#include "routing/engines.h"
#include "routing/fill.h"
#include "routing/roots.h"
#include "routing/updown.h"

namespace routing {

namespace {

class UpdnEngine final : public Engine {
 public:
  std::string_view name() const override { return "updn"; }
  std::string_view description() const override {
    return "up*/down* from root switches, deadlock-free on any topology";
  }
  bool deadlock_free() const override { return true; }
  RepairRule repair_rule() const override { return RepairRule::up_down; }
  // BFS ranks from the roots, as compute() chooses them.
  Result<std::vector<uint32_t>> orientation(const FabricView& fv,
                                            const RoutingOptions& opts) const override {
    auto roots = choose_roots(fv, opts);
    if (!roots) return std::unexpected(roots.error());
    return std::move(roots->rank);
  }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    auto fv = FabricView::build(topo);
    if (!fv) return std::unexpected(fv.error());
    auto roots = choose_roots(*fv, opts);
    if (!roots) return std::unexpected(roots.error());
    const Orientation orient(roots->rank);
    UpDownCosts costs = UpDownCosts::compute(*fv, orient, opts.threads);
    const SwitchFallback fallback = SwitchFallback::compute(*fv, costs, opts.threads);
    RoutingTables tables(topo, fv->max_lid());
    balance_updown(*fv, orient, costs, tables);
    costs.transpose(opts.threads);
    // The fill keeps those entries and routes the rest: switch LIDs, fallbacks, unrouted pairs.
    fill_tables(
        *fv, [&](SwIdx s, CandidateLists& out) { updown_candidates(*fv, orient, costs, s, out); },
        FillOptions{opts.threads, nullptr, true, false, &fallback}, tables);
    tables.diagnostics().note_first(fmt::format("updn: {}", roots->how));
    return tables;
  }
};

}  // namespace

std::unique_ptr<Engine> make_updn_engine() { return std::make_unique<UpdnEngine>(); }

}  // namespace routing
