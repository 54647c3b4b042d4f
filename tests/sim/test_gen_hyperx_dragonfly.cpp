// HyperX and Dragonfly(+) generators: counts by formula, every switch's degree, the cabling
// rule, the diameter, determinism, the net-file round trip and refused parameters.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/generators.h"
#include "sim/netfile.h"
#include "tests/sim/generator_test_util.h"
#include "tests/sim/netfile_test_util.h"

using namespace sim;

namespace {

// The numbers of a name after its prefix: "S_01_02_03" -> {1, 2, 3}.
std::vector<uint32_t> name_numbers(std::string_view name) {
  std::vector<uint32_t> out;
  size_t at = name.find('_');
  while (at != std::string_view::npos) {
    size_t next = name.find('_', at + 1);
    out.push_back(static_cast<uint32_t>(std::stoul(std::string(name.substr(at + 1, next - at - 1)))));
    at = next;
  }
  return out;
}

// The most switch-to-switch hops between two switches that carry CAs, by BFS from each (the
// router hops a packet between two CAs takes at most on a shortest path); -1 if one is cut off.
int ca_switch_diameter(const FabricSpec& spec, bool only_with_cas = true) {
  const size_t n = spec.nodes.size();
  std::vector<std::vector<uint32_t>> adj(n);
  std::vector<bool> has_ca(n, false);
  for (const SpecLink& l : spec.links) {
    bool sa = spec.nodes[l.a].type == mad::NodeType::sw, sb = spec.nodes[l.b].type == mad::NodeType::sw;
    if (sa && sb) {
      adj[l.a].push_back(l.b);
      adj[l.b].push_back(l.a);
    } else {
      has_ca[sa ? l.a : l.b] = true;
    }
  }
  auto counts = [&](size_t i) {
    return spec.nodes[i].type == mad::NodeType::sw && (!only_with_cas || has_ca[i]);
  };
  int worst = 0;
  for (size_t s = 0; s < n; ++s) {
    if (!counts(s)) continue;
    std::vector<int> dist(n, -1);
    std::deque<uint32_t> queue{static_cast<uint32_t>(s)};
    dist[s] = 0;
    while (!queue.empty()) {
      uint32_t u = queue.front();
      queue.pop_front();
      for (uint32_t v : adj[u])
        if (dist[v] < 0) {
          dist[v] = dist[u] + 1;
          queue.push_back(v);
        }
    }
    for (size_t t = 0; t < n; ++t) {
      if (!counts(t)) continue;
      if (dist[t] < 0) return -1;
      worst = std::max(worst, dist[t]);
    }
  }
  return worst;
}

// Cables between each pair of switches, by node index (lower first).
std::map<std::pair<uint32_t, uint32_t>, size_t> switch_pairs(const FabricSpec& spec) {
  std::map<std::pair<uint32_t, uint32_t>, size_t> pairs;
  for (const SpecLink& l : spec.links)
    if (spec.nodes[l.a].type == mad::NodeType::sw && spec.nodes[l.b].type == mad::NodeType::sw)
      ++pairs[{std::min(l.a, l.b), std::max(l.a, l.b)}];
  return pairs;
}

// The node and port at the other end of (name, port).
std::pair<std::string, int> peer_of(const FabricSpec& spec, std::string_view name, uint8_t port) {
  const SpecLink* l = sim_test::link_of(spec, name, port);
  if (!l) return {"", 0};
  if (spec.nodes[l->a].name == name && l->port_a == port) return {spec.nodes[l->b].name, l->port_b};
  return {spec.nodes[l->a].name, l->port_a};
}

}  // namespace

TEST_CASE("HyperX: counts, degrees, cabling rule, diameter") {
  struct Case {
    std::vector<uint32_t> dims;
    uint32_t trunk, cas;
  } cases[] = {{{4, 4}, 1, 1}, {{3, 5}, 2, 2}, {{4, 4, 4}, 1, 2}, {{2, 3, 4}, 3, 1}, {{2, 2}, 1, 1}};
  for (const Case& c : cases) {
    CAPTURE(c.dims.size());
    CAPTURE(c.dims[0]);
    CAPTURE(c.trunk);
    FabricSpec spec = sim_test::ok(make_hyperx({c.dims, c.trunk, c.cas, 0}));
    size_t switches = 1, peers = 0;
    for (uint32_t d : c.dims) {
      switches *= d;
      peers += d - 1;
    }
    SpecCounts n = count_spec(spec);
    CHECK(n.switches == switches);
    CHECK(n.cas == switches * c.cas);
    CHECK(n.switch_links == switches * peers * c.trunk / 2);
    CHECK(n.links == n.switch_links + n.cas);
    CHECK(n.components == 1);
    std::vector<size_t> deg = sim_test::switch_degrees(spec);
    for (size_t i = n.cas; i < spec.nodes.size(); ++i) {
      CHECK(deg[i] == peers * c.trunk);
      CHECK(spec.nodes[i].num_ports == c.cas + peers * c.trunk);  // every port used
    }
    // Exactly the pairs that differ in one coordinate, each with `trunk` cables.
    auto pairs = switch_pairs(spec);
    CHECK(pairs.size() == switches * peers / 2);
    for (const auto& [pair, cables] : pairs) {
      std::vector<uint32_t> x = name_numbers(spec.nodes[pair.first].name);
      std::vector<uint32_t> y = name_numbers(spec.nodes[pair.second].name);
      REQUIRE(x.size() == c.dims.size());
      REQUIRE(y.size() == c.dims.size());
      size_t differ = 0;
      for (size_t d = 0; d < x.size(); ++d) differ += x[d] != y[d];
      CHECK(differ == 1);
      CHECK(cables == c.trunk);
    }
    CHECK(ca_switch_diameter(spec) == static_cast<int>(c.dims.size()));
    sim_test::check_round_trip(spec);
  }

  // The port rule: CAs, then dimension 0's peers in increasing coordinate, then dimension 1's.
  FabricSpec hx = sim_test::ok(make_hyperx({{4, 4}, 2, 1, 0}));
  CHECK(hx.nodes[16].name == "S_00_00");
  CHECK(hx.nodes.back().name == "S_03_03");
  CHECK(peer_of(hx, "S_00_00", 1) == std::pair<std::string, int>{"H00000", 1});
  CHECK(peer_of(hx, "S_00_00", 2) == std::pair<std::string, int>{"S_01_00", 2});
  CHECK(peer_of(hx, "S_00_00", 3) == std::pair<std::string, int>{"S_01_00", 3});
  CHECK(peer_of(hx, "S_00_00", 7) == std::pair<std::string, int>{"S_03_00", 3});
  CHECK(peer_of(hx, "S_00_00", 8) == std::pair<std::string, int>{"S_00_01", 8});
  CHECK(peer_of(hx, "S_02_01", 4) == std::pair<std::string, int>{"S_01_01", 4});  // rank 1 of 3
  CHECK(peer_of(hx, "S_02_01", 8) == std::pair<std::string, int>{"S_02_00", 8});  // dim 1 rank 0
  CHECK(peer_of(hx, "S_02_01", 13) == std::pair<std::string, int>{"S_02_03", 11});
  CHECK(hx.links.back().speed_ext == speed::hdr);
  // Spare ports stay free.
  CHECK(sim_test::ok(make_hyperx({{3, 3}, 1, 1, 36})).nodes.back().num_ports == 36);
}

TEST_CASE("HyperX refuses bad parameters") {
  CHECK_FALSE(make_hyperx({{4}, 1, 1, 0}));           // one dimension
  CHECK_FALSE(make_hyperx({{2, 2, 2, 2}, 1, 1, 0}));  // four
  CHECK_FALSE(make_hyperx({{4, 1}, 1, 1, 0}));
  CHECK_FALSE(make_hyperx({{4, 4}, 0, 1, 0}));        // no cable
  CHECK_FALSE(make_hyperx({{4, 4}, 1, 0, 0}));        // no CA
  CHECK_FALSE(make_hyperx({{4, 4}, 1, 1, 6}));        // needs 7 ports
  CHECK_FALSE(make_hyperx({{100, 100}, 2, 1, 0}));    // 397 ports
  CHECK_FALSE(make_hyperx({{4, 4}, 1, 1, 255}));
  auto big = make_hyperx({{128, 128, 128}, 1, 1, 0});
  REQUIRE_FALSE(big);
  CHECK(big.error().code == mad::Errc::exhausted);
  CHECK_FALSE(make_hyperx({{4'000'000'000u, 4'000'000'000u, 4'000'000'000u}, 1, 1, 0}));
}

TEST_CASE("Dragonfly: counts, degrees, one cable per pair of groups, 3 router hops") {
  struct Case {
    uint32_t p, a, h, g;
    int diameter;  // router hops: 3 (local, global, local); 2 groups: 2, one router a group: 1
  } cases[] = {{2, 4, 2, 0, 3}, {1, 2, 1, 0, 3}, {3, 6, 3, 0, 3},
               {1, 4, 2, 4, 3}, {2, 3, 2, 2, 2}, {1, 1, 3, 0, 1}};
  for (const Case& c : cases) {
    CAPTURE(c.p);
    CAPTURE(c.a);
    CAPTURE(c.h);
    CAPTURE(c.g);
    FabricSpec spec = sim_test::ok(make_dragonfly({c.p, c.a, c.h, c.g, false, 0}));
    const size_t g = c.g ? c.g : c.a * c.h + 1, slots = c.a * c.h, m = slots / (g - 1);
    SpecCounts n = count_spec(spec);
    CHECK(n.switches == g * c.a);
    CHECK(n.cas == g * c.a * c.p);
    CHECK(n.switch_links == g * c.a * (c.a - 1) / 2 + m * g * (g - 1) / 2);
    CHECK(n.components == 1);
    std::vector<size_t> deg = sim_test::switch_degrees(spec);
    for (size_t i = n.cas; i < spec.nodes.size(); ++i) {
      std::vector<uint32_t> gr = name_numbers(spec.nodes[i].name);
      REQUIRE(gr.size() == 2);
      // Router r holds global slots r*h .. r*h+h-1; those below m*(g-1) are cabled.
      size_t first = gr[1] * c.h, used = std::min(first + c.h, m * (g - 1));
      CHECK(deg[i] == c.a - 1 + (used > first ? used - first : 0));
      CHECK(spec.nodes[i].num_ports == c.p + c.a - 1 + c.h);
    }
    // Inside a group every pair once; between two groups m cables.
    std::map<std::pair<uint32_t, uint32_t>, size_t> groups;
    for (const auto& [pair, cables] : switch_pairs(spec)) {
      if (m == 1) CHECK(cables == 1);  // several rounds may cable two routers twice
      uint32_t gx = name_numbers(spec.nodes[pair.first].name)[0];
      uint32_t gy = name_numbers(spec.nodes[pair.second].name)[0];
      groups[{std::min(gx, gy), std::max(gx, gy)}] += cables;
    }
    CHECK(groups.size() == (c.a > 1 ? g : 0) + g * (g - 1) / 2);
    for (const auto& [pair, cables] : groups)
      CHECK(cables == (pair.first == pair.second ? c.a * (c.a - 1) / 2 : m));
    CHECK(ca_switch_diameter(spec) == c.diameter);
    sim_test::check_round_trip(spec);
  }
  // The balanced canonical case, p = h, a = 2h: 9 groups of 4 routers.
  FabricSpec df = sim_test::ok(make_dragonfly({2, 4, 2, 0, false, 0}));
  CHECK(df.nodes[72].name == "S_00_00");
  CHECK(df.nodes.back().name == "S_08_03");
  // Router 0 of group 0: CAs, then its group's routers 1..3, then groups 1 and 2.
  CHECK(peer_of(df, "S_00_00", 3) == std::pair<std::string, int>{"S_00_01", 3});
  CHECK(peer_of(df, "S_00_00", 5) == std::pair<std::string, int>{"S_00_03", 3});
  CHECK(peer_of(df, "S_00_00", 6) == std::pair<std::string, int>{"S_01_00", 6});
  CHECK(peer_of(df, "S_00_00", 7) == std::pair<std::string, int>{"S_02_00", 6});
  // Group 5's slot for group 8 is 7 (router 3, its second global port); group 8's for 5 is 5.
  CHECK(peer_of(df, "S_05_03", 7) == std::pair<std::string, int>{"S_08_02", 7});
}

TEST_CASE("Dragonfly+: leaf/spine groups, spines cabled across, leaves 3 hops apart") {
  struct Case {
    uint32_t p, a, h, g, spines;
  } cases[] = {{2, 2, 2, 0, 0}, {4, 4, 4, 0, 0}, {2, 3, 2, 0, 2}, {1, 2, 3, 3, 1}, {1, 2, 2, 2, 0}};
  for (const Case& c : cases) {
    CAPTURE(c.p);
    CAPTURE(c.a);
    CAPTURE(c.h);
    CAPTURE(c.spines);
    FabricSpec spec = sim_test::ok(make_dragonfly({c.p, c.a, c.h, c.g, true, c.spines}));
    const size_t s = c.spines ? c.spines : c.a, slots = s * c.h;
    const size_t g = c.g ? c.g : slots + 1, m = slots / (g - 1);
    SpecCounts n = count_spec(spec);
    CHECK(n.switches == g * (c.a + s));
    CHECK(n.cas == g * c.a * c.p);
    CHECK(n.switch_links == g * c.a * s + m * g * (g - 1) / 2);
    CHECK(n.components == 1);
    std::vector<size_t> deg = sim_test::switch_degrees(spec);
    const size_t leaves_end = n.cas + g * c.a;
    for (size_t i = n.cas; i < spec.nodes.size(); ++i) {
      const std::string& name = spec.nodes[i].name;
      CHECK(name.starts_with(i < leaves_end ? "S1_" : "S2_"));
      CHECK(spec.nodes[i].num_ports == std::max<size_t>(c.p + s, c.a + c.h));
      if (i < leaves_end) {
        CHECK(deg[i] == s);
        continue;
      }
      size_t first = name_numbers(name)[1] * c.h, used = std::min(first + c.h, m * (g - 1));
      CHECK(deg[i] == c.a + (used > first ? used - first : 0));
    }
    // Leaves cable only to spines of their group; global cables only spine to spine.
    for (const auto& [pair, cables] : switch_pairs(spec)) {
      const std::string &x = spec.nodes[pair.first].name, &y = spec.nodes[pair.second].name;
      bool leaf_x = x.starts_with("S1_");
      if (m == 1) CHECK(cables == 1);
      CHECK_FALSE((leaf_x && y.starts_with("S1_")));
      if (leaf_x) CHECK(name_numbers(x)[0] == name_numbers(y)[0]);
    }
    CHECK(ca_switch_diameter(spec) == 3);  // leaf, spine, remote spine, remote leaf
    sim_test::check_round_trip(spec);
  }
  FabricSpec dp = sim_test::ok(make_dragonfly({2, 2, 2, 0, true, 0}));  // 5 groups
  CHECK(dp.nodes[20].name == "S1_00_00");
  CHECK(dp.nodes[30].name == "S2_00_00");
  CHECK(peer_of(dp, "S1_00_01", 4) == std::pair<std::string, int>{"S2_00_01", 2});
  CHECK(peer_of(dp, "S2_00_01", 4) == std::pair<std::string, int>{"S2_04_00", 3});  // slot 3: group 4
}

TEST_CASE("Dragonfly refuses bad parameters") {
  CHECK_FALSE(make_dragonfly({0, 4, 2, 0, false, 0}));
  CHECK_FALSE(make_dragonfly({2, 0, 2, 0, false, 0}));
  CHECK_FALSE(make_dragonfly({2, 4, 0, 0, false, 0}));
  CHECK_FALSE(make_dragonfly({2, 4, 2, 1, false, 0}));    // one group
  CHECK_FALSE(make_dragonfly({2, 4, 2, 10, false, 0}));   // 8 global ports reach 8 groups
  CHECK_FALSE(make_dragonfly({2, 4, 2, 0, false, 2}));    // spines without --plus
  CHECK_FALSE(make_dragonfly({100, 100, 100, 0, false, 0}));  // 299 ports
  CHECK_FALSE(make_dragonfly({2, 200, 100, 0, true, 0}));     // spines need 300
  auto big = make_dragonfly({1, 100, 100, 0, false, 0});       // 10,001 groups of 100
  REQUIRE_FALSE(big);
  CHECK(big.error().code == mad::Errc::exhausted);
  CHECK_FALSE(make_dragonfly({1, 4, 2, 4'000'000'000u, false, 0}));
}

TEST_CASE("HyperX and Dragonfly are deterministic") {
  CHECK(write_netfile(sim_test::ok(make_hyperx({{3, 4, 2}, 2, 2, 0}))) ==
        write_netfile(sim_test::ok(make_hyperx({{3, 4, 2}, 2, 2, 0}))));
  CHECK(write_netfile(sim_test::ok(make_dragonfly({2, 4, 2, 0, false, 0}))) ==
        write_netfile(sim_test::ok(make_dragonfly({2, 4, 2, 0, false, 0}))));
  CHECK(write_netfile(sim_test::ok(make_dragonfly({2, 2, 2, 4, true, 0}))) ==
        write_netfile(sim_test::ok(make_dragonfly({2, 2, 2, 4, true, 0}))));
}
