// The SM under adverse conditions: MAD loss, a hung switch, LID exhaustion.
#include <doctest/doctest.h>

#include "tests/sm/harness.h"

using namespace smtest;

TEST_CASE("10% MAD loss still converges to a fully routed fabric") {
  for (uint64_t seed : {1, 2, 3}) {
    Run r(load("ft3-r8.net"), {}, sim::SimConfig{.drop_rate = 0.10, .seed = seed});
    REQUIRE(r.until_idle());
    CHECK(r.sm->subnet_up());
    CHECK(r.fabric->stats().dropped_loss > 0);
    CHECK(r.sm->mad_stats().retried > 0);
    const auto v = r.verify();
    CHECK(v.all_routed());
    CHECK(v.ports_not_active == 0);
  }
}

TEST_CASE("a switch that never answers is left out and the rest is routed") {
  Run r(load("ft3-r8.net"));
  // The SM has sent its first SMP, to its own node; nothing has reached the core yet.
  const auto core = *r.fabric->find("S3_0000");
  REQUIRE(r.fabric->set_silent(core, true));
  REQUIRE(r.until_idle());
  CHECK(r.sm->subnet_up());
  CHECK(r.logged("W0202"));  // no NodeInfo at the paths that lead to it
  CHECK(r.sm->last_sweep().switches == 79);
  const auto v = r.verify();
  CHECK(v.all_routed());
  // Only the ports cabled to the hung switch stay in Init.
  uint64_t toward = 0;
  for (const auto& p : r.fabric->node(core).ports) toward += p.link_up() && p.num ? 1 : 0;
  CHECK(v.ports_not_active == 2 * toward);
}

TEST_CASE("LID exhaustion is a clear error, not a crash") {
  sm::SmConfig cfg;
  cfg.ports.lmc = 7;  // 128 LIDs per CA port: 1,024 CAs cannot fit in 49,151 LIDs
  Run r(load("ft3-r16.net"), cfg);
  REQUIRE(r.until_idle(2));
  CHECK_FALSE(r.sm->subnet_up());
  CHECK(r.logged("E0301"));
  CHECK(r.logged("LID space exhausted"));
  CHECK(r.sm->last_sweep().lids.unassigned > 0);
}
