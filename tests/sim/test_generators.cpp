// Generators: counts, equivalence with the shared files, determinism, degraded variants,
// torus and random graphs, and that every spec survives write + parse.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/generators.h"
#include "sim/netfile.h"
#include "tests/sim/generator_test_util.h"
#include "tests/sim/netfile_test_util.h"

using namespace sim;

using sim_test::check_round_trip;
using sim_test::ok;
using sim_test::switch_degrees;

TEST_CASE("k-ary fat trees reproduce the shared files exactly") {
  struct Case {
    uint32_t levels, radix;
    const char* file;
  } cases[] = {{2, 8, "ft2-r8.net"}, {3, 8, "ft3-r8.net"}, {3, 16, "ft3-r16.net"}};
  for (const Case& c : cases) {
    CAPTURE(c.file);
    std::string path = std::string(FABRICSM_TOPO_DIR) + "/" + c.file;
    FabricSpec gen = ok(make_fat_tree(c.levels, c.radix));
    auto file = load_netfile(path);
    REQUIRE(file);
    CHECK(gen == *file);  // same names, cabling, GUIDs and link speeds
    CHECK(write_netfile(gen) == sim_test::slurp(path));
  }
}

TEST_CASE("fat tree counts") {
  struct Case {
    uint32_t levels, radix;
    size_t switches, cas;
  } cases[] = {{2, 8, 12, 32},        {3, 8, 80, 128},      {3, 16, 320, 1024},
               {3, 32, 1280, 8192},   {3, 54, 3645, 39366}, {4, 8, 448, 512},
               {4, 16, 3584, 8192},   {2, 254, 381, 32258}};
  for (const Case& c : cases) {
    CAPTURE(c.levels);
    CAPTURE(c.radix);
    FabricSpec spec = ok(make_fat_tree(c.levels, c.radix));
    SpecCounts n = count_spec(spec);
    CHECK(n.switches == c.switches);
    CHECK(n.cas == c.cas);
    CHECK(n.components == 1);
    // Every switch port is cabled in a k-ary tree.
    CHECK(n.links == (n.switches * c.radix + n.cas) / 2);
  }
  FabricSpec four = ok(make_fat_tree(4, 8));
  CHECK(sim_test::find_node(four, "S1_00_00"));
  CHECK(sim_test::find_node(four, "S3_07_15"));
  CHECK(sim_test::find_node(four, "S4_0063"));
  check_round_trip(four);
}

TEST_CASE("the 3-level radix-54 file (43,011 nodes) is written and parsed back") {
  FabricSpec spec = ok(make_fat_tree(3, 54));
  std::string text = write_netfile(spec);
  auto t0 = std::chrono::steady_clock::now();
  auto again = parse_netfile(text, "ft3-r54");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(again);
  CHECK(again->nodes.size() == 43011);
  CHECK(*again == spec);
  MESSAGE("parsed " << text.size() / 1000 << " kB, 43,011 nodes, " << spec.links.size()
                    << " links in " << ms << " ms");
}

TEST_CASE("two-level trees") {
  FabricSpec big = ok(make_two_level({254, 127, 254, 127}));
  SpecCounts n = count_spec(big);
  CHECK(n.switches == 381);
  CHECK(n.cas == 32258);
  CHECK(n.switch_links == 254 * 127);
  // Same shape as ft2-r8 through the other entry point.
  CHECK(ok(make_two_level({8, 4, 8, 4})) == ok(make_fat_tree(2, 8)));
  // Fewer spines: parallel cables fill the leaf's up ports.
  FabricSpec par = ok(make_two_level({4, 2, 8, 4}));
  CHECK(count_spec(par).switch_links == 4 * 2 * 2);
  check_round_trip(par);
  CHECK_FALSE(make_two_level({4, 8, 8, 6}));   // 2 up ports for 8 spines
  CHECK_FALSE(make_two_level({0, 2, 8, 4}));
  CHECK_FALSE(make_two_level({4, 2, 300, 4}));
  CHECK_FALSE(make_two_level({20, 2, 8, 4}));  // 20 leaves on an 8-port spine
}

TEST_CASE("PGFT with parallel cables and multi-rail CAs") {
  // PGFT(2; 2,4; 2,2; 1,2): 8 dual-port CAs, 8 leaves, 4 tops, two cables per leaf-top pair.
  FabricSpec spec = ok(make_pgft({{2, 4}, {2, 2}, {1, 2}, 0}));
  SpecCounts n = count_spec(spec);
  CHECK(n.cas == 8);                   // m1 * m2
  CHECK(n.switches == 4 * 2 + 2 * 2);  // level 1: m2*w1, level 2: w1*w2
  CHECK(spec.nodes[0].num_ports == 2);  // w1 * p1
  CHECK(spec.nodes[8].num_ports == 8);  // radix: the top uses m2*p2 = 8, a leaf m1*p1 + w2*p2 = 6
  CHECK(n.links == 8 * 2 + 8 * 2 * 2);
  CHECK(n.components == 2);  // w1 = 2: two rails, each CA port in its own plane
  switch_degrees(spec);
  check_round_trip(spec);
  // XGFT(3; 4,4,8; 1,4,4) is ft3-r8.
  CHECK(ok(make_pgft({{4, 4, 8}, {1, 4, 4}, {}, 8})) == ok(make_fat_tree(3, 8)));
  CHECK_FALSE(make_pgft({{4, 4}, {1}, {}, 0}));
  CHECK_FALSE(make_pgft({{4, 0}, {1, 2}, {}, 0}));
  CHECK_FALSE(make_pgft({{4, 8}, {1, 4}, {}, 6}));  // needs 8 ports
  CHECK_FALSE(make_pgft({{1000, 1000, 1000}, {1, 1, 1}, {}, 0}));  // too many nodes
}

TEST_CASE("generators are deterministic") {
  CHECK(write_netfile(ok(make_fat_tree(3, 16))) == write_netfile(ok(make_fat_tree(3, 16))));
  CHECK(write_netfile(ok(make_random({30, 12, 2, 0, 5}))) ==
        write_netfile(ok(make_random({30, 12, 2, 0, 5}))));
  CHECK(write_netfile(ok(make_torus({{3, 4, 2}, false, 2, 0}))) ==
        write_netfile(ok(make_torus({{3, 4, 2}, false, 2, 0}))));
}

TEST_CASE("degraded fat trees: the fraction, the seed, switch links only") {
  const FabricSpec full = ok(make_fat_tree(3, 16));
  auto degraded = [&](double f, uint64_t seed) {
    FabricSpec s = full;
    auto n = drop_switch_links(s, f, seed);
    REQUIRE(n);
    return std::pair(s, *n);
  };
  auto [five, removed] = degraded(0.05, 3);
  CHECK(removed == 102);  // round(0.05 * 2048), as ft3-r16-degraded5.net
  SpecCounts c = count_spec(five);
  CHECK(c.switch_links == 2048 - 102);
  CHECK(c.links == 3072 - 102);
  CHECK(c.cas == 1024);
  CHECK(five == degraded(0.05, 3).first);
  CHECK_FALSE(five == degraded(0.05, 4).first);
  // Surviving links keep their order: the result is the full list minus some.
  size_t j = 0;
  for (const SpecLink& l : full.links)
    if (j < five.links.size() && five.links[j] == l) ++j;
  CHECK(j == five.links.size());
  check_round_trip(five);
  // The shared degraded file has the same counts (another tool chose its links).
  auto shared = load_netfile(std::string(FABRICSM_TOPO_DIR) + "/ft3-r16-degraded5.net");
  REQUIRE(shared);
  CHECK(count_spec(*shared).switch_links == c.switch_links);

  CHECK(degraded(0.0, 1).second == 0);
  CHECK(degraded(0.0, 1).first == full);
  CHECK(count_spec(degraded(1.0, 1).first).switch_links == 0);
  FabricSpec s = full;
  CHECK_FALSE(drop_switch_links(s, 1.5, 1));
  CHECK_FALSE(drop_switch_links(s, -0.1, 1));
}

TEST_CASE("tori and meshes") {
  FabricSpec torus = ok(make_torus({{4, 4, 4}, false, 2, 0}));
  SpecCounts t = count_spec(torus);
  CHECK(t.switches == 64);
  CHECK(t.cas == 128);
  CHECK(t.switch_links == 64 * 3);  // every switch: one cable towards +1 in each dimension
  CHECK(t.components == 1);
  std::vector<size_t> deg = switch_degrees(torus);
  for (size_t i = 128; i < torus.nodes.size(); ++i) CHECK(deg[i] == 6);
  CHECK(torus.nodes[0].name == "H00000");
  CHECK(torus.nodes[128].name == "S_00_00_00");
  CHECK(torus.nodes.back().name == "S_03_03_03");
  check_round_trip(torus);

  FabricSpec mesh = ok(make_torus({{4, 3}, true, 1, 10}));
  SpecCounts m = count_spec(mesh);
  CHECK(m.switches == 12);
  CHECK(m.switch_links == 3 * 3 + 4 * 2);
  CHECK(m.components == 1);
  CHECK(mesh.nodes[12].num_ports == 10);
  check_round_trip(mesh);

  // A dimension of 2 has one cable between its two switches in a torus.
  CHECK(count_spec(ok(make_torus({{2, 2}, false, 1, 0}))).switch_links == 4);
  CHECK_FALSE(make_torus({{4, 4, 4, 4}, false, 1, 0}));
  CHECK_FALSE(make_torus({{4, 1}, false, 1, 0}));
  CHECK_FALSE(make_torus({{4, 4}, false, 1, 4}));  // needs 5 ports
}

TEST_CASE("random graphs are connected, within their degree, and follow the seed") {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    FabricSpec r = ok(make_random({50, 8, 2, 0, seed}));
    SpecCounts c = count_spec(r);
    CHECK(c.switches == 50);
    CHECK(c.cas == 100);
    CHECK(c.components == 1);
    std::vector<size_t> deg = switch_degrees(r);
    size_t full = 0;
    for (size_t i = 100; i < r.nodes.size(); ++i) {
      CHECK(deg[i] >= 1);
      CHECK(deg[i] <= 6);
      full += deg[i] == 6;
    }
    CHECK(full >= 40);  // the extra cables fill nearly every switch
    // No parallel cables between two switches.
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const SpecLink& l : r.links)
      if (r.nodes[l.a].type == mad::NodeType::sw && r.nodes[l.b].type == mad::NodeType::sw)
        CHECK(pairs.insert({std::min(l.a, l.b), std::max(l.a, l.b)}).second);
  }
  // Degree 2 still connects (a tree then a few extra cables).
  FabricSpec thin = ok(make_random({200, 4, 1, 2, 9}));
  CHECK(count_spec(thin).components == 1);
  check_round_trip(thin);
  CHECK_FALSE(ok(make_random({30, 8, 1, 0, 1})) == ok(make_random({30, 8, 1, 0, 2})));
  CHECK(count_spec(ok(make_random({2, 2, 1, 1, 1}))).components == 1);
  CHECK_FALSE(make_random({3, 2, 1, 1, 1}));  // degree 1 cannot connect 3
  CHECK_FALSE(make_random({0, 8, 1, 0, 1}));
  CHECK_FALSE(make_random({4, 8, 8, 0, 1}));  // no port left for switch cables
}
