// QoS tables on a fabric the real SM brought up in the simulator, checked on the simulated
// hardware: every CA port's and every cabled switch port's SL-to-VL table (a switch's: one per
// input port) and VL arbitration blocks as the options say, masked by OperationalVLs; a second
// sweep, and a restarted SM that knows nothing, write nothing; a changed option rewrites only
// the tables it changes; a rebooted CA gets its tables back; qos off leaves them alone.
#include <doctest/doctest.h>

#include <numeric>

#include "mad/sl2vl_table.h"
#include "mad/vl_arb_table.h"
#include "tests/sm/harness.h"

namespace {

// What a port with OperationalVLs VL0-3 must hold for `sl2vl` (16 VLs).
std::array<uint8_t, 8> sl2vl_bytes(std::array<uint8_t, 16> vls) {
  mad::Sl2VlTable t;
  for (size_t i = 0; i < 16; ++i) t.vl[i] = vls[i] == 15 ? 15 : static_cast<uint8_t>(vls[i] & 3);
  std::array<uint8_t, 64> out{};
  t.encode(std::span<uint8_t>(out.data(), 8));
  std::array<uint8_t, 8> b{};
  std::copy_n(out.begin(), 8, b.begin());
  return b;
}

// A block of `entries` (VL, weight) cut to the simulated ports' capacity of 8, VLs masked to 0-3.
std::array<uint8_t, 64> block_bytes(std::vector<mad::VlArbEntry> entries) {
  mad::VlArbTable t;
  for (size_t i = 0; i < 8 && i < entries.size(); ++i) t.entries[i] = {static_cast<uint8_t>(entries[i].vl & 3), entries[i].weight};
  std::array<uint8_t, 64> out{};
  t.encode(out);
  return out;
}

std::array<uint8_t, 64> held_block(const sim::SimPort& p, int block) {
  std::array<uint8_t, 64> out{};
  if (!p.vlarb.empty()) std::copy_n(p.vlarb.begin() + (block - 1) * 64, 64, out.begin());
  return out;
}

uint64_t qos_sets(const sim::SimFabric& f) {
  uint64_t n = 0;
  for (const sim::SimNode& node : f.nodes())
    for (const sim::SimPort& p : node.ports) n += p.qos_sets;
  return n;
}

const std::array<uint8_t, 16> kCaSl2vl{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7};  // OpenSM's default
const std::array<uint8_t, 16> kSweSl2vl{3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 15};

sm::SmConfig qos_config() {
  sm::SmConfig cfg;
  cfg.qos.enabled = true;
  cfg.qos.general.max_vls = 4;  // OperationalVLs VL0-3
  cfg.qos.general.high_limit = 5;
  cfg.qos.general.vlarb_low = "1:8,2:16,3:32";
  cfg.qos.swe.high_limit = 9;
  cfg.qos.swe.sl2vl = "3,2,1,0,3,2,1,0,3,2,1,0,3,2,1,15";
  return cfg;
}

// Every CA port and cabled switch port against what qos_config() asks for.
void check_fabric(const sim::SimFabric& f, const std::array<uint8_t, 16>& swe_sl2vl) {
  const auto low = block_bytes({{1, 8}, {2, 16}, {3, 32}});
  // OpenSM's default high table: VL0 weight 4, the other VLs weight 0 (masked to VL0-3).
  const auto high = block_bytes({{0, 4}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  size_t ca_ports = 0, switch_tables = 0;
  for (const sim::SimNode& n : f.nodes()) {
    for (const sim::SimPort& p : n.ports) {
      if (p.num == 0 || !p.link_up()) continue;
      INFO(n.name << " port " << int(p.num));
      CHECK(p.op_vls == 3);
      CHECK(held_block(p, 1) == low);
      CHECK(held_block(p, 3) == high);
      if (!n.is_switch()) {
        ++ca_ports;
        CHECK(p.sl2vl == sl2vl_bytes(kCaSl2vl));
        CHECK(p.vl_high_limit == 5);
        continue;
      }
      CHECK(p.vl_high_limit == 9);
      REQUIRE(p.sl2vl_by_in.size() == n.num_ports + 1u);
      for (const sim::SimPort& in : n.ports) {
        if (in.num != 0 && !in.link_up()) continue;
        CHECK_MESSAGE(p.sl2vl_by_in[in.num] == sl2vl_bytes(swe_sl2vl), "input port " << int(in.num));
        ++switch_tables;
      }
    }
  }
  CHECK(ca_ports > 0);
  CHECK(switch_tables > 0);
}

}  // namespace

TEST_CASE("qos: tables as the options say on every port; a second sweep and a restart write nothing") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run run(spec, qos_config());
  auto& reports = run.record();
  REQUIRE(run.until_idle());
  REQUIRE(run.sm->subnet_up());
  check_fabric(*run.fabric, kSweSl2vl);
  REQUIRE(reports.size() == 1);
  const sm::QosStats first = reports[0].qos;
  CHECK(first.failures == 0);
  CHECK(first.tables_read > 0);  // nothing known at start: read first
  CHECK(first.sl2vl_written > 0);
  CHECK(first.vlarb_written > 0);
  CHECK(run.verify().all_routed());

  const uint64_t sets = qos_sets(*run.fabric);
  REQUIRE(run.sweep_again());
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].qos.sl2vl_written == 0);
  CHECK(reports[1].qos.vlarb_written == 0);
  CHECK(reports[1].qos.tables_read == 0);  // known from the first sweep
  CHECK(qos_sets(*run.fabric) == sets);

  // A new SM process knows nothing: it reads every table and finds them right.
  run.start(qos_config());
  auto& again = run.record();
  REQUIRE(run.until_idle());
  REQUIRE(!again.empty());
  CHECK(again.back().qos.tables_read >= first.tables_read);
  CHECK(again.back().qos.sl2vl_written == 0);
  CHECK(again.back().qos.vlarb_written == 0);
  CHECK(qos_sets(*run.fabric) == sets);
}

TEST_CASE("qos: a changed option rewrites only the tables it changes; a rebooted CA gets its tables back") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run run(spec, qos_config());
  auto& reports = run.record();
  REQUIRE(run.until_idle());
  std::vector<uint64_t> ca_sets;
  for (const sim::SimNode& n : run.fabric->nodes())
    if (!n.is_switch()) ca_sets.push_back(n.ports[1].qos_sets);

  sm::SmConfig next = qos_config();
  next.qos.swe.sl2vl = "0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3";
  CHECK(run.sm->reconfigure(next));
  REQUIRE(run.until_idle());
  check_fabric(*run.fabric, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].qos.sl2vl_written > 0);
  CHECK(reports[1].qos.vlarb_written == 0);
  size_t i = 0;
  for (const sim::SimNode& n : run.fabric->nodes())
    if (!n.is_switch()) CHECK(n.ports[1].qos_sets == ca_sets[i++]);  // CA tables did not change

  // A CA that power-cycles comes back with the default tables; the SM writes its own again.
  sim::NodeIdx ca = 0;
  while (run.fabric->node(ca).is_switch()) ++ca;
  ca = static_cast<sim::NodeIdx>(ca + 3);
  REQUIRE(!run.fabric->node(ca).is_switch());
  REQUIRE(run.fabric->remove_node(ca));
  REQUIRE(run.run_for(std::chrono::seconds(1)));
  REQUIRE(run.fabric->restore_node(ca));
  CHECK(run.fabric->node(ca).ports[1].vlarb.empty());
  REQUIRE(run.run_for(std::chrono::seconds(3)));
  CHECK(run.fabric->node(ca).ports[1].state == mad::PortState::active);
  check_fabric(*run.fabric, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
}

TEST_CASE("qos: off, the SM leaves every table as it is") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run run(spec);
  auto& reports = run.record();
  REQUIRE(run.until_idle());
  REQUIRE(run.sm->subnet_up());
  CHECK(qos_sets(*run.fabric) == 0);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].qos == sm::QosStats{});
  for (const sim::SimNode& n : run.fabric->nodes())
    for (const sim::SimPort& p : n.ports) {
      CHECK(p.vlarb.empty());
      CHECK(p.sl2vl_by_in.empty());
    }
}
