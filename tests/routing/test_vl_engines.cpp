// lash and dfsssp, the engines that spread routes over VLs: every pair routed, each SL's
// channel dependency graph acyclic as read back from the LFTs and SLs (checks.h's oracle, not
// the engines' layers), no more VLs than max_vls allows (an error value otherwise), the same
// tables whatever the thread count; on tori, HyperX, Dragonfly, a random graph and a degraded
// fat tree.
#include <doctest/doctest.h>

#include "checks.h"
#include "helpers.h"
#include "fabric/bounds.h"
#include "routing/vl_trees.h"
#include "sim/generators.h"

using namespace rtest;

namespace {

fabric::Topology make(mad::Result<sim::FabricSpec> spec) {
  REQUIRE_MESSAGE(spec.has_value(), (spec ? "" : spec.error().message));
  return to_topology(std::move(*spec));
}

// Routed, deadlock-free per SL, within max_vls, deterministic; returns the tables.
routing::RoutingTables check_vl_engine(const std::string& name, const fabric::Topology& topo, unsigned max_vls = 8) {
  CAPTURE(name);
  const routing::RoutingTables one = route(name, topo, {.threads = 1, .max_vls = max_vls});
  const routing::RoutingTables four = route(name, topo, {.threads = 4, .max_vls = max_vls});
  CHECK(one == four);
  const auto und = undelivered(topo, one);  // from every switch, to every LID
  CHECK(und.empty());
  for (const auto& u : und) MESSAGE(u);
  CHECK(one.diagnostics().unrouted_pairs == 0);
  CHECK(one.has_sls());
  unsigned sls = 0;
  CHECK(sl_cdg_acyclic(topo, one, &sls));
  CHECK(sls == one.vls_used());
  CHECK(one.vls_used() <= max_vls);
  return one;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("vl engines: what they promise") {
  for (const std::string name : {"lash", "dfsssp"}) {
    CAPTURE(name);
    const auto e = engine(name);
    CHECK(e->deadlock_free());
    CHECK(e->vls() > 1);
    CHECK(e->repair_rule() == routing::RepairRule::none);
    CHECK(routing::engine_listing().find(name + std::string(15 - name.size(), ' ') + "yes, its VLs") !=
          std::string::npos);
  }
}

TEST_CASE("vl engines: a ring needs two VLs, and the per-SL check can fail") {
  const fabric::Topology topo = to_topology(ring(6, 2));
  // minhop's routes close a cycle on the one VL they use: the oracle sees it.
  CHECK_FALSE(sl_cdg_acyclic(topo, route("minhop", topo)));
  for (const std::string name : {"lash", "dfsssp"}) {
    const routing::RoutingTables t = check_vl_engine(name, topo);
    CHECK(t.vls_used() >= 2);
    // Every SL 0 again: the cycle is back.
    routing::RoutingTables flat = t;
    flat.reserve_sls();
    CHECK_FALSE(sl_cdg_acyclic(topo, flat));
  }
}

TEST_CASE("vl engines: fewer VLs allowed, fewer trees; too few is an error that says how many") {
  const fabric::Topology topo = make(sim::make_torus({.dims = {5, 5}, .cas_per_switch = 2}));
  for (const std::string name : {"lash", "dfsssp"}) {
    CAPTURE(name);
    const routing::RoutingTables full = check_vl_engine(name, topo);
    const unsigned need = full.vls_used();
    REQUIRE(need >= 2);
    auto e = engine(name);
    // One VL cannot hold a torus's routes: the error names the VLs of the fewest-trees attempt.
    auto r = e->compute(topo, {.max_vls = 1});
    REQUIRE_FALSE(r.has_value());
    const std::string& msg = r.error().message;
    REQUIRE(msg.starts_with("needs "));
    REQUIRE(msg.ends_with(" VLs, max_vls allows 1"));
    const unsigned least = static_cast<unsigned>(std::stoul(msg.substr(6)));
    CHECK(least >= 2);
    CHECK(least <= need);
    // With that many it routes, within them, and so for every budget in between.
    for (unsigned vls = least; vls <= need; ++vls) CHECK(check_vl_engine(name, topo, vls).vls_used() <= vls);
    if (least > 2) {
      auto below = e->compute(topo, {.max_vls = least - 1});
      REQUIRE_FALSE(below.has_value());
      CHECK(below.error().message == "needs " + std::to_string(least) + " VLs, max_vls allows " + std::to_string(least - 1));
    }
    // ... and a chain moves on.
    auto chain = routing::compute_chain(name + ",updn", topo, {.max_vls = 1});
    REQUIRE(chain.has_value());
    CHECK(chain->used == "updn");
    REQUIRE(chain->passed_over.size() == 1);
    CHECK(chain->passed_over[0] == name + ": " + msg);
  }
}

TEST_CASE("vl engines: below the VLs of a tree per LID, lash keeps the balance") {
  // The 4x4x4 torus with 4 CAs a switch: a tree per LID needs 8 VLs; at OpenSM's 5, OpenSM's lash
  // reaches 768 routes on its busiest link (1.5x the cut bound: dimension order's load). Two
  // trees per switch summing the load on the way needed 6, one tree 4 VLs at 896 (1.75x).
  if (RTEST_SANITIZED) return;
  const fabric::Topology topo = make(sim::make_torus({.dims = {4, 4, 4}, .cas_per_switch = 4}));
  const fabric::CutBounds b = fabric::cut_bounds(topo);
  const routing::RoutingTables t = check_vl_engine("lash", topo, 5);
  const Loads l = loads(topo, t, false);
  MESSAGE("lash at 5 VLs: max all-to-all ", l.max_all_to_all, " on ", t.vls_used(), " VLs, bound ", b.max_link_load);
  CHECK(l.max_all_to_all * 2 <= b.max_link_load * 3);
}

TEST_CASE("vl engines: rerouting passes lower the busiest channel, and the tables carry it") {
  // The first growth leaves a complete fat tree and a torus unbalanced; rerouting each tree
  // over the others' loads evens them out. The busiest channel the trees report is the one
  // the independent walker measures on the tables.
  size_t better = 0;
  for (auto [what, topo] : {std::pair{"3-level fat tree, radix 8", make(sim::make_fat_tree(3, 8))},
                            std::pair{"6x6 torus", make(sim::make_torus({.dims = {6, 6}, .cas_per_switch = 2}))}}) {
    auto fv = routing::FabricView::build(topo);
    REQUIRE(fv.has_value());
    for (bool min_hop : {true, false}) {
      CAPTURE(what);
      CAPTURE(min_hop);
      std::string note;
      uint64_t first = 0, rerouted = 0;
      const auto t0 = routing::route_trees(*fv, {.min_hop = min_hop, .threads = 1}, note, first);
      const auto t2 = routing::route_trees(*fv, {.min_hop = min_hop, .threads = 1, .reroute_passes = 2}, note, rerouted);
      MESSAGE(std::string(what), min_hop ? " shortest" : " weighted", ": busiest ", first, " -> ", rerouted, " (", note, ")");
      CHECK(rerouted <= first);
      better += rerouted < first;
      CHECK(loads(topo, t0, false).max_all_to_all == first);
      CHECK(loads(topo, t2, false).max_all_to_all == rerouted);
      CHECK(undelivered(topo, t2).empty());
      CHECK(t2 == routing::route_trees(*fv, {.min_hop = min_hop, .threads = 4, .reroute_passes = 2}, note, rerouted));
    }
  }
  CHECK(better >= 2);
}

TEST_CASE("vl engines: tori, at or below minhop's load and within the cut bounds") {
  std::vector<std::pair<std::string, fabric::Topology>> fabrics;
  fabrics.emplace_back("6x6", make(sim::make_torus({.dims = {6, 6}, .cas_per_switch = 3})));
  if (!RTEST_SANITIZED) fabrics.emplace_back("4x4x4", make(sim::make_torus({.dims = {4, 4, 4}, .cas_per_switch = 2})));
  for (const auto& [what, topo] : fabrics) {
    CAPTURE(what);
    const fabric::CutBounds b = fabric::cut_bounds(topo);
    const Loads minhop = loads(topo, route("minhop", topo), false);
    for (const std::string name : {"lash", "dfsssp"}) {
      const routing::RoutingTables t = check_vl_engine(name, topo);
      const Loads l = loads(topo, t, false);
      MESSAGE(what, " ", name, ": max all-to-all ", l.max_all_to_all, " on ", t.vls_used(), " VLs (minhop ",
              minhop.max_all_to_all, ", bound ", b.max_link_load, ")");
      CHECK(l.unrouted_pairs == 0);
      CHECK(l.max_all_to_all >= b.max_link_load);
      CHECK(l.max_all_to_all <= minhop.max_all_to_all);
    }
  }
}

TEST_CASE("vl engines: random graph, HyperX, Dragonfly, a degraded fat tree") {
  std::vector<std::pair<std::string, fabric::Topology>> fabrics;
  fabrics.emplace_back("random", make(sim::make_random({.switches = 32, .ports = 10, .cas_per_switch = 3, .seed = 5})));
  fabrics.emplace_back("hyperx", make(sim::make_hyperx({.dims = {4, 4}, .cas_per_switch = 3})));
  fabrics.emplace_back("dragonfly", make(sim::make_dragonfly({.p = 2, .a = 4, .h = 2})));
  auto tree = sim::make_fat_tree(3, 8);
  REQUIRE(tree.has_value());
  REQUIRE(sim::drop_switch_links(*tree, 0.1, 2).has_value());
  fabrics.emplace_back("degraded fat tree", to_topology(std::move(*tree)));
  for (const auto& [what, topo] : fabrics) {
    CAPTURE(what);
    const fabric::CutBounds b = fabric::cut_bounds(topo);
    for (const std::string name : {"lash", "dfsssp"}) {
      const routing::RoutingTables t = check_vl_engine(name, topo);
      const Loads l = loads(topo, t, false);
      MESSAGE(what, " ", name, ": max all-to-all ", l.max_all_to_all, " on ", t.vls_used(), " VLs (bound ",
              b.max_link_load, ")");
      CHECK(l.max_all_to_all >= b.max_link_load);
      CHECK(static_cast<double>(l.max_all_to_all) <= 4.0 * static_cast<double>(b.max_link_load));
    }
  }
}

TEST_CASE("vl engines: LMC paths get SLs of their own, and stay deadlock-free") {
  const fabric::Topology topo = to_topology(sim::make_torus({.dims = {4, 4}, .cas_per_switch = 2}).value(), {.lmc = 1});
  for (const std::string name : {"lash", "dfsssp"}) check_vl_engine(name, topo);
}

}  // TEST_SUITE
