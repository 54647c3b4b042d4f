// Route repair in the SM's incremental sweeps (issue 8): a failed link is answered by repairing
// the previous routes (only the broken ones change, so few blocks are written), and its return
// by a full route that restores exactly the bring-up's tables. Compared against the same SM
// with repair off, which routes every sweep in full.
#include <doctest/doctest.h>

#include "sim/metrics.h"
#include "tests/sm/check_routed.h"
#include "tests/sm/harness.h"

using namespace smtest;
using namespace std::chrono_literals;

namespace {

// What the switches hold, per switch in fabric order: LIDs 0..LinearFDBTop.
using Lfts = std::vector<std::vector<uint8_t>>;

Lfts lfts(const sim::SimFabric& f) {
  Lfts out;
  for (const auto& n : f.nodes()) {
    if (!n.is_switch()) continue;
    const size_t len = std::min<size_t>(n.sw->lft.size(), static_cast<size_t>(n.sw->lft_top) + 1);
    out.emplace_back(n.sw->lft.begin(), n.sw->lft.begin() + static_cast<ptrdiff_t>(len));
  }
  return out;
}

size_t entries_changed(const Lfts& a, const Lfts& b) {
  REQUIRE(a.size() == b.size());
  size_t n = 0;
  for (size_t s = 0; s < a.size(); ++s)
    for (size_t l = 1; l < std::max(a[s].size(), b[s].size()); ++l)
      n += (l < a[s].size() ? a[s][l] : 0xFF) != (l < b[s].size() ? b[s][l] : 0xFF);
  return n;
}

struct Reaction {
  uint64_t sweeps = 0, heavy = 0, repaired = 0, blocks = 0, entries = 0, lid_changes = 0;
  bool all_up = true;
};
Reaction sum(const std::vector<sm::SweepReport>& reps) {
  Reaction t;
  for (const auto& r : reps) {
    ++t.sweeps;
    t.heavy += r.heavy ? 1 : 0;
    t.repaired += r.repaired ? 1 : 0;
    t.blocks += r.program.lft_blocks_written;
    t.entries += r.repaired_entries;
    t.lid_changes += r.lids.changed;
    t.all_up = t.all_up && r.up;
  }
  return t;
}

sm::SmConfig config(const std::string& engine, bool repair) {
  sm::SmConfig c;
  c.routing_engine = engine;
  c.repair_routes = repair;
  return c;
}

// ft3-r16 (1,344 LIDs, 22 LFT blocks a switch): a leaf uplink, and an aggregation uplink.
struct Cut {
  const char* sw;
  uint8_t port;
};
constexpr Cut kCuts[] = {{"S1_03_04", 9}, {"S2_05_01", 12}};

}  // namespace

TEST_CASE("a failed link is repaired, not re-routed in full; its return restores the bring-up's tables") {
  for (const std::string engine : {"ftree,updn", "updn", "minhop"}) {
    for (const Cut& cut : kCuts) {
      INFO(engine << ": " << std::string(cut.sw) << "[" << int(cut.port) << "]");
      const bool updown = std::ranges::all_of(*routing::parse_chain(engine),
          [](const std::string& n) { return (*routing::make_engine(n))->deadlock_free(); });
      Run r(load("ft3-r16.net"), config(engine, true));
      Run full(load("ft3-r16.net"), config(engine, false));
      REQUIRE(r.until_idle());
      REQUIRE(full.until_idle());
      const auto lids = r.lids();
      const Lfts original = lfts(*r.fabric);
      CHECK(lfts(*full.fabric) == original);  // the same fabric, the same tables

      auto& reps = r.record();
      auto& full_reps = full.record();
      REQUIRE(r.fabric->link_down(*r.fabric->find(cut.sw), cut.port));
      REQUIRE(full.fabric->link_down(*full.fabric->find(cut.sw), cut.port));
      REQUIRE(r.run_for(1s));
      REQUIRE(full.run_for(1s));
      const Reaction down = sum(reps);
      const Reaction by_full = sum(full_reps);
      CHECK(down.sweeps >= 1);
      CHECK(down.heavy == 0);
      CHECK(down.repaired == down.sweeps);  // every reaction repaired (a second one: nothing left)
      CHECK(r.logged("destination(s) re-routed"));
      CHECK(down.all_up);
      CHECK(down.lid_changes == 0);
      CHECK(r.lids() == lids);
      check_routed(r, updown);
      const Lfts repaired = lfts(*r.fabric);
      // The report counts exactly what the switches now hold differently.
      CHECK(down.entries > 0);
      CHECK(entries_changed(original, repaired) == down.entries);
      CHECK(by_full.repaired == 0);
      CHECK(by_full.heavy == 0);
      const size_t full_entries = entries_changed(original, lfts(*full.fabric));
      MESSAGE(engine << " " << std::string(cut.sw) << ": repair changed " << down.entries << " entries in " << down.blocks
                     << " blocks, a full re-route " << full_entries << " in " << by_full.blocks);
      CHECK(down.entries < full_entries);
      CHECK(down.blocks < by_full.blocks);

      // The cable returns: nothing to repair (a link was added), a full route, and exactly
      // the tables of the bring-up again.
      reps.clear();
      REQUIRE(r.fabric->link_up(*r.fabric->find(cut.sw), cut.port));
      REQUIRE(r.run_for(1s));
      const Reaction back = sum(reps);
      CHECK(back.sweeps >= 1);
      CHECK(back.heavy == 0);
      CHECK(back.repaired < back.sweeps);
      CHECK(back.all_up);
      CHECK(back.lid_changes == 0);
      CHECK(r.lids() == lids);
      check_routed(r, updown);
      CHECK(lfts(*r.fabric) == original);
    }
  }
}

TEST_CASE("a heavy sweep after a repair re-balances: the tables of an SM that never repaired") {
  Run r(load("ft3-r16.net"), config("ftree,updn", true));
  Run full(load("ft3-r16.net"), config("ftree,updn", false));
  REQUIRE(r.until_idle());
  REQUIRE(full.until_idle());
  for (Run* run : {&r, &full}) {
    REQUIRE(run->fabric->link_down(*run->fabric->find("S1_03_04"), 9));
    REQUIRE(run->run_for(1s));
  }
  CHECK(r.sm->last_sweep().repaired);
  const Lfts repaired = lfts(*r.fabric);
  CHECK(repaired != lfts(*full.fabric));  // else this test shows nothing
  auto& reps = r.record();
  REQUIRE(r.sweep_again());
  REQUIRE(reps.size() == 1);
  CHECK(reps[0].heavy);
  CHECK_FALSE(reps[0].repaired);
  CHECK(lfts(*r.fabric) == lfts(*full.fabric));
  check_routed(r, true);
}

TEST_CASE("a lost leaf switch (and its CAs) is repaired around, no LID moves") {
  Run r(load("ft3-r16.net"), config("ftree,updn", true));
  REQUIRE(r.until_idle());
  const auto lids = r.lids();
  auto& reps = r.record();
  REQUIRE(r.fabric->remove_node(*r.fabric->find("S1_02_01")));
  REQUIRE(r.run_for(1s));
  const Reaction t = sum(reps);
  CHECK(t.heavy == 0);
  CHECK(t.repaired == t.sweeps);
  CHECK(t.lid_changes == 0);
  check_routed(r, true);
  for (const auto& [guid, lid] : r.lids()) {
    bool found = false;
    for (const auto& [g0, l0] : lids) found |= (g0 == guid && l0 == lid);
    CHECK(found);
  }
}
