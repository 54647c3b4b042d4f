#include <doctest/doctest.h>

#include "sim/metrics.h"
#include "tests/sim/fabric/helpers.h"

using namespace simtest;

TEST_CASE("metrics: link loads, shifts and stretch on two leaves, worked out by hand") {
  // H1, H2 on S1 (ports 1, 2); H3 on S2; S1[5] - S2[5].
  Hand h(spec({"H1", "H2", "H3", "S1", "S2"},
              {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S2", 1}, {"S1", 5, "S2", 5}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 5});
  h.lft("S2", {0xFF, 5, 5, 1});
  auto m = sim::measure_routing(*h.f, {.keep_link_loads = true});
  CHECK(m.ca_ports == 3);
  CHECK(m.unrouted == 0);
  CHECK(m.switch_links == 2);
  CHECK(m.max_link_load == 2);  // H1, H2 -> H3 one way; H3 -> H1, H2 the other
  CHECK(m.mean_link_load == doctest::Approx(2.0));
  // Leaf order H1, H2, H3: shift 1 and shift 2 each put one route on each direction.
  CHECK(m.shifts == 2);
  CHECK_FALSE(m.shifts_sampled);
  CHECK(m.shift_congestion == doctest::Approx(1.0));
  CHECK(m.stretch_mean == doctest::Approx(1.0));
  CHECK(m.stretched_pairs == 0);
  CHECK(m.cdg_acyclic);
  CHECK(m.cdg_edges == 0);  // no route crosses two switch links
  REQUIRE(m.links.size() == 2);
  CHECK(m.links[0].routes == 2);
}

TEST_CASE("metrics: a ring routed the long way round has stretch and a dependency cycle") {
  // S1 - S2 - S3 - S1, one CA each; every switch sends the CA two hops clockwise the long way.
  Hand h(spec({"H1", "H2", "H3", "S1", "S2", "S3"},
              {{"H1", 1, "S1", 1}, {"H2", 1, "S2", 1}, {"H3", 1, "S3", 1},
               {"S1", 2, "S2", 3}, {"S2", 2, "S3", 3}, {"S3", 2, "S1", 3}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  // Port 2 is clockwise (S1->S2->S3->S1), port 3 counter-clockwise.
  //            LID:  0    1  2  3
  h.lft("S1", {0xFF, 1, 2, 2});  // to H3 clockwise via S2: two hops instead of one
  h.lft("S2", {0xFF, 2, 1, 2});  // to H1 via S3
  h.lft("S3", {0xFF, 2, 2, 1});  // to H2 via S1
  auto m = sim::measure_routing(*h.f);
  CHECK(m.unrouted == 0);
  CHECK_FALSE(m.cdg_acyclic);
  CHECK(m.cdg_edges == 3);
  // Three pairs take 4 links where 3 would do; three take their shortest 3.
  CHECK(m.stretched_pairs == 3);
  CHECK(m.stretch_max == doctest::Approx(4.0 / 3.0));
  CHECK(m.stretch_mean == doctest::Approx((3 * 1.0 + 3 * 4.0 / 3.0) / 6.0));
  CHECK(m.max_link_load == 3);  // each clockwise link: one direct route and two long ones
}

TEST_CASE("metrics: unrouted pairs are counted, not walked into") {
  Hand h(spec({"H1", "H2", "S1", "S2"}, {{"H1", 1, "S1", 1}, {"H2", 1, "S2", 1}, {"S1", 5, "S2", 5}}));
  h.lid("H1", 1); h.lid("H2", 2);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 0xFF});
  h.lft("S2", {0xFF, 5, 1});
  auto m = sim::measure_routing(*h.f);
  CHECK(m.unrouted == 1);
  CHECK(m.max_link_load == 1);
}

TEST_CASE("metrics: large fabrics sample their shifts and say so") {
  Hand h(spec({"H1", "H2", "H3", "S1"}, {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S1", 3}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 3});
  auto m = sim::measure_routing(*h.f, {.all_shifts_up_to = 2, .sampled_shifts = 1});
  CHECK(m.shifts_sampled);
  CHECK(m.shifts == 1);
  CHECK(m.shift_congestion == doctest::Approx(0.0));  // one switch: no switch links at all
}

TEST_CASE("metrics: what the fabric holds now: LinearFDBTop, removed nodes, links by node index") {
  // S1 - S2 - S3 in a line, one CA each.
  Hand h(spec({"H1", "H2", "H3", "S1", "S2", "S3"},
              {{"H1", 1, "S1", 1}, {"H2", 1, "S2", 1}, {"H3", 1, "S3", 1}, {"S1", 5, "S2", 5},
               {"S2", 6, "S3", 6}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 5, 5});
  h.lft("S2", {0xFF, 5, 1, 6});
  h.lft("S3", {0xFF, 6, 6, 1});
  auto m = sim::measure_routing(*h.f);
  CHECK(m.unrouted == 0);
  CHECK(m.max_link_load == 2);  // S1 -> S2: H1 to H2 and H3
  // S2's table ends before LID 3 (the entry stays in memory): H1 and H2 no longer reach H3.
  h.n("S2").sw->lft_top = 2;
  CHECK(sim::measure_routing(*h.f).unrouted == 2);
  h.n("S2").sw->lft_top = 3;
  // S3 goes, and H3 with it: two CAs, one cable left, reported by the fabric's node indices.
  REQUIRE(h.f->remove_node(*h.f->find("S3")));
  m = sim::measure_routing(*h.f, {.keep_link_loads = true});
  CHECK(m.ca_ports == 2);
  CHECK(m.unrouted == 0);
  REQUIRE(m.links.size() == 2);
  CHECK(m.links[0].from == *h.f->find("S1"));
  CHECK(m.links[0].from_port == 5);
  CHECK(m.links[0].to == *h.f->find("S2"));
  CHECK(m.links[0].routes == 1);
}
