// dfsssp: deadlock-free single-source shortest paths (Domke, Hoefler and Nagel, IPDPS 2011),
// as OpenSM's dfsssp: per destination, Dijkstra over channels weighted by the routes already
// placed on them, so the load of the whole fabric is balanced (paths may be longer than the
// shortest); then the routes go onto the fewest VLs whose dependency graphs are acyclic.
// OpenSM moves the routes off each cycle of a layer to the next; the first fit of
// vl_layers.h, longest routes first, needs no more VLs on the fabrics we measured.
#include "routing/engine.h"
#include "routing/vl_layers.h"
#include "routing/vl_trees.h"

namespace routing {

namespace {

class DfssspEngine final : public Engine {
 public:
  std::string_view name() const override { return "dfsssp"; }
  std::string_view description() const override {
    return "load-balanced weighted shortest paths spread over VLs with acyclic dependency graphs (DFSSSP)";
  }
  bool deadlock_free() const override { return true; }
  unsigned vls() const override { return kMaxDataVls; }
  std::string_view topologies() const override { return "any, within max_vls VLs"; }
  // Repaired routes would need layers of their own: the caller routes in full.
  RepairRule repair_rule() const override { return RepairRule::none; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    return route_layered(topo, opts, false, name());
  }
};

}  // namespace

std::unique_ptr<Engine> make_dfsssp_engine() { return std::make_unique<DfssspEngine>(); }

}  // namespace routing
