#include <doctest/doctest.h>

#include "sm/lid_manager.h"

using namespace sm;

namespace {

// `n` CAs (GUIDs 0x1000 + 2i, port GUID + 1), 200 to a switch (GUIDs 0xF00000 + s, above
// every CA as in the shared fabrics), current LIDs of the first CAs given.
Topology star(size_t n, const std::vector<uint16_t>& current = {}, uint16_t switch_lid = 0) {
  TopologyBuilder b;
  const size_t per = 200, switches = (n + per - 1) / per;
  for (size_t s = 0; s < switches; ++s) {
    Node sw;
    sw.guid = Guid(0xF00000 + s);
    sw.type = NodeType::sw;
    sw.num_ports = static_cast<uint8_t>(per);
    std::vector<Port> sp(per + 1);
    sp[0].guid = sw.guid;
    sp[0].lid = Lid(switch_lid);
    b.add_node(sw, sp);
  }
  for (size_t i = 0; i < n; ++i) {
    Node ca;
    ca.guid = Guid(0x1000 + 2 * i);
    ca.type = NodeType::ca;
    ca.num_ports = 1;
    std::vector<Port> cp(2);
    cp[1].guid = Guid(0x1000 + 2 * i + 1);
    if (i < current.size()) cp[1].lid = Lid(current[i]);
    b.add_node(ca, cp);
    b.add_link(ca.guid, PortNum(1), Guid(0xF00000 + i / per), PortNum(static_cast<uint8_t>(i % per + 1)));
  }
  b.set_sm(Guid(0x1000), PortNum(1));
  return std::move(b).build();
}

uint16_t lid_of(const LidAssignment& a, const Topology& t, uint64_t port_guid) {
  for (const auto& l : a.lids)
    if (t.port(l.node, l.port).guid == Guid(port_guid)) return l.lid.value();
  return 0;
}

}  // namespace

TEST_CASE("fresh LIDs go in port-GUID order from 1") {
  Topology t = star(3);
  LidManager m;
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(a->fresh == 4);
  CHECK(lid_of(*a, t, 0xF00000) == 4);  // the switch: the highest GUID
  CHECK(lid_of(*a, t, 0x1001) == 1);
  CHECK(lid_of(*a, t, 0x1003) == 2);
  CHECK(lid_of(*a, t, 0x1005) == 3);
  CHECK(m.map().at(Guid(0x1003)).lid == Lid(2));
}

TEST_CASE("valid LIDs are kept; a duplicate goes to the lower GUID, the other is reassigned") {
  Topology t = star(3, {7, 9, 7}, 0);
  LidManager m;
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(lid_of(*a, t, 0x1001) == 7);
  CHECK(lid_of(*a, t, 0x1003) == 9);
  CHECK(lid_of(*a, t, 0x1005) == 1);  // lost the tie, lowest free
  CHECK(a->kept == 2);
  CHECK(a->changed == 2);             // the loser and the switch (had 0)
  CHECK_FALSE(a->notes.empty());
}

TEST_CASE("the remembered owner of a LID wins a duplicate") {
  Topology t = star(2, {5, 5});
  LidManager m(0, {{Guid(0x1003), LidEntry{Lid(5), 0}}});
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(lid_of(*a, t, 0x1003) == 5);
  CHECK(lid_of(*a, t, 0x1001) != 5);
}

TEST_CASE("ports without a LID get their remembered one; absent GUIDs keep theirs reserved") {
  Topology t = star(2);
  LidManager m(0, {{Guid(0x1003), LidEntry{Lid(40), 0}}, {Guid(0xDEAD), LidEntry{Lid(1), 0}}});
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(lid_of(*a, t, 0x1003) == 40);
  CHECK(a->restored == 1);
  CHECK(lid_of(*a, t, 0x1001) == 2);  // 1 is kept for the absent 0xDEAD
  CHECK(m.map().at(Guid(0xDEAD)).lid == Lid(1));
}

TEST_CASE("a port using a LID remembered for an absent port keeps it") {
  Topology t = star(1, {1});
  LidManager m(0, {{Guid(0xDEAD), LidEntry{Lid(1), 0}}});
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(lid_of(*a, t, 0x1001) == 1);
  CHECK(a->kept == 1);
}

TEST_CASE("LMC: CA ports get aligned blocks of 2^LMC, switches one LID") {
  Topology t = star(2, {6});  // 6 is not aligned to 4
  LidManager m(2);
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(lid_of(*a, t, 0x1001) == 4);
  CHECK(lid_of(*a, t, 0x1003) == 8);
  CHECK(lid_of(*a, t, 0xF00000) == 12);
  for (const auto& l : a->lids) {
    const bool sw = t.node(l.node).is_switch();
    CHECK(l.lmc == (sw ? 0 : 2));
    if (!sw) CHECK(l.lid.value() % 4 == 0);
  }
  CHECK(t.with_lids(a->lids).max_lid() == Lid(12));
}

TEST_CASE("same topology, any build order: same LIDs") {
  Topology t1 = star(20);
  LidManager m1, m2;
  auto a = m1.assign(t1);
  auto b = m2.assign(star(20));
  REQUIRE(a);
  REQUIRE(b);
  CHECK(m1.map().size() == m2.map().size());
  for (const auto& [g, e] : m1.map()) CHECK(m2.map().at(g).lid == e.lid);
}

TEST_CASE("the LID space has 49,151 unicast LIDs and says so when it runs out") {
  LidManager m(7);  // 128 LIDs per CA port
  Topology t = star(400);
  LidAssignment partial;
  auto a = m.assign(t, &partial);
  REQUIRE_FALSE(a);
  CHECK(a.error().code == mad::Errc::exhausted);
  CHECK(a.error().message.find("LID space exhausted") != std::string::npos);
  // Two switches take LIDs 1 and 2; 383 aligned blocks of 128 fit from 128 to 0xBFFF.
  CHECK(partial.unassigned == 400 - 383);
  for (const auto& l : partial.lids) CHECK(l.lid.value() + (1u << l.lmc) - 1 <= 0xBFFF);
}

TEST_CASE("the map is never changed in place: an assignment that changes nothing shares it") {
  Topology t = star(2);
  LidManager m;
  auto a = m.assign(t);
  REQUIRE(a);
  const auto first = m.shared_map();
  const LidMap copy = *first;
  // The same ports holding the LIDs they got: nothing changes, nothing is copied.
  Topology held = t.with_lids(a->lids);
  REQUIRE(m.assign(held));
  CHECK(m.shared_map() == first);
  // One port more: a new map, and the one published before is as it was.
  Topology more = star(3);
  REQUIRE(m.assign(more));
  CHECK(m.shared_map() != first);
  CHECK(*first == copy);
  CHECK(m.map().size() == copy.size() + 1);
}

TEST_CASE("reserved LIDs of absent ports are reclaimed only when nothing else is left") {
  LidMap mem;
  for (uint16_t l = 1; l <= 0xBFFF - 2; ++l) mem.emplace(Guid(0x900000 + l), LidEntry{Lid(l), 0});
  LidManager m(0, std::move(mem));
  Topology t = star(5);  // 6 ports, 2 free LIDs
  auto a = m.assign(t);
  REQUIRE(a);
  CHECK(a->fresh == 6);
  bool reclaimed = false;
  for (const auto& n : a->notes) reclaimed |= n.find("reclaimed") != std::string::npos;
  CHECK(reclaimed);
}
