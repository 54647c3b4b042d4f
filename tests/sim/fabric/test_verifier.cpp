#include <doctest/doctest.h>

#include "sim/verifier.h"
#include "tests/sim/fabric/helpers.h"

using namespace simtest;

namespace {


// H1, H2 on S1; H3 on S2; S1[5] - S2[5].
sim::FabricSpec two_leaves() {
  return spec({"H1", "H2", "H3", "S1", "S2"},
              {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S2", 1}, {"S1", 5, "S2", 5}});
}

}  // namespace

TEST_CASE("verifier: correct tables route every pair, with path lengths") {
  Hand h(two_leaves());
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3); h.lid("S1", 4); h.lid("S2", 5);
  h.activate_all();
  //           LID: 0     1  2  3  4  5
  h.lft("S1", {0xFF, 1, 2, 5, 0, 5});
  h.lft("S2", {0xFF, 5, 5, 1, 5, 0});
  auto r = sim::verify_routing(*h.f);
  CHECK(r.ca_ports == 3);
  CHECK(r.pairs == 6);
  CHECK(r.routed == 6);
  CHECK(r.all_routed());
  CHECK(r.max_hops == 3);  // H1 - S1 - S2 - H3
  CHECK(r.hop_histogram[2] == 2);  // H1 <-> H2
  CHECK(r.hop_histogram[3] == 4);
  CHECK(r.mean_hops == doctest::Approx((2 * 2 + 4 * 3) / 6.0));
  CHECK(r.ports_not_active == 0);
}

TEST_CASE("verifier: a missing entry, a wrong delivery and a loop are each caught") {
  Hand h(two_leaves());
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 5});
  h.lft("S2", {0xFF, 5, 5, 0xFF});  // H3 unreachable from everywhere
  auto r = sim::verify_routing(*h.f);
  CHECK(r.unrouted == 2);
  CHECK(r.routed == 4);
  CHECK_FALSE(r.samples.empty());

  h.lft("S2", {0xFF, 5, 5, 5});  // S2 sends H3's LID back to S1, which sends it to S2: loop
  r = sim::verify_routing(*h.f);
  CHECK(r.loops == 2);

  h.lft("S1", {0xFF, 2, 2, 5});  // H1's LID delivered to H2
  h.lft("S2", {0xFF, 5, 5, 1});
  r = sim::verify_routing(*h.f);
  CHECK(r.unrouted == 2);  // H2 -> H1 and H3 -> H1
}

TEST_CASE("verifier: routes over a port that is not Active do not count") {
  Hand h(two_leaves());
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 5});
  h.lft("S2", {0xFF, 5, 5, 1});
  h.n("S2").ports[5].state = mad::PortState::armed;
  auto r = sim::verify_routing(*h.f);
  CHECK(r.unrouted == 4);  // everything that crosses S1-S2
  CHECK(r.ports_not_active == 2);
}

TEST_CASE("verifier: CAs without a LID and duplicate LIDs are reported") {
  Hand h(two_leaves());
  h.lid("H1", 1); h.lid("H2", 1);
  h.activate_all();
  auto r = sim::verify_routing(*h.f);
  CHECK(r.no_lid == 1);
  CHECK(r.duplicate_lids == 1);
  CHECK_FALSE(r.all_routed());
}
