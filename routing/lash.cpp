// lash: layered shortest path routing (Skeie, Lysne and Theiss, "Layered Shortest Path (LASH)
// Routing in Irregular System Area Networks", IPDPS 2002), as OpenSM's lash: shortest paths,
// each (ingress switch, destination) route on the first layer (VL) whose channel dependency
// graph stays acyclic. Deadlock-free on any topology, given enough VLs. Among the equally
// short paths it takes the least loaded (vl_trees.h), where OpenSM's lash takes the first.
#include <fmt/format.h>

#include "routing/engine.h"
#include "routing/vl_layers.h"
#include "routing/vl_trees.h"

namespace routing {

namespace {

class LashEngine final : public Engine {
 public:
  std::string_view name() const override { return "lash"; }
  std::string_view description() const override {
    return "shortest paths spread over VLs so that each VL's dependency graph is acyclic (LASH)";
  }
  bool deadlock_free() const override { return true; }
  unsigned vls() const override { return kMaxDataVls; }
  // Repaired routes would need layers of their own: the caller routes in full.
  RepairRule repair_rule() const override { return RepairRule::none; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    auto fv = FabricView::build(topo);
    if (!fv) return std::unexpected(fv.error());
    std::string note;
    RoutingTables tables = route_trees(*fv, TreeOptions{true, opts.threads}, note);
    auto layers = assign_layers(*fv, tables, std::min(opts.max_vls, kMaxDataVls));
    if (!layers) return std::unexpected(layers.error());
    tables.diagnostics().note_first(
        fmt::format("lash: {} VL(s) for {} routes; {}", layers->layers, layers->routes, note));
    return tables;
  }
};

}  // namespace

std::unique_ptr<Engine> make_lash_engine() { return std::make_unique<LashEngine>(); }

}  // namespace routing
