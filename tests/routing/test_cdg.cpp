// cdg: every pair routed, an acyclic channel dependency graph read back from the tables (the
// walker's and fabric/metrics.h's, not the engine's own CDG), the same tables whatever the
// thread count, and its loads against the cut bounds of fabric/bounds.h, on a torus, a random
// graph, a degraded fat tree, HyperX and Dragonfly.
#include <doctest/doctest.h>

#include <tuple>

#include "checks.h"
#include "helpers.h"
#include "fabric/bounds.h"
#include "fabric/metrics.h"
#include "sim/generators.h"

using namespace rtest;

namespace {

fabric::Topology gen(mad::Result<sim::FabricSpec> spec) {
  REQUIRE_MESSAGE(spec.has_value(), (spec ? "" : spec.error().message));
  return to_topology(std::move(*spec));
}

fabric::MetricsReport measured(const fabric::Topology& topo, const routing::RoutingTables& t) {
  std::vector<std::span<const uint8_t>> lfts(topo.node_count());
  for (fabric::NodeId sw : topo.switches()) lfts[sw] = t.lft(sw);
  return fabric::measure_routing(topo, lfts);
}

// Routed, deadlock-free, deterministic; returns the metrics for the quality checks.
fabric::MetricsReport check_fabric(const fabric::Topology& topo) {
  const routing::RoutingTables one = route("cdg", topo, {.threads = 1});
  // The thread-count check once, in the optimised build (under ASan it doubles minutes of work).
  if (!RTEST_SANITIZED) CHECK(one == route("cdg", topo, {.threads = 4}));
  CHECK(undelivered(topo, one).empty());  // from every switch, to every LID, switch LIDs too
  CHECK(one.diagnostics().unrouted_pairs == 0);
  const fabric::MetricsReport m = measured(topo, one);
  CHECK(m.unrouted == 0);
  CHECK(m.cdg_acyclic);
  CHECK(cdg_acyclic(topo, one));
  return m;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("cdg: what it promises") {
  const auto e = engine("cdg");
  CHECK(e->deadlock_free());
  CHECK(e->vls() == 1);
  CHECK(e->repair_rule() == routing::RepairRule::none);
}

TEST_CASE("cdg: a ring, where shortest paths alone would deadlock") {
  const fabric::Topology topo = to_topology(ring(6, 2));
  check_fabric(topo);
  // minhop's tables on the same ring close a cycle: the check above can fail.
  CHECK_FALSE(cdg_acyclic(topo, route("minhop", topo)));
}

TEST_CASE("cdg: 6x6 torus, well below updn and within 3.5x of the bisection bound") {
  const fabric::Topology topo = gen(sim::make_torus({.dims = {6, 6}, .cas_per_switch = 3}));
  const fabric::MetricsReport m = check_fabric(topo);
  const fabric::CutBounds b = fabric::cut_bounds(topo);
  const fabric::MetricsReport updn = measured(topo, route("updn", topo));
  MESSAGE("cdg ", m.max_link_load, " / ", m.shift_congestion, ", updn ", updn.max_link_load, " / ",
          updn.shift_congestion, ", bounds ", b.max_link_load, " / ", b.shift_congestion);
  CHECK(m.max_link_load >= b.max_link_load);
  CHECK(static_cast<double>(m.max_link_load) <= 3.5 * static_cast<double>(b.max_link_load));
  CHECK(m.max_link_load < updn.max_link_load);
  CHECK(m.shift_congestion < updn.shift_congestion);
}

TEST_CASE("cdg: the 8x8 torus and a 64-switch random graph, near their cut bounds") {
  // Issue 20's fabrics (4 CAs a switch): OpenSM's nue reaches 2748 and 752 routes on the
  // busiest link there (2.68x and 2.98x these bounds); the goal is 0.8x nue's. One ordering of
  // the destinations gave 3032 and 664 (2.96x, 2.63x): it takes the attempts' spread.
  if (RTEST_SANITIZED) return;
  for (auto& [what, topo, within] : std::vector<std::tuple<std::string, fabric::Topology, double>>{
           {"torus", gen(sim::make_torus({.dims = {8, 8}, .cas_per_switch = 4})), 2.0},
           {"random", gen(sim::make_random({.switches = 64, .ports = 12, .cas_per_switch = 4, .seed = 1})), 2.25}}) {
    CAPTURE(what);
    const fabric::MetricsReport m = check_fabric(topo);
    const fabric::CutBounds b = fabric::cut_bounds(topo);
    MESSAGE(what, ": cdg ", m.max_link_load, " / ", m.shift_congestion, ", bounds ", b.max_link_load, " / ",
            b.shift_congestion);
    CHECK(static_cast<double>(m.max_link_load) <= within * static_cast<double>(b.max_link_load));
  }
}

TEST_CASE("cdg: random graph, HyperX, Dragonfly") {
  for (auto& [what, topo] : std::vector<std::pair<std::string, fabric::Topology>>{
           {"random", gen(sim::make_random({.switches = 32, .ports = 10, .cas_per_switch = 3, .seed = 5}))},
           {"hyperx", gen(sim::make_hyperx({.dims = {4, 4}, .cas_per_switch = 3}))},
           {"dragonfly", gen(sim::make_dragonfly({.p = 2, .a = 4, .h = 2}))}}) {
    CAPTURE(what);
    const fabric::MetricsReport m = check_fabric(topo);
    const fabric::CutBounds b = fabric::cut_bounds(topo);
    CHECK(m.max_link_load >= b.max_link_load);
    CHECK(static_cast<double>(m.max_link_load) <= 4.0 * static_cast<double>(b.max_link_load));
  }
}

TEST_CASE("cdg: a degraded fat tree") {
  auto spec = sim::make_fat_tree(3, 8);
  REQUIRE(spec.has_value());
  REQUIRE(sim::drop_switch_links(*spec, 0.1, 2).has_value());
  check_fabric(to_topology(std::move(*spec)));
}

TEST_CASE("cdg: two components, each routed within itself") {
  // A second line, renamed, and not cabled to the first.
  Spec s;
  s.sw("A0", 4).sw("A1", 4).sw("B0", 4).sw("B1", 4).ca("HA").ca("HB").ca("HC").ca("HD");
  s.link("HA", 1, "A0", 1).link("HB", 1, "A1", 1).link("A0", 2, "A1", 2);
  s.link("HC", 1, "B0", 1).link("HD", 1, "B1", 1).link("B0", 2, "B1", 2);
  const fabric::Topology topo = to_topology(s);
  const routing::RoutingTables t = route("cdg", topo);
  CHECK(entry(topo, t, "A0", "HB") == 2);
  CHECK(entry(topo, t, "B1", "HC") == 2);
  CHECK(entry(topo, t, "A0", "HC") == routing::kNoRoute);
  CHECK(t.diagnostics().unrouted_pairs > 0);
}

}  // TEST_SUITE
