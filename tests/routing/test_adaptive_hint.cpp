// adaptive-hint: alternatives, and hints moving deterministic routes off a hot link.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "checks.h"
#include "helpers.h"
#include "routing/hints.h"

using namespace rtest;

namespace {
std::vector<uint8_t> alts(const fabric::Topology& topo, const routing::RoutingTables& t,
                          const std::string& sw, const std::string& dst) {
  const auto a = t.alternatives(node(topo, sw), lid(topo, dst));
  return {a.begin(), a.end()};
}
}  // namespace

TEST_SUITE("unit") {
  TEST_CASE(
      "adaptive-hint: on a fat tree, the LFTs are ftree's and the alternatives the legal ports") {
    const fabric::Topology topo = to_topology(two_level(3, 3, 2));
    const auto t = route("adaptive-hint", topo);
    const auto f = route("ftree", topo);
    for (fabric::NodeId sw : topo.switches()) CHECK(std::ranges::equal(t.lft(sw), f.lft(sw)));
    REQUIRE(t.has_alternatives());
    CHECK_FALSE(f.has_alternatives());
    CHECK(alts(topo, t, "L0", "H1_0") == std::vector<uint8_t>{3, 4, 5});
    CHECK(alts(topo, t, "L0", "H0_1").empty());  // its own CA
    CHECK(alts(topo, t, "P1", "H2_0") == std::vector<uint8_t>{3});
    CHECK(alts(topo, t, "L2", "P0") == std::vector<uint8_t>{3});
    // The deterministic choice is one of the alternatives.
    const auto a = t.alternatives(node(topo, "L1"), lid(topo, "H2_1"));
    CHECK(std::ranges::find(a, t.port(node(topo, "L1"), lid(topo, "H2_1"))) != a.end());
    CHECK(t.diagnostics().notes[0] == "adaptive-hint: fat-tree core, 0 hinted link(s)");
    // adaptive-hint promises no deadlock freedom in general (its tables elsewhere are
    // minhop's, below), so the generic tests do not check it; on a fat tree they are acyclic.
    CHECK_FALSE(engine("adaptive-hint")->deadlock_free());
    CHECK(cdg_acyclic(topo, t));
  }

TEST_CASE("adaptive-hint: elsewhere, minhop's tables and equal-hop alternatives") {
  const fabric::Topology topo = to_topology(ring(4, 1));
  const auto t = route("adaptive-hint", topo);
  const auto m = route("minhop", topo);
  for (fabric::NodeId sw : topo.switches()) CHECK(std::ranges::equal(t.lft(sw), m.lft(sw)));
  CHECK(alts(topo, t, "S1", "H3_0") == std::vector<uint8_t>{2, 3});
  CHECK(alts(topo, t, "S1", "H2_0") == std::vector<uint8_t>{2});
  CHECK(t.diagnostics().notes[0] == "adaptive-hint: min-hop core, 0 hinted link(s)");
  const fabric::Topology ring5 = to_topology(ring(5, 1));
  CHECK_FALSE(cdg_acyclic(ring5, route("adaptive-hint", ring5)));  // as minhop's: a cycle
}

// The reference fat trees (sim suite, with the other figures): ftree's tables, acyclic.
TEST_CASE("figures: adaptive-hint on ft3-r16 and ft3-r16-degraded5 is deadlock-free") {
  for (const std::string file : {"ft3-r16.net", "ft3-r16-degraded5.net"}) {
    CAPTURE(file);
    const fabric::Topology topo = to_topology(shared(file));
    const auto t = route("adaptive-hint", topo);
    const auto f = route("ftree", topo);
    for (fabric::NodeId sw : topo.switches()) CHECK(std::ranges::equal(t.lft(sw), f.lft(sw)));
    CHECK(cdg_acyclic(topo, t));
  }
}

TEST_CASE("adaptive-hint: a heavy hinted link loses load, in both directions") {
  const fabric::Topology topo = to_topology(two_level(4, 4, 4));
  const fabric::NodeId l0 = node(topo, "L0"), p0 = node(topo, "P0");
  // The cable L0 port 5 <-> P0 port 1.
  const auto before = route("adaptive-hint", topo);
  routing::RoutingOptions opts;
  opts.hints = {{topo.node(l0).guid, mad::PortNum(5), 8}};
  const auto after = route("adaptive-hint", topo, opts);
  const uint64_t up0 = channel_load(topo, before, l0, 5), up1 = channel_load(topo, after, l0, 5);
  const uint64_t dn0 = channel_load(topo, before, p0, 1), dn1 = channel_load(topo, after, p0, 1);
  MESSAGE("hinted L0->P0 all-to-all: ", up0, " -> ", up1, "; P0->L0: ", dn0, " -> ", dn1);
  CHECK(up1 < up0);
  CHECK(dn1 < dn0);
  CHECK(undelivered(topo, after).empty());
  CHECK(cdg_acyclic(topo, after));
  // Alternatives do not change: the link is still a legal, shortest way.
  CHECK(alts(topo, after, "L0", "H1_0") == alts(topo, before, "L0", "H1_0"));

  SUBCASE("the same from a file, named from the other end") {
    const std::string path = "test_routing_hints.txt";
    std::ofstream(path) << "# hot cable\n" << topo.node(p0).guid.str() << " 1 8  # P0 -> L0\n";
    routing::RoutingOptions fopts;
    fopts.hints_file = path;
    const auto from_file = route("adaptive-hint", topo, fopts);
    std::remove(path.c_str());
    CHECK(from_file == after);
  }
}

TEST_CASE("adaptive-hint: minhop core with a hint") {
  // Ring of 4: S1 reaches S3 both ways; a heavy S1 port 2 pushes that onto port 3.
  const fabric::Topology topo = to_topology(ring(4, 1));
  routing::RoutingOptions opts;
  opts.hints = {{topo.node(node(topo, "S1")).guid, mad::PortNum(2), 4}};
  const auto t = route("adaptive-hint", topo, opts);
  CHECK(entry(topo, t, "S1", "H3_0") == 3);
  CHECK(entry(topo, t, "S1", "H2_0") == 2);  // the only shortest way stays
}

TEST_CASE("hints: the text format") {
  auto ok = routing::parse_hints("# comment\n\n0x200000 5 8\n  2097153\t7 1  # trailing\n");
  REQUIRE(ok.has_value());
  REQUIRE(ok->size() == 2);
  CHECK((*ok)[0] == routing::LinkHint{mad::Guid(0x200000), mad::PortNum(5), 8});
  CHECK((*ok)[1] == routing::LinkHint{mad::Guid(0x200001), mad::PortNum(7), 1});
  for (const char* bad : {"0x200000 5\n", "0x200000 5 8 9\n", "zz 5 8\n", "0x200000 0 8\n",
                          "0x200000 255 8\n", "0x200000 5 0\n", "0x200000 5 1001\n"}) {
    auto e = routing::parse_hints(std::string("# first\n") + bad);
    REQUIRE(!e.has_value());
    CHECK(e.error().code == mad::Errc::parse);
    CHECK(e.error().message.find("hints line 2") == 0);
  }
  auto missing = routing::load_hints("/nonexistent/hints");
  REQUIRE(!missing.has_value());
  CHECK(missing.error().code == mad::Errc::io);
}

TEST_CASE("hints: a hint on no usable link is skipped with a note; a missing file is an error") {
  const fabric::Topology topo = to_topology(two_level(2, 2, 1));
  routing::RoutingOptions opts;
  opts.hints = {{mad::Guid(0x999), mad::PortNum(1), 5}};
  const auto t = route("adaptive-hint", topo, opts);
  REQUIRE(t.diagnostics().notes.size() >= 2);
  CHECK(t.diagnostics().notes[1].find("no usable switch link there, skipped") != std::string::npos);
  opts.hints.clear();
  opts.hints_file = "/nonexistent/hints";
  auto e = (*routing::make_engine("adaptive-hint"))->compute(topo, opts);
  REQUIRE(!e.has_value());
  CHECK(e.error().code == mad::Errc::io);
}

}  // TEST_SUITE
