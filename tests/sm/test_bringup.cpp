// The SM end to end on simulated fabrics: bring-up, second sweeps, determinism.
#include <doctest/doctest.h>

#include "tests/sm/harness.h"

using namespace smtest;

namespace {

void check_up(Run& r, const std::string& what) {
  INFO(what);
  REQUIRE(r.until_idle());
  CHECK(r.sm->subnet_up());
  CHECK(r.logged("SUBNET UP"));
  const auto v = r.verify();
  CHECK(v.all_routed());
  CHECK(v.pairs == v.routed);
  CHECK(v.ports_not_active == 0);
  CHECK(v.duplicate_lids == 0);
  for (const auto& s : v.samples) MESSAGE(s);
}

void check_quiet_second_sweep(Run& r) {
  const auto before = r.lids();
  REQUIRE(r.sweep_again());
  const auto& rep = r.sm->last_sweep();
  CHECK(rep.up);
  CHECK(rep.program.lft_blocks_written == 0);
  CHECK(rep.program.port_sets == 0);
  CHECK(rep.program.activations == 0);
  CHECK(rep.program.switch_info_sets == 0);
  CHECK(rep.lids.changed == 0);
  CHECK(r.lids() == before);
}

}  // namespace

TEST_CASE("every shared topology comes up, fully routed, and a second sweep touches nothing") {
  for (const char* name : {"ft2-r8.net", "ft3-r8.net", "ft3-r16.net", "ft3-r16-degraded5.net"}) {
    Run r(load(name));
    check_up(r, name);
    check_quiet_second_sweep(r);
  }
}

TEST_CASE("a port that ignores a PortInfo field is not sent it again by the next heavy sweep") {
  // ibsim keeps neither SubnetTimeOut nor M_KeyLeasePeriod: a full walk that forgot what the
  // Sets taught sent 32,639 PortInfo Sets on every resweep of a 32k-CA fabric.
  Run r(load("ft3-r8.net"), {}, sim::SimConfig{.keeps_subnet_timeout = false});
  check_up(r, "ft3-r8, SubnetTimeOut not kept");
  CHECK(r.sm->last_sweep().program.port_sets > 0);  // the first sweep had to find out
  check_quiet_second_sweep(r);
  REQUIRE(r.sweep_again());  // and the sweep after
  CHECK(r.sm->last_sweep().program.port_sets == 0);
}

TEST_CASE("generated fabrics come up: 2-level, 4-level, torus, mesh, random, ibsim's examples") {
  std::vector<std::pair<std::string, sim::FabricSpec>> fabrics;
  fabrics.emplace_back("two-level", *sim::make_two_level({.leaves = 6, .spines = 3, .radix = 12, .cas_per_leaf = 5}));
  fabrics.emplace_back("4-level r4", *sim::make_fat_tree(4, 4));
  fabrics.emplace_back("torus 4x4", *sim::make_torus({.dims = {4, 4}, .cas_per_switch = 2}));
  fabrics.emplace_back("mesh 3x3x3", *sim::make_torus({.dims = {3, 3, 3}, .mesh = true}));
  fabrics.emplace_back("random", *sim::make_random({.switches = 24, .ports = 10, .cas_per_switch = 3, .seed = 5}));
  for (const char* ex : {"net", "net.2sw2path", "net.2sw2path4hca"}) {
    auto s = sim::load_netfile(std::string("/usr/share/doc/ibsim-utils/net-examples/") + ex);
    if (s) fabrics.emplace_back(ex, std::move(*s));
  }
  for (auto& [name, spec] : fabrics) {
    Run r(std::move(spec));
    check_up(r, name);
    check_quiet_second_sweep(r);
  }
}

TEST_CASE("the same fabric gets the same LIDs and tables whatever the timing") {
  auto tables = [](const Run& r) {
    std::vector<std::vector<uint8_t>> t;
    for (const auto& n : r.fabric->nodes())
      if (n.is_switch()) t.push_back(n.sw->lft);
    return t;
  };
  sm::SmConfig narrow;
  narrow.mads.window = 1;
  Run a(load("ft3-r8.net"), narrow);
  REQUIRE(a.until_idle());
  sm::SmConfig wide;
  wide.mads.window = 1000;
  Run b(load("ft3-r8.net"), wide,
        sim::SimConfig{.hop_latency = std::chrono::microseconds(3), .sma_latency = std::chrono::microseconds(1)});
  REQUIRE(b.until_idle());
  CHECK(a.lids() == b.lids());
  CHECK(tables(a) == tables(b));
  // The SM may sit elsewhere: LIDs still do not depend on where discovery started.
  Run c(load("ft3-r8.net"), {}, {}, "S2_03_01");
  REQUIRE(c.until_idle());
  CHECK(c.verify().all_routed());
  CHECK(a.lids() == c.lids());
}

TEST_CASE("a restarted SM keeps every LID and rewrites nothing") {
  Run r(load("ft3-r8.net"));
  REQUIRE(r.until_idle());
  const auto before = r.lids();
  r.start({});  // a new process: no memory of what it wrote
  REQUIRE(r.until_idle());
  const auto& rep = r.sm->last_sweep();
  CHECK(rep.up);
  CHECK(rep.lids.kept == before.size());
  CHECK(rep.lids.changed == 0);
  CHECK(rep.program.lft_blocks_written == 0);
  CHECK(rep.program.lft_blocks_read > 0);  // it had to look
  CHECK(rep.program.port_sets == 0);
  CHECK(r.lids() == before);
}

TEST_CASE("a rebooted switch is noticed by its neighbours' traps, rewritten, and gets its LID back") {
  Run r(load("ft3-r8.net"));
  REQUIRE(r.until_idle());
  const auto before = r.lids();
  const auto sw = *r.fabric->find("S2_00_00");
  const size_t blocks = r.fabric->node(sw).sw->lft.size() / 64;
  auto& sweeps = r.record();
  REQUIRE(r.fabric->remove_node(sw));
  REQUIRE(r.fabric->restore_node(sw));
  REQUIRE(r.fabric->node(sw).sw->lft.empty());
  REQUIRE(r.run_for(std::chrono::seconds(2)));
  REQUIRE_FALSE(sweeps.empty());  // nobody asked: the traps did
  CHECK(r.logged("trap 128"));
  uint64_t written = 0, changed = 0, restored = 0;
  for (const auto& rep : sweeps) {
    CHECK(rep.up);
    written += rep.program.lft_blocks_written;
    changed += rep.lids.changed;
    restored += rep.lids.restored;
  }
  CHECK(changed == 1);   // its port 0 came back with LID 0 ...
  CHECK(restored == 1);  // ... and got its old one again
  CHECK(written == blocks);  // only its own table
  CHECK(r.lids() == before);
  const auto v = r.verify();
  CHECK(v.all_routed());
  CHECK(v.ports_not_active == 0);
}
