// Route repair: after cables or nodes went away (nothing added, every remaining port with the
// LIDs it had), keep every route that is still legal and re-route only what crossed what is
// gone. The result obeys the repair rule of the engine that made the old tables
// (Engine::repair_rule(), looked up by name) — shortest paths, or up*/down* over the same
// orientation the engine computes (so still deadlock-free): a broken route takes the shortest
// legal way into a kept one (a kept route is still the shortest of its kind: it lost nothing,
// and removals only lengthen others).
// It changes the fewest entries, so the fewest LFT blocks are written, and its cost follows
// the switches around the break, not the fabric's size: the reaction to a failure costs
// milliseconds instead of a full recomputation.
// Anything it cannot do that way (something was added, the orientation moved, an engine
// with RepairRule::none) is an error, and the caller routes in full.
#pragma once

#include <string_view>

#include "routing/engine.h"

namespace routing {

struct RepairResult {
  RoutingTables tables;
  size_t destinations = 0;   // destination LIDs that needed a new route somewhere
  size_t entries = 0;        // LFT entries changed
};

mad::Result<RepairResult> repair_routes(const Topology& before, const RoutingTables& old,
                                        const Topology& now, std::string_view engine,
                                        const RoutingOptions& opts);

}  // namespace routing
