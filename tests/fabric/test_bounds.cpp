// fabric/bounds.h on hand-built fabrics: the bounds worked out by hand (a two-level tree, the
// same with a cable cut or its port down or in Init, a ring, a line, a torus), and against an
// oracle that tries every set of switches and counts each shift's flows pair by pair: on these
// small fabrics the cuts tried must find the best bound there is, and never more.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/bounds.h"
#include "net.h"

namespace {

using fabric::NodeId;
using fabric::Port;
using fabric::Topology;
using ftest::Net;
using mad::PortState;

bool up_link(const Topology& t, const Port& p) {
  return p.linked() && p.state >= PortState::init && t.port(p.peer, p.peer_port).state >= PortState::init;
}

struct Best {
  uint64_t all = 0;
  double shift_mean = 0;
  uint64_t shift_max = 0;
};

// The best cut bounds over every set of switches, over the shifts `shifts`. A set and its
// complement bound the same (as many flows enter as leave), so the last switch stays out.
Best every_cut(const Topology& t, const std::vector<size_t>& shifts) {
  const std::vector<NodeId> sw(t.switches().begin(), t.switches().end());
  REQUIRE(sw.size() <= 20);
  std::vector<uint32_t> leaf;  // of each CA in leaf order: its switch's index in sw
  std::vector<std::pair<uint32_t, uint32_t>> channels;  // directed, between up switch ports
  for (uint32_t i = 0; i < sw.size(); ++i)
    for (const Port& p : t.ports(sw[i])) {
      if (p.num.value() == 0 || !up_link(t, p)) continue;
      if (!t.node(p.peer).is_switch()) leaf.push_back(i);
      else channels.emplace_back(i, static_cast<uint32_t>(std::find(sw.begin(), sw.end(), p.peer) - sw.begin()));
    }
  const size_t N = leaf.size();
  Best b;
  std::vector<uint64_t> per_shift(shifts.size(), 0);
  std::vector<uint8_t> inside(N);
  for (uint32_t mask = 1; mask < (1u << (sw.size() - 1)); ++mask) {
    uint64_t n = 0, c = 0;
    for (size_t i = 0; i < N; ++i) n += inside[i] = (mask >> leaf[i]) & 1u;
    for (const auto& [from, to] : channels) c += ((mask >> from) & 1u) && !((mask >> to) & 1u);
    if (c == 0 || n == 0 || n == N) continue;
    b.all = std::max(b.all, (n * (N - n) + c - 1) / c);
    for (size_t s = 0; s < shifts.size(); ++s) {
      uint64_t out = 0;
      for (size_t i = 0, j = shifts[s] % N; i < N; ++i, j = j + 1 == N ? 0 : j + 1) out += inside[i] && !inside[j];
      per_shift[s] = std::max(per_shift[s], (out + c - 1) / c);
    }
  }
  uint64_t sum = 0;
  for (uint64_t v : per_shift) {
    sum += v;
    b.shift_max = std::max(b.shift_max, v);
  }
  b.shift_mean = shifts.empty() ? 0.0 : static_cast<double>(sum) / static_cast<double>(shifts.size());
  return b;
}

std::vector<size_t> all_shifts(const Topology& t) {
  std::vector<size_t> k;
  for (size_t s = 1; s < fabric::cut_bounds(t).ca_ports; ++s) k.push_back(s);
  return k;
}

// The cuts tried find the best there is (for the shifts too, unless `shifts_at_most`: cuts
// made for each shift would find more on irregular fabrics, never less).
void as_every_cut(const Topology& t, bool shifts_at_most = false) {
  const fabric::CutBounds b = fabric::cut_bounds(t);
  const Best o = every_cut(t, all_shifts(t));
  CHECK(b.max_link_load == o.all);
  if (shifts_at_most) {
    CHECK(b.shift_congestion <= o.shift_mean + 1e-12);
    CHECK(b.shift_congestion_max <= o.shift_max);
  } else {
    CHECK(b.shift_congestion == doctest::Approx(o.shift_mean).epsilon(1e-12));
    CHECK(b.shift_congestion_max == o.shift_max);
  }
  CHECK(b.shifts == all_shifts(t).size());
  CHECK_FALSE(b.shifts_sampled);
}

// A connected random graph: a spanning tree, then extra cables; 1 to 3 CAs a switch.
Net random_net(uint32_t switches, uint64_t seed) {
  uint64_t x = seed;
  const auto next = [&](uint32_t below) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((x >> 33) % below);
  };
  Net net;
  constexpr uint8_t kPorts = 12;
  std::vector<uint8_t> used(switches);
  std::vector<std::vector<bool>> cabled(switches, std::vector<bool>(switches, false));
  for (uint32_t s = 0; s < switches; ++s) {
    const std::string name = "R" + std::to_string(s);
    net.sw(name, kPorts);
    const uint32_t cas = 1 + next(3);
    for (uint32_t k = 0; k < cas; ++k) {
      const std::string h = "H" + std::to_string(s) + "_" + std::to_string(k);
      net.ca(h).link(h, 1, name, ++used[s]);
    }
  }
  const auto cable = [&](uint32_t a, uint32_t b) {
    if (a == b || cabled[a][b] || used[a] >= kPorts || used[b] >= kPorts) return;
    cabled[a][b] = cabled[b][a] = true;
    net.link("R" + std::to_string(a), ++used[a], "R" + std::to_string(b), ++used[b]);
  };
  for (uint32_t s = 1; s < switches; ++s) cable(s, next(s));
  for (uint32_t e = 0; e < switches; ++e) cable(next(switches), next(switches));
  return net;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("cut bounds: a two-level tree, by hand and against every cut") {
  // 4 leaves of 3 CAs, 2 spines: a leaf sends 3 x 9 routes over its 2 uplinks (14 on one);
  // under shift k its CAs leave for k = 1, 2: k of them (1 on a link), 3..9: all 3 (2),
  // 10, 11: 12 - k (1); no other cut has fewer channels for its flows.
  const Topology t = ftest::two_level(4, 2, 3).build(0);
  const fabric::CutBounds b = fabric::cut_bounds(t);
  CHECK(b.ca_ports == 12);
  CHECK(b.max_link_load == 14);
  CHECK(b.max_link_load_cut.what == "leaf L0");
  CHECK(b.max_link_load_cut.cas == 3);
  CHECK(b.max_link_load_cut.channels == 2);
  CHECK(b.shift_congestion == doctest::Approx((1 + 1 + 7 * 2 + 1 + 1) / 11.0));
  CHECK(b.shift_congestion_max == 2);
  CHECK(b.shifts == 11);
  CHECK(b.shift_cut.what.starts_with("leaf L"));
  as_every_cut(t);
}

TEST_CASE("cut bounds: a tree whose top tier is thin: a pod behind one cable") {
  // Leaves L0..L3 (2 CAs, one uplink), middle switches M0 (over L0, L1) and M1, one cable each
  // to the top switch T: the pod of M0 sends its 4 CAs' 4 x 4 routes over that one cable.
  Net net;
  for (int i = 0; i < 4; ++i) {
    const std::string leaf = "L" + std::to_string(i);
    net.sw(leaf, 3);
    for (uint8_t k = 1; k <= 2; ++k) {
      const std::string h = "H" + std::to_string(i) + "_" + std::to_string(k);
      net.ca(h).link(h, 1, leaf, k);
    }
  }
  net.sw("M0", 3).sw("M1", 3).sw("T", 2);
  for (int i = 0; i < 4; ++i)
    net.link("L" + std::to_string(i), 3, i < 2 ? "M0" : "M1", static_cast<uint8_t>(i % 2 + 1));
  net.link("M0", 3, "T", 1).link("M1", 3, "T", 2);
  const Topology t = net.build(0);
  const fabric::CutBounds b = fabric::cut_bounds(t);
  CHECK(b.max_link_load == 16);
  CHECK(b.max_link_load_cut.what == "pod 0");
  CHECK(b.max_link_load_cut.cas == 4);
  CHECK(b.max_link_load_cut.channels == 1);
  CHECK(b.shift_congestion_max == 4);  // shift 4: the pod's 4 CAs all leave it
  as_every_cut(t);
}

TEST_CASE("cut bounds: a cut cable, a port Down and a port in Init") {
  // Leaf L0 keeps one uplink: 27 routes on it; its 3 CAs' flows cross it alone (k of them
  // for k = 1, 2; 3 for k = 3..9; 12 - k for k = 10, 11).
  const double mean = (1 + 2 + 7 * 3 + 2 + 1) / 11.0;
  SUBCASE("the cable is gone") {
    const Topology t = ftest::two_level(4, 2, 3).unlink("L0", 5).build(0);
    const fabric::CutBounds b = fabric::cut_bounds(t);
    CHECK(b.max_link_load == 27);
    CHECK(b.max_link_load_cut.what == "leaf L0");
    CHECK(b.max_link_load_cut.channels == 1);
    CHECK(b.shift_congestion == doctest::Approx(mean));
    CHECK(b.shift_congestion_max == 3);
    CHECK(b.shift_cut.what == "leaf L0");
    as_every_cut(t);
  }
  SUBCASE("a port Down: the link is not up") {
    const Topology t = ftest::two_level(4, 2, 3).state("P1", 1, PortState::down).build(0);
    CHECK(fabric::cut_bounds(t).max_link_load == 27);
    CHECK(fabric::cut_bounds(t).shift_congestion == doctest::Approx(mean));
    as_every_cut(t);
  }
  SUBCASE("a port in Init: the link is up (the metrics count it)") {
    const Topology t = ftest::two_level(4, 2, 3).state("P1", 1, PortState::init).build(0);
    CHECK(fabric::cut_bounds(t).max_link_load == 14);
  }
}

TEST_CASE("cut bounds: a ring, a line and a torus") {
  SUBCASE("a ring of 6 switches, 2 CAs each: half the ring holds 6 CAs behind 2 channels") {
    const Topology t = ftest::chain(6, 2, true).build(0);
    const fabric::CutBounds b = fabric::cut_bounds(t);
    CHECK(b.max_link_load == 18);
    CHECK(b.max_link_load_cut.cas == 6);
    CHECK(b.max_link_load_cut.channels == 2);
    CHECK(b.shift_congestion_max == 3);  // shift 6: all 6 leave the half
    as_every_cut(t);
  }
  SUBCASE("a line of 6 switches: the middle cable carries 6 x 6") {
    const Topology t = ftest::chain(6, 2, false).build(0);
    CHECK(fabric::cut_bounds(t).max_link_load == 36);
    CHECK(fabric::cut_bounds(t).shift_congestion_max == 6);
    as_every_cut(t);
  }
  SUBCASE("a 4x4 torus, 2 CAs each: a half of 16 CAs behind 8 channels") {
    const Topology t = ftest::torus(4, 4, 2).build(0);
    const fabric::CutBounds b = fabric::cut_bounds(t);
    CHECK(b.max_link_load == 32);
    CHECK(b.max_link_load_cut.what == "bisection of 8 switches");
    CHECK(b.max_link_load_cut.channels == 8);
    as_every_cut(t);
  }
  SUBCASE("a 3x4 torus, 1 CA each") { as_every_cut(ftest::torus(3, 4, 1).build(0)); }
}

TEST_CASE("cut bounds: random graphs against every cut") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    as_every_cut(random_net(12, seed).build(0), true);
  }
  // One where the best grown cut has 28 routes a channel and only the refinement finds 32.
  as_every_cut(random_net(14, 20).build(0), true);
}

TEST_CASE("cut bounds: the metrics' shifts, sampled the same way") {
  const Topology t = ftest::torus(4, 4, 2).build(0);
  const fabric::MetricsOptions opts{.all_shifts_up_to = 8, .sampled_shifts = 5};
  const std::vector<size_t> shifts = fabric::shift_list(32, opts).shifts;
  REQUIRE(shifts.size() == 5);
  const fabric::CutBounds b = fabric::cut_bounds(t, opts);
  CHECK(b.shifts == 5);
  CHECK(b.shifts_sampled);
  const Best o = every_cut(t, shifts);
  CHECK(b.shift_congestion == doctest::Approx(o.shift_mean).epsilon(1e-12));
  CHECK(b.shift_congestion_max == o.shift_max);
  CHECK(b.max_link_load == o.all);
}

TEST_CASE("cut bounds: nothing to bound without switch links or with pairs that have no route") {
  SUBCASE("one switch") {
    Net net;
    net.sw("S", 4).ca("A").ca("B").link("A", 1, "S", 1).link("B", 1, "S", 2);
    const fabric::CutBounds b = fabric::cut_bounds(net.build(0));
    CHECK(b.ca_ports == 2);
    CHECK(b.cuts == 0);  // the leaf holds every CA: no cut at all
    CHECK(b.max_link_load == 0);
    CHECK(b.shift_congestion == 0);
  }
  SUBCASE("two switches, no cable between them: no cut bounds a routing that cannot exist") {
    Net net;
    net.sw("S0", 2).sw("S1", 2).ca("A").ca("B").link("A", 1, "S0", 1).link("B", 1, "S1", 1);
    const fabric::CutBounds b = fabric::cut_bounds(net.build(0));
    CHECK(b.max_link_load == 0);
    CHECK(b.shift_congestion_max == 0);
  }
}

}  // TEST_SUITE
