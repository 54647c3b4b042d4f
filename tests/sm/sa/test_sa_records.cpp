// SwitchInfoRecord, LinkRecord, LFTRecord and GUIDInfoRecord from the SA index, checked against
// what the simulated hardware holds after the real SM configured it.
#include <doctest/doctest.h>

#include <set>

#include "mad/sa_records.h"
#include "tests/sm/sa/sa_helpers.h"

namespace {

using namespace satest;
namespace m = mad::sa_method;
namespace at = mad::sa_attr;

uint16_t sim_lid(const sim::SimFabric& f, sim::NodeIdx n, uint8_t port) {
  const sim::SimNode& node = f.node(n);
  return node.ports[node.is_switch() ? 0 : port].lid;
}

}  // namespace

TEST_CASE("SA: SwitchInfoRecord per switch LID, as the switch holds its SwitchInfo") {
  Fixture f;
  const sim::SimFabric& fab = *f.run.fabric;
  size_t switches = 0;
  for (sim::NodeIdx i = 0; i < fab.nodes().size(); ++i) {
    const sim::SimNode& n = fab.node(i);
    if (!n.is_switch()) continue;
    ++switches;
    mad::SwitchInfoRecord q;
    q.lid = mad::Lid(sim_lid(fab, i, 0));
    auto a = ask(f.index.get(), {}, request(m::get, at::switch_info_record, 1, bytes(q)));
    REQUIRE(a.response.header.status == 0);
    auto r = records<mad::SwitchInfoRecord>(a);
    REQUIRE(r.size() == 1);
    CHECK(r[0].lid == q.lid);
    CHECK(r[0].info.linear_fdb_top.value() == n.sw->lft_top);
    CHECK(r[0].info.linear_fdb_cap == n.sw->lft_cap);
    CHECK(r[0].info.life_time_value == n.sw->life_time);
    CHECK(a.response.attr_offset == 3);
  }
  // Every switch by GetTable; by LinearFDBCap (component 2) all of them, by a wrong one none.
  auto a = ask(f.index.get(), {}, request(m::get_table, at::switch_info_record, 0));
  CHECK(records<mad::SwitchInfoRecord>(a).size() == switches);
  mad::SwitchInfoRecord cap;
  cap.info.linear_fdb_cap = f.run.fabric->config().lft_cap;
  a = ask(f.index.get(), {}, request(m::get_table, at::switch_info_record, 1u << 2, bytes(cap)));
  CHECK(records<mad::SwitchInfoRecord>(a).size() == switches);
  cap.info.linear_fdb_cap = 7;
  a = ask(f.index.get(), {}, request(m::get_table, at::switch_info_record, 1u << 2, bytes(cap)));
  CHECK(a.payload.empty());
  // A CA's LID has no SwitchInfoRecord.
  mad::SwitchInfoRecord ca;
  ca.lid = f.run.topo().port(f.run.topo().cas()[0], mad::PortNum(1)).lid;
  a = ask(f.index.get(), {}, request(m::get, at::switch_info_record, 1, bytes(ca)));
  CHECK(a.response.header.status == mad::sa_status::no_records);
}

TEST_CASE("SA: LinkRecord for every cable in both directions, by FromLID, FromPort, ToLID") {
  Fixture f;
  const sim::SimFabric& fab = *f.run.fabric;
  // What the fabric's cables say, as (from_lid, from_port, to_port, to_lid).
  std::set<std::tuple<uint16_t, uint8_t, uint8_t, uint16_t>> want;
  for (sim::NodeIdx i = 0; i < fab.nodes().size(); ++i) {
    const sim::SimNode& n = fab.node(i);
    for (const sim::SimPort& p : n.ports)
      if (p.num != 0 && p.link_up())
        want.emplace(sim_lid(fab, i, p.num), p.num, p.peer_port, sim_lid(fab, p.peer, p.peer_port));
  }
  auto a = ask(f.index.get(), {}, request(m::get_table, at::link_record, 0));
  auto all = records<mad::LinkRecord>(a);
  std::set<std::tuple<uint16_t, uint8_t, uint8_t, uint16_t>> got;
  for (const auto& r : all) got.emplace(r.from_lid.value(), r.from_port.value(), r.to_port.value(), r.to_lid.value());
  CHECK(all.size() == want.size());
  CHECK(got == want);

  // From one switch: a record per cabled port; from one of its ports: exactly that cable.
  const auto& t = f.run.topo();
  const fabric::NodeId sw = t.switches()[0];
  mad::LinkRecord q;
  q.from_lid = t.port(sw, mad::PortNum(0)).lid;
  size_t cabled = 0;
  for (const fabric::Port& p : t.ports(sw)) cabled += p.num.value() != 0 && p.linked();
  a = ask(f.index.get(), {}, request(m::get_table, at::link_record, 1, bytes(q)));
  CHECK(records<mad::LinkRecord>(a).size() == cabled);
  q.from_port = mad::PortNum(1);
  a = ask(f.index.get(), {}, request(m::get, at::link_record, 0b11, bytes(q)));
  REQUIRE(a.response.header.status == 0);
  auto one = records<mad::LinkRecord>(a)[0];
  const fabric::Port& p1 = t.port(sw, mad::PortNum(1));
  CHECK(one.to_port == p1.peer_port);
  CHECK(one.to_lid == (t.node(p1.peer).is_switch() ? t.port(p1.peer, mad::PortNum(0)).lid : t.port(p1.peer, p1.peer_port).lid));
  // To one CA (ToLID, component 3): the one cable that reaches it.
  mad::LinkRecord to;
  to.to_lid = t.port(t.cas()[2], mad::PortNum(1)).lid;
  a = ask(f.index.get(), {}, request(m::get, at::link_record, 1u << 3, bytes(to)));
  REQUIRE(a.response.header.status == 0);
  CHECK(records<mad::LinkRecord>(a)[0].from_lid != to.to_lid);
}

TEST_CASE("SA: LFTRecord blocks equal the switches' programmed LFTs") {
  Fixture f;
  const sim::SimFabric& fab = *f.run.fabric;
  const uint16_t blocks = f.index->lft_blocks();
  REQUIRE(blocks >= 1);
  size_t switches = 0;
  for (sim::NodeIdx i = 0; i < fab.nodes().size(); ++i) {
    const sim::SimNode& n = fab.node(i);
    if (!n.is_switch()) continue;
    ++switches;
    mad::LftRecord q;
    q.lid = mad::Lid(sim_lid(fab, i, 0));
    auto a = ask(f.index.get(), {}, request(m::get_table, at::lft_record, 1, bytes(q)));
    auto rs = records<mad::LftRecord>(a);
    REQUIRE(rs.size() == blocks);
    for (const auto& r : rs) {
      CHECK(r.lid == q.lid);
      for (size_t e = 0; e < 64; ++e) {
        const size_t lid = size_t{r.block} * 64 + e;
        if (lid == 0 || lid > n.sw->lft_top) continue;  // past the top the switch does not forward
        REQUIRE(lid < n.sw->lft.size());
        CHECK(r.table.ports[e].value() == n.sw->lft[lid]);
      }
    }
  }
  // One block by LID and BlockNum; a block past the table finds nothing; block 0 of every switch.
  mad::LftRecord q;
  q.lid = f.index->lft_switches()[0].lid;
  q.block = 0;
  auto a = ask(f.index.get(), {}, request(m::get, at::lft_record, 0b11, bytes(q)));
  CHECK(a.response.header.status == 0);
  q.block = blocks;
  a = ask(f.index.get(), {}, request(m::get, at::lft_record, 0b11, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::no_records);
  q.block = 0;
  a = ask(f.index.get(), {}, request(m::get_table, at::lft_record, 0b10, bytes(q)));
  CHECK(records<mad::LftRecord>(a).size() == switches);
  a = ask(f.index.get(), {}, request(m::get_table, at::lft_record, 1ull << 4, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::req_invalid);
}

TEST_CASE("SA: GUIDInfoRecord block 0 of every end port holds its port GUID") {
  Fixture f;
  const auto& t = f.run.topo();
  auto a = ask(f.index.get(), {}, request(m::get_table, at::guid_info_record, 0));
  CHECK(records<mad::GuidInfoRecord>(a).size() == f.index->endports().size());
  for (fabric::NodeId ca : t.cas()) {
    const fabric::Port& p = t.port(ca, mad::PortNum(1));
    mad::GuidInfoRecord q;
    q.lid = p.lid;
    a = ask(f.index.get(), {}, request(m::get, at::guid_info_record, 1, bytes(q)));
    REQUIRE(a.response.header.status == 0);
    auto r = records<mad::GuidInfoRecord>(a)[0];
    CHECK(r.lid == p.lid);
    CHECK(r.info.guids[0] == p.guid);
    CHECK(r.info.guids[1].value() == 0);
  }
  // Block 1 (no alias GUIDs) finds nothing; Set is refused (the index is read-only).
  mad::GuidInfoRecord q;
  q.lid = t.port(t.cas()[0], mad::PortNum(1)).lid;
  q.block = 1;
  a = ask(f.index.get(), {}, request(m::get, at::guid_info_record, 0b11, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::no_records);
  a = ask(f.index.get(), {}, request(m::set, at::guid_info_record, 1, bytes(q)));
  CHECK(a.response.header.status == mad::status::unsupported_method_attr);
}
