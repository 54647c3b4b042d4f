// updn: roots, legal paths, unrouted pairs by name.
#include <doctest/doctest.h>

#include <algorithm>

#include "checks.h"
#include "helpers.h"
#include "sim/generators.h"

using namespace rtest;

TEST_SUITE("unit") {

TEST_CASE("updn: a ring goes round the root where minhop would turn down then up") {
  // Ring of 4 with a CA on every switch: not a tree, so the root is the centre; all switches
  // tie, S0 has the lowest GUID. Ranks S0 0, S1 1, S3 1, S2 2.
  const fabric::Topology topo = to_topology(ring(4, 1));
  const auto up = route("updn", topo);
  const auto mh = route("minhop", topo);
  // S1 -> H3_0: via S0 (port 3, up then down) or via S2 (port 2, down then up: illegal).
  CHECK(entry(topo, mh, "S1", "H3_0") == 2);
  CHECK(entry(topo, up, "S1", "H3_0") == 3);
  // S3 -> H1_0: via S0 (port 2 from S3 goes to S0), the mirror image.
  CHECK(entry(topo, up, "S3", "H1_0") == 2);
  // S2 is at the bottom: it reaches S0 over either side; balanced, lowest port first.
  CHECK(entry(topo, up, "S2", "H0_0") == 2);
  // S0 reaches S2 down either side: H1_0 took port 2 already, so port 3.
  CHECK(entry(topo, up, "S0", "H2_0") == 3);
  CHECK(undelivered(topo, up).empty());
  CHECK(cdg_acyclic(topo, up));
  REQUIRE(!up.diagnostics().notes.empty());
  CHECK(up.diagnostics().notes[0].find("'S0'") != std::string::npos);
}

TEST_CASE("updn: deadlock-free where minhop is not") {
  for (uint32_t n : {5u, 6u, 9u}) {
    const fabric::Topology topo = to_topology(ring(n, 2));
    const auto t = route("updn", topo);
    CHECK(undelivered(topo, t).empty());
    CHECK(cdg_acyclic(topo, t));
  }
}

TEST_CASE("updn: on a tree the roots are the switches with nothing above") {
  const fabric::Topology topo = to_topology(two_level(4, 2, 2));
  const auto t = route("updn", topo);
  REQUIRE(!t.diagnostics().notes.empty());
  const std::string& note = t.diagnostics().notes[0];
  CHECK(note.find("2 root(s), tree") != std::string::npos);
  CHECK(note.find("'P0', 'P1'") != std::string::npos);
  CHECK(undelivered(topo, t).empty());
  CHECK(cdg_acyclic(topo, t));
  // Spine to spine is down then up: no legal path, given the shortest path (management only).
  CHECK(t.diagnostics().fallback_pairs == 2);
  CHECK(t.diagnostics().unrouted_pairs == 0);
}

TEST_CASE("updn: configured roots, and the pairs they leave without a legal path, by name") {
  // A line S0 - S1 - S2 - S3 with roots S0 and S3: ranks 0 1 1 0. S1 -> S2 is down (equal
  // rank, higher GUID), S2 -> S3 up: S0 and S1 cannot reach S3, S3 cannot reach S0 and S1.
  const fabric::Topology topo = to_topology(line(4, 1));
  routing::RoutingOptions opts;
  opts.root_guids = {topo.node(node(topo, "S0")).guid, topo.node(node(topo, "S3")).guid,
                     mad::Guid(0x1234)};
  const auto t = route("updn", topo, opts);
  const auto& d = t.diagnostics();
  CHECK(d.notes[0].find("configured (1 not found: 0x0000000000001234)") != std::string::npos);
  // CA destinations only: switch LIDs fall back to shortest paths.
  CHECK(d.unrouted_pairs == 4);
  CHECK(d.unrouted_ca_pairs == 4);
  std::vector<std::string> lines;
  for (const auto& p : d.unrouted) lines.push_back(routing::describe(topo, p));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].find("switch 'S0'") == 0);
  CHECK(lines[0].find("'H3_0'") != std::string::npos);
  CHECK(lines[1].find("switch 'S1'") == 0);
  CHECK(lines[2].find("switch 'S3'") == 0);
  CHECK(lines[2].find("'H0_0'") != std::string::npos);
  CHECK(lines[3].find("'H1_0'") != std::string::npos);
  CHECK(entry(topo, t, "S0", "H3_0") == routing::kNoRoute);
  CHECK(entry(topo, t, "S3", "H2_0") == 3);
  CHECK(entry(topo, t, "S2", "H0_0") == 3);  // up to S1, up to S0
  CHECK(d.fallback_pairs == 4);
  CHECK(entry(topo, t, "S0", "S3") == 2);    // shortest path to a switch LID
}

TEST_CASE("updn: no configured root exists") {
  const fabric::Topology topo = to_topology(line(2, 1));
  routing::RoutingOptions opts;
  opts.root_guids = {mad::Guid(0x42)};
  auto e = routing::make_engine("updn");
  auto t = (*e)->compute(topo, opts);
  REQUIRE(!t.has_value());
  CHECK(t.error().code == mad::Errc::not_found);
}

TEST_CASE("updn: a random switch graph and a 2D torus") {
  auto rnd =
      sim::make_random({.switches = 40, .ports = 8, .cas_per_switch = 2, .degree = 4, .seed = 7});
  REQUIRE(rnd.has_value());
  auto torus = sim::make_torus({.dims = {4, 5}, .cas_per_switch = 2});
  REQUIRE(torus.has_value());
  for (const sim::FabricSpec* spec : {&*rnd, &*torus}) {
    const fabric::Topology topo = to_topology(*spec);
    const auto t = route("updn", topo);
    CHECK(t.diagnostics().notes[0].find("not a tree") != std::string::npos);
    CHECK(t.diagnostics().unrouted_pairs == 0);
    CHECK(undelivered(topo, t, false).empty());
    CHECK(cdg_acyclic(topo, t));
  }
}

}  // TEST_SUITE
