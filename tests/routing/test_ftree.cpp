// ftree: exact tables on a small tree, refusal of non-trees, and the figures on the shared
// reference fabrics (complete and degraded).
#include <doctest/doctest.h>

#include <set>

#include "checks.h"
#include "helpers.h"
#include "sim/generators.h"

using namespace rtest;

TEST_SUITE("unit") {

TEST_CASE("ftree: two leaves, two spines, every entry") {
  // LIDs: H0_0 1, H0_1 2, H1_0 3, H1_1 4, L0 5, L1 6, P0 7, P1 8. Leaf ports 1-2 CAs, 3 -> P0,
  // 4 -> P1; spine port i+1 -> Li. Main paths in leaf order: H0_0 via P0, H0_1 via P1, H1_0
  // via P0, H1_1 via P1, L0 and L1 via P0 (ties to the lowest port). Everyone else joins them.
  const fabric::Topology topo = to_topology(two_level(2, 2, 2));
  const auto t = route("ftree", topo);
  const auto lft = [&](const char* sw) {
    const auto l = t.lft(node(topo, sw));
    return std::vector<uint8_t>(l.begin(), l.end());
  };
  const uint8_t X = routing::kNoRoute;
  CHECK(lft("L0") == std::vector<uint8_t>{X, 1, 2, 3, 4, 0, 3, 3, 4});
  CHECK(lft("L1") == std::vector<uint8_t>{X, 3, 4, 1, 2, 3, 0, 3, 4});
  // Spine to spine is down then up: the shortest path, balanced (management traffic only).
  CHECK(lft("P0") == std::vector<uint8_t>{X, 1, 1, 2, 2, 1, 2, 0, 1});
  CHECK(lft("P1") == std::vector<uint8_t>{X, 1, 1, 2, 2, 1, 2, 1, 0});
  CHECK(t.diagnostics().fallback_pairs == 2);
  CHECK(t.diagnostics().unrouted_pairs == 0);
}

TEST_CASE("ftree: refuses what is not a fat tree, saying why") {
  auto e = routing::make_engine("ftree");
  SUBCASE("a ring") {
    auto t = (*e)->compute(to_topology(ring(4, 1)), {});
    REQUIRE(!t.has_value());
    CHECK(t.error().code == mad::Errc::unsupported);
    CHECK(t.error().message == "not a fat tree: switches 'S0' and 'S1' are both at level 0 and "
                               "linked (port 2 - port 3)");
  }
  SUBCASE("a link between two spines") {
    sim::FabricSpec spec = two_level(2, 2, 1);
    Spec extra;  // P0 and P1 have 2 ports; give them a third and cable it
    spec.nodes[4].num_ports = 3;
    spec.nodes[5].num_ports = 3;
    spec.links.push_back({4, 3, 5, 3});
    auto t = (*e)->compute(to_topology(spec), {});
    REQUIRE(!t.has_value());
    CHECK(t.error().message.find("'P0' and 'P1' are both at level 1") != std::string::npos);
  }
  SUBCASE("no CAs") {
    auto t = (*e)->compute(to_topology(Spec().sw("A", 2).sw("B", 2).link("A", 1, "B", 1)), {});
    REQUIRE(!t.has_value());
    CHECK(t.error().message == "not a fat tree: no switch has CAs attached");
  }
  SUBCASE("a configured root that is not at the top") {
    const fabric::Topology topo = to_topology(two_level(2, 2, 1));
    routing::RoutingOptions opts;
    opts.root_guids = {topo.node(node(topo, "L0")).guid};
    auto t = (*e)->compute(topo, opts);
    REQUIRE(!t.has_value());
    CHECK(t.error().message.find("'L0' is not at the top") != std::string::npos);
    opts.root_guids = {topo.node(node(topo, "P1")).guid};
    CHECK((*e)->compute(topo, opts).has_value());
  }
}

TEST_CASE("ftree: routes around a missing link and stays up/down") {
  // L0 loses its cable to P0: everything to and from L0 goes through P1.
  const fabric::Topology topo = to_topology(two_level(3, 2, 2), {.down = {{"L0", 3}}});
  const auto t = route("ftree", topo);
  CHECK(entry(topo, t, "L0", "H1_0") == 4);
  CHECK(entry(topo, t, "L0", "H2_1") == 4);
  CHECK(entry(topo, t, "L1", "H0_0") == 4);
  CHECK(entry(topo, t, "L2", "H0_1") == 4);
  // P0 cannot go down to L0 and has nothing above: no legal path. No CA traffic can reach P0
  // for L0, so P0 (for its traps, say) gets the shortest path: L1 or L2, then P1.
  CHECK(entry(topo, t, "P0", "H0_0") == 2);
  CHECK(entry(topo, t, "P0", "H0_1") == 3);
  // P0 -> H0_0, H0_1, L0; L0 -> P0; spine to spine both ways.
  CHECK(t.diagnostics().fallback_pairs == 6);
  CHECK(t.diagnostics().unrouted_pairs == 0);
  CHECK(undelivered(topo, t).empty());
  CHECK(cdg_acyclic(topo, t));
}

TEST_CASE("ftree: a complete 3-level tree is routed congestion-free (radix 8, 128 CAs)") {
  auto spec = sim::make_fat_tree(3, 8);
  REQUIRE(spec.has_value());
  const fabric::Topology topo = to_topology(*spec);
  const auto t = route("ftree", topo);
  CHECK(undelivered(topo, t).empty());
  CHECK(cdg_acyclic(topo, t));
  const Loads l = loads(topo, t);
  CHECK(l.unrouted_pairs == 0);
  CHECK(l.max_all_to_all == 4 * 124 / 4);  // 4 CAs per leaf, 124 destinations, 4 up-links
  CHECK(l.mean_shift_max == doctest::Approx(1.0));
}

TEST_CASE("ftree: ft3-r16, the shared reference tree: the optimum") {
  const fabric::Topology topo = to_topology(shared("ft3-r16.net"));
  const auto t = route("ftree", topo);
  CHECK(undelivered(topo, t, false).empty());
  CHECK(cdg_acyclic(topo, t));
  const Loads l = loads(topo, t);
  MESSAGE("ft3-r16 ftree: max all-to-all ", l.max_all_to_all, ", mean shift max ",
          l.mean_shift_max, ", worst shift ", l.max_shift_max);
  CHECK(l.unrouted_pairs == 0);
  CHECK(l.max_all_to_all == 1016);
  CHECK(l.mean_shift_max == doctest::Approx(1.0));
  CHECK(l.max_shift_max == doctest::Approx(1.0));
}

TEST_CASE("ftree: ft3-r16-degraded5 stays a fat tree and routes every pair") {
  const fabric::Topology topo = to_topology(shared("ft3-r16-degraded5.net"));
  const auto t = route("ftree", topo);
  CHECK(t.diagnostics().unrouted_pairs == 0);
  CHECK(undelivered(topo, t).empty());
  CHECK(cdg_acyclic(topo, t));
  const Loads l = loads(topo, t);
  MESSAGE("ft3-r16-degraded5 ftree: max all-to-all ", l.max_all_to_all, ", mean shift max ",
          l.mean_shift_max, ", worst shift ", l.max_shift_max);
  CHECK(l.unrouted_pairs == 0);
  CHECK(l.max_all_to_all <= 2550);
}

TEST_CASE("ftree: randomly degraded trees: legal routes or reported, deadlock-free") {
  // 5% of the links gone: everything still has an up/down path. 15%: some leaves keep a single
  // chain of up-links that meets no ancestor of some other leaves; those pairs are not routed
  // (a down-then-up turn would risk deadlock) and are exactly the ones reported.
  for (double fraction : {0.05, 0.15}) {
    for (uint64_t seed : {1u, 2u, 3u, 4u}) {
      auto spec = sim::make_fat_tree(3, 8);
      REQUIRE(spec.has_value());
      REQUIRE(sim::drop_switch_links(*spec, fraction, seed).has_value());
      const fabric::Topology topo = to_topology(*spec);
      const auto t = route("ftree", topo);
      CAPTURE(fraction);
      CAPTURE(seed);
      const Loads l = loads(topo, t, false);
      CHECK(l.unrouted_pairs == t.diagnostics().unrouted_ca_pairs);
      if (fraction < 0.1) CHECK(l.unrouted_pairs == 0);
      CHECK(cdg_acyclic(topo, t));
    }
  }
}

}  // TEST_SUITE

TEST_SUITE("unit") {

TEST_CASE("ftree: the LIDs of one CA (LMC 2) take different up-links and spines") {
  const fabric::Topology topo = to_topology(two_level(3, 4, 2), {.lmc = 2});
  const auto t = route("ftree", topo);
  CHECK(undelivered(topo, t).empty());
  CHECK(cdg_acyclic(topo, t));
  const fabric::NodeId l1 = node(topo, "L1");
  for (const char* ca : {"H0_0", "H0_1", "H2_1"}) {
    CAPTURE(ca);
    std::set<uint8_t> ports;
    for (uint16_t k = 0; k < 4; ++k)
      ports.insert(t.port(l1, mad::Lid(static_cast<uint16_t>(lid(topo, ca).value() + k))));
    CHECK(ports.size() == 4);  // four spines, one per LID
  }
}

}  // TEST_SUITE
