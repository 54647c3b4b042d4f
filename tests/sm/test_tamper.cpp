// Tables changed behind the SM's back (issue 15): a host that is not an SM rewrote a switch's
// LFT blocks. Light sweeps find them within a pass, a heavy sweep asked to verify at once, and
// so does the first sweep after a restart on remembered tables; each logs the switch and blocks.
#include <doctest/doctest.h>

#include "tests/sm/harness.h"

using namespace smtest;

namespace {

sm::SmConfig light_every_second(int pass) {
  sm::SmConfig cfg;
  cfg.sweep_interval = std::chrono::seconds(1);
  cfg.lft_verify_pass = pass;
  return cfg;
}

// Black-holes LIDs 1..63 (all of block 0) on a leaf switch, as SubnSet(LFT) of 0xFF would.
sim::NodeIdx tamper(Run& r, const std::string& name) {
  const auto sw = *r.fabric->find(name);
  auto& lft = r.fabric->mutable_node(sw).sw->lft;
  for (size_t lid = 1; lid < 64 && lid < lft.size(); ++lid) lft[lid] = 0xFF;
  return sw;
}

std::string guid_of(Run& r, sim::NodeIdx sw) { return fmt::format("{}", r.fabric->node(sw).guid); }

}  // namespace

TEST_CASE("light sweeps read back a share of the LFT blocks and rewrite what was changed") {
  Run r(load("ft3-r8.net"), light_every_second(8));
  REQUIRE(r.until_idle());
  REQUIRE(r.verify().all_routed());
  const auto sw = tamper(r, "S1_02_01");
  REQUIRE_FALSE(r.verify().all_routed());
  // A full pass is 8 light sweeps: repaired within 9 s, whichever share holds the block.
  REQUIRE(r.run_for(std::chrono::seconds(9)));
  CHECK(r.verify().all_routed());
  CHECK(r.logged("E0527"));
  CHECK(r.logged("security: a light sweep found the LFT of switch " + guid_of(r, sw)));
  CHECK(r.logged("in 1 block(s): 0; rewritten"));
  CHECK_FALSE(r.logged("heavy sweep requested"));  // no full sweep for it
}

TEST_CASE("a heavy sweep asked to verify reads every block back and rewrites what was changed") {
  sm::SmConfig cfg = light_every_second(0);  // no light-sweep share: only the heavy sweep
  Run r(load("ft3-r8.net"), cfg);
  REQUIRE(r.until_idle());
  tamper(r, "S1_00_00");
  auto& seen = r.record();
  r.sm->request_sweep("test");  // not asked to verify: trusts what it wrote
  REQUIRE(r.until_idle());
  CHECK_FALSE(r.verify().all_routed());
  CHECK(seen.back().program.lft_blocks_tampered == 0);
  r.sm->request_sweep("test, verify", true);
  REQUIRE(r.until_idle());
  CHECK(r.verify().all_routed());
  CHECK(seen.back().program.lft_blocks_tampered == 1);
  CHECK(seen.back().program.lft_blocks_written == 1);
  CHECK(r.logged("security: a heavy sweep (test, verify) found the LFT of switch"));
}

TEST_CASE("the first sweep after a restart on remembered tables verifies them") {
  Run r(load("ft3-r8.net"), light_every_second(0));
  REQUIRE(r.until_idle());
  // What a store keeps: the LID map and what was written.
  sm::Remembered kept;
  const auto& s = r.subnet();
  kept.lids = *s.lids;
  for (fabric::NodeId sw : s.topology->switches())
    if (s.lft(sw)) kept.lfts.put(s.topology->node(sw).guid, *s.lft(sw));
  tamper(r, "S1_01_00");
  r.start(light_every_second(0), std::move(kept));
  auto& seen = r.record();
  REQUIRE(r.until_idle());
  REQUIRE(r.sm->subnet_up());
  CHECK(r.verify().all_routed());
  CHECK(seen.back().program.lft_blocks_tampered == 1);
  CHECK(seen.back().program.lft_blocks_written == 1);  // the rest was right: read, not written
  CHECK(r.logged("E0527"));
}
