// lash: layered shortest path routing (Skeie, Lysne and Theiss, "Layered Shortest Path (LASH)
// Routing in Irregular System Area Networks", IPDPS 2002), as OpenSM's lash: shortest paths,
// each (ingress switch, destination) route on the first layer (VL) whose channel dependency
// graph stays acyclic. Deadlock-free on any topology, given enough VLs. Among the equally
// short paths it takes the least loaded (vl_trees.h), where OpenSM's lash takes the first.
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
  std::string_view topologies() const override { return "any, within max_vls VLs"; }
  // Repaired routes would need layers of their own: the caller routes in full.
  RepairRule repair_rule() const override { return RepairRule::none; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    return route_layered(topo, opts, true, name());
  }
};

}  // namespace

std::unique_ptr<Engine> make_lash_engine() { return std::make_unique<LashEngine>(); }

}  // namespace routing
