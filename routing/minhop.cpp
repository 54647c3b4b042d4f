// minhop: shortest paths (hop count) from every switch to every destination, the equally short
// output ports balanced by the number of LIDs already routed through them, as OpenSM's
// min-hop does. Not deadlock-free on topologies with cycles (a torus): use updn there.
//
// One BFS per switch over the switch graph gives all hop counts; each switch then fills its
// LFT on its own, in parallel.
#include "routing/engines.h"
#include "routing/fill.h"
#include "routing/hops.h"

namespace routing {

namespace {

class MinhopEngine final : public Engine {
 public:
  std::string_view name() const override { return "minhop"; }
  std::string_view description() const override {
    return "shortest paths with balanced ports, can deadlock where the fabric has cycles";
  }
  bool deadlock_free() const override { return false; }
  RepairRule repair_rule() const override { return RepairRule::shortest_paths; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    auto fv = FabricView::build(topo);
    if (!fv) return std::unexpected(fv.error());
    return minhop_route(*fv, CoreOptions{opts.threads, nullptr, false});
  }
};

}  // namespace

std::unique_ptr<Engine> make_minhop_engine() { return std::make_unique<MinhopEngine>(); }

mad::Result<RoutingTables> minhop_route(const FabricView& fv, const CoreOptions& opts) {
  auto hops = HopMatrix::compute(fv, opts.threads);
  if (!hops) return std::unexpected(hops.error());
  RoutingTables tables(fv.topo(), fv.max_lid());
  const HopMatrix& h = *hops;
  fill_tables(fv, [&](SwIdx s, CandidateLists& out) { minhop_candidates(fv, h, s, out); },
              FillOptions{opts.threads, opts.weights, false, opts.alternatives}, tables);
  return tables;
}

}  // namespace routing
