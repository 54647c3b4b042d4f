// dor: the grid recovered from the cabling alone (meshes, tori, HyperX; rings of 3 and 4 as the
// product graphs they are), everything else refused with a reason; its tables deliver every
// LID on shortest paths, deadlock-free per SL as the oracle reads them back (checks.h), on no
// more VLs than the datelines need, the same at any thread count; port numbers are not trusted.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <set>
#include <tuple>

#include "checks.h"
#include "helpers.h"
#include "routing/dor.h"
#include "routing/grid.h"
#include "routing/repair.h"
#include "sim/generators.h"

using namespace rtest;

namespace {

fabric::Topology make(mad::Result<sim::FabricSpec> spec) {
  REQUIRE_MESSAGE(spec.has_value(), (spec ? "" : spec.error().message));
  return to_topology(std::move(*spec));
}

mad::Result<routing::Grid> grid_of(const fabric::Topology& topo) {
  auto fv = routing::FabricView::build(topo);
  REQUIRE(fv.has_value());
  return routing::Grid::recover(*fv);
}

std::string described(const fabric::Topology& topo) {
  auto g = grid_of(topo);
  REQUIRE_MESSAGE(g.has_value(), (g ? "" : g.error().message));
  return g->describe();
}

std::string refusal(const fabric::Topology& topo) {
  auto g = grid_of(topo);
  REQUIRE(!g.has_value());
  return g.error().message;
}

// A ring x ring torus whose ports are dealt out per switch in a scrambled order, 2 CAs each,
// and `cables` parallel cables between neighbours.
sim::FabricSpec scrambled_torus(uint32_t a, uint32_t b, uint32_t cables) {
  Spec s;
  auto name = [](uint32_t x, uint32_t y) { return fmt::format("S{}_{}", x, y); };
  const uint32_t links = 4 * cables;
  for (uint32_t x = 0; x < a; ++x)
    for (uint32_t y = 0; y < b; ++y) {
      s.sw(name(x, y), static_cast<uint8_t>(links + 2));
      for (uint32_t c = 0; c < 2; ++c) {
        const std::string h = fmt::format("H{}_{}_{}", x, y, c);
        s.ca(h).link(h, 1, name(x, y), static_cast<uint8_t>(links + 1 + c));
      }
    }
  // Port of direction k (0 +x, 1 -x, 2 +y, 3 -y), cable c at switch (x, y): a permutation
  // that changes from switch to switch.
  auto port = [&](uint32_t x, uint32_t y, uint32_t k, uint32_t c) {
    const uint32_t slot = (k * cables + c + 3 * x + 5 * y) % links;
    return static_cast<uint8_t>(1 + slot);
  };
  for (uint32_t x = 0; x < a; ++x)
    for (uint32_t y = 0; y < b; ++y)
      for (uint32_t c = 0; c < cables; ++c) {
        s.link(name(x, y), port(x, y, 0, c), name((x + 1) % a, y), port((x + 1) % a, y, 1, c));
        s.link(name(x, y), port(x, y, 2, c), name(x, (y + 1) % b), port(x, (y + 1) % b, 3, c));
      }
  return s.spec();
}

// Routed, shortest, deadlock-free per SL, within max_vls, deterministic; returns the VLs used.
unsigned check_dor(const fabric::Topology& topo, unsigned max_vls = 8) {
  const routing::RoutingTables one = route("dor", topo, {.threads = 1, .max_vls = max_vls});
  if (!RTEST_SANITIZED) CHECK(one == route("dor", topo, {.threads = 4, .max_vls = max_vls}));
  const auto und = undelivered(topo, one);
  CHECK(und.empty());
  for (const auto& u : und) MESSAGE(u);
  CHECK(one.diagnostics().unrouted_pairs == 0);
  CHECK(deadlock_free(topo, one));
  CHECK(one.vls_used() <= max_vls);
  // Dimension order is a shortest path on these fabrics: as long as minhop's, pair by pair.
  const routing::RoutingTables mh = route("minhop", topo);
  size_t longer = 0;
  for (fabric::NodeId sw : topo.switches())
    for (fabric::NodeId dst : topo.switches()) {
      const mad::Lid l = topo.port(dst, mad::PortNum(0)).lid;
      longer += walk(topo, one, sw, l).channels.size() != walk(topo, mh, sw, l).channels.size();
    }
  CHECK(longer == 0);
  return one.vls_used();
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("dor: the grid from the cabling") {
  CHECK(described(make(sim::make_torus({.dims = {6, 6}, .mesh = true, .cas_per_switch = 1}))) == "6 x 6 mesh");
  CHECK(described(make(sim::make_torus({.dims = {8, 8}, .cas_per_switch = 1}))) == "8 x 8 torus");
  CHECK(described(make(sim::make_torus({.dims = {5, 6, 7}, .cas_per_switch = 1}))) == "7 x 6 x 5 torus");
  CHECK(described(to_topology(ring(6, 2))) == "6 torus");
  CHECK(described(to_topology(line(4, 1))) == "4 mesh");
  CHECK(described(make(sim::make_hyperx({.dims = {4, 4}, .cas_per_switch = 1}))) == "4 x 4 HyperX");
  // A ring of 3 is a clique, a ring of 4 is two dimensions of 2 (C4 = K2 x K2), a dimension
  // of 2 a path: the same routes.
  CHECK(described(make(sim::make_torus({.dims = {5, 3}, .cas_per_switch = 1}))) == "clique of 3 x ring of 5");
  CHECK(described(make(sim::make_torus({.dims = {4, 4, 4}, .cas_per_switch = 1}))) == "2 x 2 x 2 x 2 x 2 x 2 mesh");
  CHECK(described(to_topology(scrambled_torus(5, 7, 2))) == "7 x 5 torus");
  auto g = grid_of(make(sim::make_torus({.dims = {5, 6}, .cas_per_switch = 1})));
  REQUIRE(g.has_value());
  // Every coordinate taken once.
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (routing::SwIdx s = 0; s < 30; ++s) seen.emplace(g->coord(s, 0), g->coord(s, 1));
  CHECK(seen.size() == 30);
}

TEST_CASE("dor: anything but a complete grid is refused, saying why") {
  const std::string prefix = "not a mesh, torus or HyperX: ";
  CHECK(refusal(to_topology(two_level(4, 2, 2))).starts_with(prefix));
  CHECK(refusal(make(sim::make_fat_tree(3, 8))).starts_with(prefix));
  CHECK(refusal(make(sim::make_random({.switches = 24, .ports = 8, .cas_per_switch = 2, .seed = 3}))).starts_with(prefix));
  CHECK(refusal(make(sim::make_dragonfly({.p = 2, .a = 4, .h = 2}))).starts_with(prefix));
  auto torus = sim::make_torus({.dims = {6, 6}, .cas_per_switch = 1});
  REQUIRE(torus.has_value());
  REQUIRE(sim::drop_switch_links(*torus, 0.02, 1).has_value());  // one cable of 72
  const fabric::Topology degraded = to_topology(*torus);
  CHECK(refusal(degraded).starts_with(prefix));
  // The engine says so, and a chain moves on.
  auto e = engine("dor")->compute(degraded, {});
  REQUIRE(!e.has_value());
  CHECK(e.error().message.starts_with(prefix));
  auto chain = routing::compute_chain("dor,lash", degraded, {});
  REQUIRE(chain.has_value());
  CHECK(chain->used == "lash");
}

TEST_CASE("dor: on random switch graphs, refused or routed deadlock-free, never anything else") {
  // Small and of a torus's degree, so that some come close: grid recovery must refuse each
  // that is not a product, and whatever it accepts must route right.
  size_t refused = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    const fabric::Topology topo = make(sim::make_random(
        {.switches = static_cast<uint32_t>(4 + seed % 9), .ports = 6, .cas_per_switch = 1, .degree = static_cast<uint32_t>(2 + seed % 3), .seed = seed}));
    auto t = engine("dor")->compute(topo, {.threads = 1});
    if (!t) {
      ++refused;
      CHECK(t.error().message.starts_with("not a mesh, torus or HyperX: "));
      continue;
    }
    CHECK(undelivered(topo, *t).empty());
    CHECK(deadlock_free(topo, *t));
  }
  MESSAGE(refused, " of 40 random graphs refused");
  CHECK(refused > 0);
}

TEST_CASE("dor: meshes and HyperX on one VL") {
  for (auto [what, topo] : {std::pair{"6x6 mesh", make(sim::make_torus({.dims = {6, 6}, .mesh = true, .cas_per_switch = 2}))},
                            std::pair{"4x4 HyperX", make(sim::make_hyperx({.dims = {4, 4}, .cas_per_switch = 2}))},
                            std::pair{"3x3x3 HyperX", make(sim::make_hyperx({.dims = {3, 3, 3}, .cas_per_switch = 1}))},
                            std::pair{"4x4x4 torus (a hypercube)", make(sim::make_torus({.dims = {4, 4, 4}, .cas_per_switch = 1}))}}) {
    CAPTURE(what);
    CHECK(check_dor(topo) == 1);
    CHECK(cdg_acyclic(topo, route("dor", topo)));
  }
}

TEST_CASE("dor: tori break their rings on VLs") {
  // One ring: its routes close a cycle on one VL (minhop's do too), dor's SLs break it.
  const fabric::Topology r6 = to_topology(ring(6, 2));
  const routing::RoutingTables t = route("dor", r6);
  CHECK_FALSE(cdg_acyclic(r6, t));  // the one-VL graph has the ring's cycle
  CHECK(check_dor(r6) == 2);
  auto refused = engine("dor")->compute(r6, {.max_vls = 1});
  REQUIRE(!refused.has_value());
  CHECK(refused.error().message == "a 6 torus needs 2 VLs (a dateline per ring), max_vls allows 1");

  CHECK(check_dor(make(sim::make_torus({.dims = {8, 8}, .cas_per_switch = 2}))) <= 4);
  CHECK(check_dor(to_topology(scrambled_torus(5, 7, 2))) <= 4);
  if (!RTEST_SANITIZED) CHECK(check_dor(make(sim::make_torus({.dims = {5, 5, 5}, .cas_per_switch = 1}))) <= 8);
}

TEST_CASE("dor: a dateline SL per ring alone is deadlock-free (what large tori get)") {
  // The engine layers small fabrics into fewer VLs; the dateline SLs are checked on their own.
  for (auto [what, topo, sls] : {std::tuple{"8x8 torus", make(sim::make_torus({.dims = {8, 8}, .cas_per_switch = 1})), 4u},
                                 std::tuple{"5x6x7 torus", make(sim::make_torus({.dims = {5, 6, 7}, .cas_per_switch = 1})), 8u},
                                 std::tuple{"ring of 5 x clique of 3", make(sim::make_torus({.dims = {5, 3}, .cas_per_switch = 2})), 2u}}) {
    CAPTURE(what);
    auto fv = routing::FabricView::build(topo);
    REQUIRE(fv.has_value());
    auto grid = routing::Grid::recover(*fv);
    REQUIRE(grid.has_value());
    const routing::RoutingTables t = routing::dimension_order(*fv, *grid, 2);
    CHECK(undelivered(topo, t).empty());
    CHECK_FALSE(cdg_acyclic(topo, t));  // on one VL the rings close cycles
    unsigned used = 0;
    CHECK(sl_cdg_acyclic(topo, t, &used));
    CHECK(used == sls);
    CHECK(t.vls_used() == sls);
  }
}

TEST_CASE("dor: no repair, the SM routes in full") {
  const fabric::Topology whole = make(sim::make_torus({.dims = {6, 6}, .cas_per_switch = 1}));
  const fabric::Topology less = to_topology(*sim::make_torus({.dims = {6, 6}, .cas_per_switch = 1}),
                                            {.down = {{"S_00_00", 2}}});
  CHECK(engine("dor")->repair_rule() == routing::RepairRule::none);
  auto none = routing::repair_routes(whole, route("dor", whole), less, "dor", {});
  REQUIRE_FALSE(none);
  CHECK(none.error().message == "no repair rules for engine 'dor'");
}

TEST_CASE("dor: parallel cables share the load") {
  const fabric::Topology topo = to_topology(scrambled_torus(5, 5, 2));
  const routing::RoutingTables t = route("dor", topo);
  // Between two neighbours, both cables carry routes.
  std::set<uint8_t> used;
  for (const char* h : {"H1_0_0", "H1_0_1", "H1_1_0", "H1_1_1"}) used.insert(entry(topo, t, "S0_0", h));
  CHECK(used.size() >= 2);
}

}  // TEST_SUITE
