// Partitions on a fabric the real SM brought up in the simulator: every CA port's P_Key table
// (and the switch port facing it, with enforcement) as the partitions file says, checked on the
// simulated hardware; later sweeps write nothing; a changed file rewrites only the ports whose
// tables change; a rebooted CA gets its table back.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <map>

#include "tests/sm/harness.h"
#include "mad/sa_mad.h"
#include "mad/sa_records.h"
#include "cli/config.h"
#include "sm/sa/queries.h"

namespace {

std::vector<sim::NodeIdx> cas(const sim::SimFabric& f) {
  std::vector<sim::NodeIdx> out;
  for (sim::NodeIdx i = 0; i < f.nodes().size(); ++i)
    if (!f.node(i).is_switch()) out.push_back(i);
  return out;
}

// The table's non-zero prefix, and that nothing non-zero follows it.
std::vector<uint16_t> held(const sim::SimPort& p) {
  std::vector<uint16_t> out;
  size_t i = 0;
  for (; i < p.pkeys.size() && p.pkeys[i] != 0; ++i) out.push_back(p.pkeys[i]);
  for (; i < p.pkeys.size(); ++i) CHECK(p.pkeys[i] == 0);
  return out;
}

sm::PartitionSet parse(const std::string& text) {
  auto s = sm::parse_partitions(text, "test");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  return *s;
}

// Checks every CA port and the switch port facing it against `want` (by CA node index; CAs not
// listed: `others`), and that switch-to-switch ports were left alone.
void check_fabric(const sim::SimFabric& f, const std::map<sim::NodeIdx, std::vector<uint16_t>>& want,
                  const std::vector<uint16_t>& others) {
  for (sim::NodeIdx ca : cas(f)) {
    const sim::SimPort& p = f.node(ca).ports[1];
    const auto& w = want.count(ca) ? want.at(ca) : others;
    CHECK_MESSAGE(held(p) == w, f.node(ca).name);
    const sim::SimPort& sp = f.node(p.peer).ports[p.peer_port];
    CHECK_MESSAGE(held(sp) == w, f.node(p.peer).name << " port " << int(p.peer_port));
    CHECK(sp.pkey_enforce_in);
    CHECK(sp.pkey_enforce_out);
  }
  for (const sim::SimNode& n : f.nodes()) {
    if (!n.is_switch()) continue;
    CHECK(held(n.ports[0]) == std::vector<uint16_t>{0xFFFF});
    for (const sim::SimPort& p : n.ports)
      if (p.num != 0 && p.link_up() && f.node(p.peer).is_switch()) {
        CHECK(held(p) == std::vector<uint16_t>{0xFFFF});  // as the switch came up
        CHECK(!p.pkey_enforce_in);
      }
  }
}

std::vector<uint64_t> writes(const sim::SimFabric& f) {
  std::vector<uint64_t> out;
  for (const sim::SimNode& n : f.nodes())
    for (const sim::SimPort& p : n.ports) out.push_back(p.pkey_blocks_written);
  return out;
}

}  // namespace

TEST_CASE("partitions: tables and enforcement as the file says; a second sweep writes nothing") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run probe(spec);  // only to learn GUIDs
  const auto ca = cas(*probe.fabric);
  REQUIRE(ca.size() >= 4);
  auto guid = [&](size_t i) { return probe.fabric->node(ca[i]).ports[1].guid.value(); };
  sm::SmConfig cfg;
  cfg.partitions = parse(fmt::format(R"(
    Default=0x7fff, ipoib : ALL=full ;
    a=0x000a : 0x{:016x}=full, 0x{:016x} ;      # the second one limited
    b=0x000b, defmember=full : ALL_CAS ;
  )", guid(1), guid(2)));
  smtest::Run run(spec, cfg);
  auto& reports = run.record();
  REQUIRE(run.until_idle());
  REQUIRE(run.sm->subnet_up());
  check_fabric(*run.fabric, {{ca[1], {0xFFFF, 0x800A, 0x800B}}, {ca[2], {0xFFFF, 0x000A, 0x800B}}},
               {0xFFFF, 0x800B});
  // The limited member has the bit clear (checked above as 0x000A); the SM's own port too.
  REQUIRE(reports.size() == 1);
  const sm::PKeyStats first = reports[0].pkeys;
  CHECK(first.failures == 0);
  CHECK(first.blocks_read > 0);  // nothing known at start: read back
  CHECK(first.ports_written == 2 * ca.size());  // each CA port and the switch port facing it
  CHECK(first.enforcement_sets == ca.size());

  const auto before = writes(*run.fabric);
  REQUIRE(run.sweep_again());
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].heavy);
  CHECK(reports[1].pkeys == sm::PKeyStats{});  // nothing read, nothing written
  CHECK(writes(*run.fabric) == before);
}

TEST_CASE("partitions: a changed file rewrites only the ports whose tables change") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run run(spec);
  auto& reports = run.record();
  REQUIRE(run.until_idle());
  const auto ca = cas(*run.fabric);
  check_fabric(*run.fabric, {}, {0xFFFF});
  const auto before = writes(*run.fabric);

  sm::SmConfig next = run.sm->config();
  const sim::SimPort& target = run.fabric->node(ca[3]).ports[1];
  next.partitions = parse(fmt::format("Default=0x7fff : ALL=full ; c=0x0c : 0x{:016x}=full ;", target.guid.value()));
  CHECK(run.sm->reconfigure(next));
  REQUIRE(run.until_idle());
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].pkeys.ports_written == 2);
  CHECK(reports[1].pkeys.blocks_written == 2);
  CHECK(reports[1].pkeys.blocks_read == 0);
  CHECK(reports[1].program.lft_blocks_written == 0);
  check_fabric(*run.fabric, {{ca[3], {0xFFFF, 0x800C}}}, {0xFFFF});
  const auto after = writes(*run.fabric);
  size_t changed = 0;
  for (size_t i = 0; i < before.size(); ++i) changed += after[i] != before[i];
  CHECK(changed == 2);  // the CA port and the switch port facing it
  CHECK(target.pkey_blocks_written == 1);

  // The same set again: no sweep.
  CHECK(!run.sm->reconfigure(next));
}

TEST_CASE("partitions: a port left out of Default; a table larger than the switch enforces") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run probe(spec);
  const auto ca = cas(*probe.fabric);
  const uint64_t g = probe.fabric->node(ca[5]).ports[1].guid.value();
  // Ten partitions for one CA: more than the switch port holds (PartitionEnforcementCap 8).
  std::string text = "Default=0x7fff : ALL=limited, SELF=full ;\n";
  for (int i = 1; i <= 10; ++i) text += fmt::format("p{}={} : 0x{:016x}=full ;\n", i, i, g);
  sm::SmConfig cfg;
  cfg.partitions = parse(text);
  smtest::Run run(spec, cfg);
  REQUIRE(run.until_idle());
  REQUIRE(run.sm->subnet_up());
  const sim::SimFabric& f = *run.fabric;
  const sim::SimPort& big = f.node(ca[5]).ports[1];
  std::vector<uint16_t> want{0x7FFF};
  for (uint16_t i = 1; i <= 10; ++i) want.push_back(0x8000 | i);
  CHECK(held(big) == want);
  const sim::SimPort& sp = f.node(big.peer).ports[big.peer_port];
  CHECK(!sp.pkey_enforce_in);
  CHECK(!sp.pkey_enforce_out);
  CHECK(held(sp) == std::vector<uint16_t>{0xFFFF});
  CHECK(run.logged("enforces at most 8 P_Keys"));
  const sim::SimPort& sm_port = f.node(run.fabric->endpoint_node(run.ep)).ports[run.fabric->endpoint_port(run.ep)];
  CHECK(held(sm_port) == std::vector<uint16_t>{0xFFFF});
  CHECK(held(f.node(ca[1]).ports[1]) == std::vector<uint16_t>{0x7FFF});
}

TEST_CASE("partitions: a rebooted CA gets its table back") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run probe(spec);
  const auto ca = cas(*probe.fabric);
  const uint64_t g = probe.fabric->node(ca[6]).ports[1].guid.value();
  sm::SmConfig cfg;
  cfg.partitions = parse(fmt::format("x=0x0123 : 0x{:016x}=full ;", g));
  smtest::Run run(spec, cfg);
  REQUIRE(run.until_idle());
  // No Default statement: a limited member of it, as OpenSM makes it.
  CHECK(held(run.fabric->node(ca[6]).ports[1]) == std::vector<uint16_t>{0x7FFF, 0x8123});
  REQUIRE(run.fabric->remove_node(ca[6]));
  REQUIRE(run.run_for(std::chrono::seconds(1)));
  REQUIRE(run.fabric->restore_node(ca[6]));
  CHECK(held(run.fabric->node(ca[6]).ports[1]) == std::vector<uint16_t>{0xFFFF});  // reset
  REQUIRE(run.run_for(std::chrono::seconds(3)));
  CHECK(run.fabric->node(ca[6]).ports[1].state == mad::PortState::active);
  CHECK(held(run.fabric->node(ca[6]).ports[1]) == std::vector<uint16_t>{0x7FFF, 0x8123});
}

TEST_CASE("partitions: the SA answers P_KeyTableRecord from what was programmed") {
  sim::FabricSpec spec = *sim::make_fat_tree(2, 8);
  smtest::Run probe(spec);
  const auto ca = cas(*probe.fabric);
  const uint64_t g = probe.fabric->node(ca[2]).ports[1].guid.value();
  sm::SmConfig cfg;
  cfg.partitions = parse(fmt::format("x=0x0042 : 0x{:016x}=limited ;", g));
  smtest::Run run(spec, cfg);
  REQUIRE(run.until_idle());
  auto ix = sm::sa::Index::of(run.sm->subnet(), 18);
  const sim::SimPort& port = run.fabric->node(ca[2]).ports[1];
  auto ask = [&](uint8_t method, uint64_t mask, const mad::PKeyTableRecord& q) {
    mad::SaMad m;
    m.header.method = method;
    m.header.attr_id = mad::sa_attr::pkey_table_record;
    m.header.tid = 7;
    m.comp_mask = mask;
    q.encode(std::span(m.data).first(mad::PKeyTableRecord::kSize));
    return sm::sa::answer_query(&ix, {}, mad::encode_sa_mad(m), {}, 0xFE80000000000000ULL);
  };
  mad::PKeyTableRecord q;
  q.lid = mad::Lid(port.lid);
  // GetTable by LID: both blocks of the CA port's 64-entry table, as the port holds them.
  auto a = ask(mad::sa_method::get_table, 1, q);
  REQUIRE(a.respond);
  CHECK(a.response.header.status == 0);
  const size_t stride = size_t{a.response.attr_offset} * 8;
  REQUIRE(a.payload.size() == 2 * stride);
  for (uint16_t b = 0; b < 2; ++b) {
    auto r = mad::PKeyTableRecord::decode(std::span(a.payload).subspan(b * stride, mad::PKeyTableRecord::kSize));
    REQUIRE(r);
    CHECK(r->lid == q.lid);
    CHECK(r->block == b);
    CHECK(r->port == mad::PortNum(1));
    for (size_t i = 0; i < 32; ++i) CHECK(r->table.pkeys[i] == port.pkeys[b * 32 + i]);
  }
  // Get of block 0: 0x7FFF (no Default statement: limited, as OpenSM), then the limited 0x0042.
  q.block = 0;
  a = ask(mad::sa_method::get, 1 | 2, q);
  CHECK(a.response.header.status == 0);
  auto r = mad::PKeyTableRecord::decode(std::span(a.response.data).first(mad::PKeyTableRecord::kSize));
  REQUIRE(r);
  CHECK(r->table.pkeys[0] == 0x7FFF);
  CHECK(r->table.pkeys[1] == 0x0042);
  // A switch's port facing that CA: at the switch's LID, with its port number.
  const sim::SimNode& sw = run.fabric->node(port.peer);
  q.lid = mad::Lid(sw.ports[0].lid);
  q.port = mad::PortNum(port.peer_port);
  a = ask(mad::sa_method::get, 1 | 2 | 4, q);
  CHECK(a.response.header.status == 0);
  r = mad::PKeyTableRecord::decode(std::span(a.response.data).first(mad::PKeyTableRecord::kSize));
  REQUIRE(r);
  CHECK(r->table.pkeys[1] == 0x0042);
  // No such block: no records.
  q.block = 5;
  a = ask(mad::sa_method::get, 1 | 2 | 4, q);
  CHECK(a.response.header.status == mad::sa_status::no_records);
}
