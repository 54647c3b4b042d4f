// minhop on fabrics small enough to route by hand.
#include <doctest/doctest.h>

#include "checks.h"
#include "helpers.h"

using namespace rtest;

TEST_SUITE("unit") {

TEST_CASE("minhop: a line of three switches, every entry") {
  // H0_0..H2_0 get LIDs 1..3, S0..S2 get 4..6. Si: port 1 its CA, 2 toward S(i+1), 3 back.
  const fabric::Topology topo = to_topology(line(3, 1));
  const auto t = route("minhop", topo);
  const auto lft = [&](const char* sw) {
    const auto l = t.lft(node(topo, sw));
    return std::vector<uint8_t>(l.begin(), l.end());
  };
  const uint8_t X = routing::kNoRoute;
  CHECK(lft("S0") == std::vector<uint8_t>{X, 1, 2, 2, 0, 2, 2});
  CHECK(lft("S1") == std::vector<uint8_t>{X, 3, 1, 2, 3, 0, 2});
  CHECK(lft("S2") == std::vector<uint8_t>{X, 3, 3, 1, 3, 3, 0});
  CHECK(t.diagnostics().unrouted_pairs == 0);
  CHECK(undelivered(topo, t).empty());
}

TEST_CASE("minhop: equal-cost ports balanced by LIDs routed, ties to the lowest port") {
  // S0 (CA A on port 1) has two cables to S1 (ports 2,3 <-> 5,6); S1 holds B, C, D, E.
  const fabric::Topology topo = to_topology(Spec()
                                            .ca("A").ca("B").ca("C").ca("D").ca("E")
                                            .sw("S0", 3).sw("S1", 6)
                                            .link("A", 1, "S0", 1)
                                            .link("B", 1, "S1", 1).link("C", 1, "S1", 2)
                                            .link("D", 1, "S1", 3).link("E", 1, "S1", 4)
                                            .link("S0", 2, "S1", 5).link("S0", 3, "S1", 6));
  const auto t = route("minhop", topo);
  CHECK(entry(topo, t, "S0", "A") == 1);
  CHECK(entry(topo, t, "S0", "B") == 2);
  CHECK(entry(topo, t, "S0", "C") == 3);
  CHECK(entry(topo, t, "S0", "D") == 2);
  CHECK(entry(topo, t, "S0", "E") == 3);
  CHECK(entry(topo, t, "S0", "S0") == 0);
  CHECK(entry(topo, t, "S0", "S1") == 2);
  CHECK(entry(topo, t, "S1", "A") == 5);
  CHECK(entry(topo, t, "S1", "S0") == 6);
  CHECK(entry(topo, t, "S1", "E") == 4);
}

TEST_CASE("minhop: the LIDs of one port (LMC 1) leave by different ports") {
  const fabric::Topology topo = to_topology(Spec()
                                            .ca("A").ca("B").ca("C")
                                            .sw("S0", 3).sw("S1", 4)
                                            .link("A", 1, "S0", 1)
                                            .link("B", 1, "S1", 1).link("C", 1, "S1", 2)
                                            .link("S0", 2, "S1", 3).link("S0", 3, "S1", 4),
                                        {.lmc = 1});
  const auto t = route("minhop", topo);
  const fabric::NodeId s0 = node(topo, "S0");
  for (const char* ca : {"B", "C"}) {
    const mad::Lid base = lid(topo, ca);
    CHECK(base.value() % 2 == 0);
    const uint8_t a = t.port(s0, base);
    const uint8_t b = t.port(s0, mad::Lid(static_cast<uint16_t>(base.value() + 1)));
    CHECK(a != b);
    CHECK((a == 2 || a == 3));
    CHECK((b == 2 || b == 3));
  }
  CHECK(undelivered(topo, t).empty());
}

TEST_CASE("minhop: down and Init ports") {
  SUBCASE("a link with a Down end is absent: the long way round") {
    // Ring of 4; S0-S1 cable has S1's end Down. S0 reaches S1 via S3, S2.
    const fabric::Topology topo = to_topology(ring(4, 1), {.down = {{"S1", 3}}});
    const auto t = route("minhop", topo);
    CHECK(entry(topo, t, "S0", "H1_0") == 3);
    CHECK(entry(topo, t, "S0", "S1") == 3);
    CHECK(entry(topo, t, "S1", "H0_0") == 2);
    CHECK(undelivered(topo, t).empty());
  }
  SUBCASE("Init counts as up") {
    const fabric::Topology topo = to_topology(ring(4, 1), {.init = {{"S1", 3}, {"S0", 2}}});
    const auto t = route("minhop", topo);
    CHECK(entry(topo, t, "S0", "H1_0") == 2);
  }
  SUBCASE("a CA behind a Down port is unrouted, not an error") {
    const fabric::Topology topo = to_topology(line(2, 2), {.down = {{"H1_1", 1}}});
    const auto t = route("minhop", topo);
    CHECK(entry(topo, t, "S0", "H1_1") == routing::kNoRoute);
    CHECK(entry(topo, t, "S1", "H1_1") == routing::kNoRoute);
    CHECK(entry(topo, t, "S0", "H1_0") == 3);
    CHECK(t.diagnostics().unrouted_pairs == 0);
  }
}

TEST_CASE("minhop: unassigned LIDs stay kNoRoute; a disconnected switch is reported") {
  // Two separate lines: S0-S1 and a lone S2 with its CA.
  Spec s;
  s.ca("A").ca("B").ca("C").sw("S0", 3).sw("S1", 3).sw("S2", 3);
  s.link("A", 1, "S0", 1).link("B", 1, "S1", 1).link("C", 1, "S2", 1).link("S0", 2, "S1", 3);
  fabric::Topology topo = to_topology(s);
  // Leave a hole in the LID space: move S2 to LID 20.
  const fabric::Topology::LidSet moved{node(topo, "S2"), mad::PortNum(0), mad::Lid(20), 0};
  topo = topo.with_lids({&moved, 1});
  const auto t = route("minhop", topo);
  CHECK(t.max_lid() == mad::Lid(20));
  CHECK(t.port(node(topo, "S0"), mad::Lid(10)) == routing::kNoRoute);
  CHECK(entry(topo, t, "S0", "C") == routing::kNoRoute);
  CHECK(entry(topo, t, "S2", "S2") == 0);
  const auto& d = t.diagnostics();
  CHECK(d.unrouted_pairs == 2 * 2 + 2 * 2);  // S0,S1 -> C,S2 and S2 -> A,B,S0,S1
  REQUIRE(!d.unrouted.empty());
  CHECK(routing::describe(topo, d.unrouted.front()).find("has no route to 'C'") !=
        std::string::npos);
}

TEST_CASE("minhop: two ports with one LID is a conflict") {
  fabric::Topology topo = to_topology(line(2, 1));
  const fabric::Topology::LidSet dup{node(topo, "S1"), mad::PortNum(0), lid(topo, "H0_0"), 0};
  topo = topo.with_lids({&dup, 1});
  auto e = routing::make_engine("minhop");
  auto t = (*e)->compute(topo, {});
  REQUIRE(!t.has_value());
  CHECK(t.error().code == mad::Errc::conflict);
}

TEST_CASE("minhop: shortest paths on a ring have a cyclic channel dependency graph") {
  const fabric::Topology topo = to_topology(ring(5, 1));
  const auto t = route("minhop", topo);
  CHECK(undelivered(topo, t).empty());
  CHECK_FALSE(cdg_acyclic(topo, t));
}

}  // TEST_SUITE
