// adaptive-hint: deterministic tables for switches without adaptive routing, plus, for every
// switch and destination, the set of equally good output ports (RoutingTables alternatives)
// for switches that have it. On a fat tree the core is ftree's (the alternatives are the legal
// up/down ports, so adaptive choices stay deadlock-free); elsewhere minhop's (fewest hops).
//
// Hints move deterministic routes off hot links: a hinted link's load counts (routes + 1) x
// weight when ports are balanced, ftree's main paths weigh it the same way, and it is never
// the preferred way onto a main path. Routes stay shortest (legal) paths; the hint only
// changes which of the equally good ports is taken. Format of the hints: routing/hints.h.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "routing/engines.h"

namespace routing {

namespace {

class AdaptiveHintEngine final : public Engine {
 public:
  std::string_view name() const override { return "adaptive-hint"; }
  std::string_view description() const override {
    return "ftree's or minhop's tables plus adaptive-routing port sets, off hinted links";
  }
  // On a fat tree its tables are ftree's (acyclic), elsewhere minhop's: not on every topology.
  bool deadlock_free() const override { return false; }
  std::string_view topologies() const override { return "any (ftree's core on fat trees)"; }
  RepairRule repair_rule() const override { return RepairRule::none; }
  Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const override {
    auto fv = FabricView::build(topo);
    if (!fv) return std::unexpected(fv.error());
    std::vector<LinkHint> hints = opts.hints;
    if (hints.empty() && !opts.hints_file.empty()) {
      auto loaded = load_hints(opts.hints_file);
      if (!loaded) return std::unexpected(loaded.error());
      hints = std::move(*loaded);
    }
    const Levels lv = leaf_levels(*fv);
    const bool tree = fat_tree_violation(*fv, lv).empty();
    std::vector<std::string> notes{fmt::format("adaptive-hint: {} core, {} hinted link(s)",
                                               tree ? "fat-tree" : "min-hop", hints.size())};
    const PortWeights weights = PortWeights::build(*fv, hints, notes);
    const CoreOptions core{opts.threads, weights.empty() ? nullptr : &weights, true};
    auto tables = tree ? ftree_route(*fv, lv, core) : minhop_route(*fv, core);
    if (!tables) return tables;
    auto& diag = tables->diagnostics();
    std::move(diag.notes.begin(), diag.notes.end(), std::back_inserter(notes));
    diag.notes = std::move(notes);
    return tables;
  }
};

}  // namespace

std::unique_ptr<Engine> make_adaptive_hint_engine() {
  return std::make_unique<AdaptiveHintEngine>();
}

}  // namespace routing
