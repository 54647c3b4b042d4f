// A living fabric: links and switches fail and return under a running SM (issue: traps,
// light sweeps, incremental re-routing). After each event: every reachable pair routed,
// deadlock-free where the engine promises it, no LID changed, and only what changed written.
#include <doctest/doctest.h>

#include "sim/metrics.h"
#include "tests/sm/check_routed.h"
#include "tests/sm/harness.h"

using namespace smtest;
using namespace std::chrono_literals;

namespace {

sm::SmConfig ftree() {
  sm::SmConfig c;
  c.routing_engine = "ftree,updn";
  return c;
}

struct Totals {
  uint64_t sweeps = 0, heavy = 0, blocks = 0, lid_changes = 0;
  bool all_up = true;
};
Totals totals(const std::vector<sm::SweepReport>& reps) {
  Totals t;
  for (const auto& r : reps) {
    ++t.sweeps;
    t.heavy += r.heavy ? 1 : 0;
    t.blocks += r.program.lft_blocks_written;
    t.lid_changes += r.lids.changed;
    t.all_up = t.all_up && r.up;
  }
  return t;
}

uint64_t full_reprogram_blocks(const Run& r) {
  uint64_t n = 0;
  for (const auto& node : r.fabric->nodes())
    if (node.is_switch()) n += node.sw->lft.size() / 64;
  return n;
}

}  // namespace

TEST_CASE("one link fails in each tier of a 3-level tree: re-routed incrementally, no LID moves") {
  for (const auto& [sw, port] : {std::pair<std::string, int>{"S1_00_00", 5}, std::pair<std::string, int>{"S2_00_00", 5}}) {
    INFO(sw << "[" << port << "]");
    Run r(load("ft3-r8.net"), ftree());
    REQUIRE(r.until_idle());
    const auto lids = r.lids();
    const uint64_t full = full_reprogram_blocks(r);
    auto& reps = r.record();
    REQUIRE(r.fabric->link_down(*r.fabric->find(sw), static_cast<uint8_t>(port)));
    REQUIRE(r.run_for(1s));
    Totals t = totals(reps);
    CHECK(t.sweeps >= 1);
    CHECK(t.heavy == 0);        // traps -> partial re-read only
    CHECK(t.all_up);
    CHECK(t.lid_changes == 0);
    CHECK(t.blocks > 0);
    CHECK(t.blocks < full / 2);  // only what changed (64-LID blocks: a big share of a small fabric)
    CHECK(r.lids() == lids);
    check_routed(r);
    CHECK(r.logged("trap 128"));
    // And back: balanced routes return.
    reps.clear();
    const auto before = sim::measure_routing(*r.fabric).max_link_load;
    REQUIRE(r.fabric->link_up(*r.fabric->find(sw), static_cast<uint8_t>(port)));
    REQUIRE(r.run_for(1s));
    t = totals(reps);
    CHECK(t.heavy == 0);
    CHECK(t.lid_changes == 0);
    check_routed(r);
    const auto after = sim::measure_routing(*r.fabric).max_link_load;
    CHECK(after <= before);
    Run fresh(load("ft3-r8.net"), ftree());
    REQUIRE(fresh.until_idle());
    CHECK(after == sim::measure_routing(*fresh.fabric).max_link_load);
  }
}

TEST_CASE("a core switch lost and back; a leaf lost (its CAs reported), nobody else disturbed") {
  Run r(load("ft3-r8.net"), ftree());
  REQUIRE(r.until_idle());
  const auto lids = r.lids();
  auto& reps = r.record();
  const auto core = *r.fabric->find("S3_0005");
  REQUIRE(r.fabric->remove_node(core));
  REQUIRE(r.run_for(1s));
  CHECK(totals(reps).heavy == 0);
  CHECK(r.logged("node gone: switch "));
  CHECK(r.logged("(S3_0005, "));
  check_routed(r);
  REQUIRE(r.fabric->restore_node(core));
  REQUIRE(r.run_for(1s));
  check_routed(r);
  CHECK(r.lids() == lids);  // it came back with LID 0 and got its old LID

  const auto leaf = *r.fabric->find("S1_02_01");
  std::vector<uint64_t> behind;
  for (const auto& p : r.fabric->node(leaf).ports)
    if (p.num && p.link_up() && !r.fabric->node(p.peer).is_switch()) behind.push_back(r.fabric->node(p.peer).guid.value());
  REQUIRE(behind.size() == 4);
  reps.clear();
  REQUIRE(r.fabric->remove_node(leaf));
  REQUIRE(r.run_for(1s));
  const Totals t = totals(reps);
  CHECK(t.heavy == 0);
  CHECK(t.lid_changes == 0);
  CHECK(r.sm->last_sweep().cas == 128 - 4);
  check_routed(r);  // the CAs behind it are no longer endpoints
  for (const auto& [guid, lid] : r.lids()) {
    bool found = false;
    for (const auto& [g0, l0] : lids) found |= (g0 == guid && l0 == lid);
    CHECK(found);
  }
}

TEST_CASE("a link flapping 100 times in 10 s: reported, coalesced, and the fabric ends routed") {
  sm::SmConfig cfg = ftree();
  Run r(load("ft3-r8.net"), cfg);
  REQUIRE(r.until_idle());
  const auto lids = r.lids();
  auto& reps = r.record();
  const auto sw = *r.fabric->find("S1_01_00");
  for (int i = 0; i < 100; ++i) {
    REQUIRE(r.fabric->link_down(sw, 6));
    REQUIRE(r.run_for(50ms));
    REQUIRE(r.fabric->link_up(sw, 6));
    REQUIRE(r.run_for(50ms));
  }
  REQUIRE(r.run_for(2s));
  CHECK(r.logged("is flapping"));
  const Totals t = totals(reps);
  CHECK(t.lid_changes == 0);
  CHECK(t.sweeps <= 200);  // at most one reaction per burst (each burst: down or up)
  check_routed(r);
  CHECK(r.lids() == lids);
}

TEST_CASE("10% MAD loss during a re-route still converges") {
  Run r(load("ft3-r8.net"), ftree());
  REQUIRE(r.until_idle());
  const auto lids = r.lids();
  r.fabric->set_drop_rate(0.10);
  REQUIRE(r.fabric->link_down(*r.fabric->find("S2_03_01"), 7));
  REQUIRE(r.run_for(5s));
  r.fabric->set_drop_rate(0.0);
  REQUIRE(r.run_for(12s));  // a light sweep passes too
  check_routed(r);
  CHECK(r.lids() == lids);
}

TEST_CASE("a light sweep finds a change whose trap was lost") {
  sm::SmConfig cfg = ftree();
  cfg.sweep_interval = 1s;
  Run r(load("ft3-r8.net"), cfg);
  REQUIRE(r.until_idle());
  // No SM LID on the switch yet would suppress traps; here: lose the traps on the way.
  const auto sw = *r.fabric->find("S1_03_02");
  REQUIRE(r.fabric->set_port_drop_rate(*r.fabric->find("H00000"), 1, 1.0));  // the SM's own cable
  REQUIRE(r.fabric->link_down(sw, 5));
  REQUIRE(r.fabric->set_port_drop_rate(*r.fabric->find("H00000"), 1, 0.0));
  auto& reps = r.record();
  REQUIRE(r.run_for(4s));
  CHECK_FALSE(reps.empty());
  // The switch that lost its uplink was reached through that very link: the light sweep finds
  // its neighbour's PortStateChange, or its silence, and the SM re-sweeps.
  CHECK(r.logged("light sweep"));
  check_routed(r);
}

TEST_CASE("a new CA joining gets a LID without disturbing anyone else's") {
  Run r(load("ft2-r8.net"), ftree());
  // H00005's cable is down when the SM starts (the switch has no LID yet: no trap either).
  const auto newcomer = *r.fabric->find("H00005");
  REQUIRE(r.fabric->link_down(newcomer, 1));
  REQUIRE(r.until_idle());
  const auto before = r.lids();
  CHECK(r.sm->last_sweep().cas == 31);
  auto& reps = r.record();
  REQUIRE(r.fabric->link_up(newcomer, 1));
  REQUIRE(r.run_for(1s));
  CHECK(totals(reps).heavy == 0);
  CHECK(r.sm->last_sweep().cas == 32);
  const auto after = r.lids();
  CHECK(after.size() == before.size() + 1);
  for (const auto& [guid, lid] : before) {
    bool same = false;
    for (const auto& [g, l] : after) same |= g == guid && l == lid;
    CHECK(same);
  }
  const uint16_t new_lid = r.fabric->node(newcomer).ports[1].lid;
  CHECK(new_lid != 0);
  for (const auto& [g, l] : before) CHECK(l != new_lid);
  check_routed(r);
}

// The LMC used to be taken by reconfigure (and logged as applied) while the LID manager kept
// the one it started with: a heavy sweep followed and nothing changed. It is fixed for the
// process's life now: another LMC asks for no sweep, and every port keeps its LIDs.
TEST_CASE("reconfigure: another LMC is not taken (a restart is), nothing is swept for it") {
  Run r(load("ft2-r8.net"));
  REQUIRE(r.until_idle());
  const auto lids = r.lids();
  sm::SmConfig next = r.sm->config();
  next.ports.lmc = 1;
  CHECK_FALSE(r.sm->reconfigure(next));
  CHECK(r.sm->config().ports.lmc == 0);
  CHECK_FALSE(r.sm->sweeping());
  REQUIRE(r.sweep_again());
  CHECK(r.lids() == lids);
  for (const auto& n : r.fabric->nodes())
    for (const auto& p : n.ports)
      if (!n.is_switch() && p.num != 0) CHECK(p.lmc == 0);
}
