#include <doctest/doctest.h>

#include <map>

#include "sm/partitions/membership.h"

namespace {

// One switch with two CAs (1 port, and 2 ports); the SM on CA A port 1.
fabric::Topology small_subnet() {
  fabric::TopologyBuilder b;
  auto add = [&](uint64_t guid, mad::NodeType type, uint8_t ports) {
    fabric::Node n;
    n.guid = mad::Guid(guid);
    n.type = type;
    n.num_ports = ports;
    std::vector<fabric::Port> ps(ports + 1u);
    for (uint8_t i = 0; i <= ports; ++i) {
      ps[i].num = mad::PortNum(i);
      ps[i].guid = type == mad::NodeType::sw ? mad::Guid(guid) : (i ? mad::Guid(guid + i) : mad::Guid());
    }
    REQUIRE(b.add_node(n, ps));
  };
  add(0x100, mad::NodeType::sw, 4);
  add(0x200, mad::NodeType::ca, 1);  // port GUID 0x201
  add(0x300, mad::NodeType::ca, 2);  // port GUIDs 0x301, 0x302
  REQUIRE(b.add_link(mad::Guid(0x100), mad::PortNum(1), mad::Guid(0x200), mad::PortNum(1)));
  REQUIRE(b.add_link(mad::Guid(0x100), mad::PortNum(2), mad::Guid(0x300), mad::PortNum(1)));
  REQUIRE(b.add_link(mad::Guid(0x100), mad::PortNum(3), mad::Guid(0x300), mad::PortNum(2)));
  b.set_sm(mad::Guid(0x200), mad::PortNum(1));
  return std::move(b).build();
}

std::map<uint64_t, std::vector<uint16_t>> by_guid(const std::vector<sm::PortPKeys>& v) {
  std::map<uint64_t, std::vector<uint16_t>> out;
  for (const auto& p : v) out[p.guid.value()] = p.pkeys;
  return out;
}

}  // namespace

TEST_CASE("the default set: every end port a full member of 0x7fff") {
  const auto t = small_subnet();
  const auto r = resolve_pkeys(t, sm::PartitionSet::defaults());
  REQUIRE(r.size() == 4);  // switch port 0, 0x201, 0x301, 0x302
  for (const auto& p : r) CHECK(p.pkeys == std::vector<uint16_t>{0xFFFF});
  // NodeId then port order: the switch (GUID 0x100) first.
  CHECK(r[0].guid == mad::Guid(0x100));
  CHECK(r[0].port == mad::PortNum(0));
  CHECK(r[3].guid == mad::Guid(0x302));
  CHECK(r[3].port == mad::PortNum(2));
}

TEST_CASE("members by GUID, class and SELF; full bit; last entry decides; file order") {
  const auto t = small_subnet();
  auto set = sm::parse_partitions(R"(
    Default=0x7fff : ALL_CAS=full, ALL_SWITCHES=limited ;
    b=0x0b : 0x301=full, 0x302 ;                 # limited by default
    a=0x0a : ALL=full, 0x302=limited ;           # the later entry wins for 0x302
    s=0x05 : SELF=both ;
    none=0x06 : 0x999=full ;                     # nobody here
    c=0x0c : 0x301=limited, ALL_CAS=full, 0x301=both ;  # a later class entry, then the GUID again
  )", "t");
  REQUIRE(set);
  set->allow_both_pkeys = true;
  const auto r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x100) == std::vector<uint16_t>{0x7FFF, 0x800A});
  CHECK(r.at(0x201) == std::vector<uint16_t>{0xFFFF, 0x800A, 0x8005, 0x0005, 0x800C});
  CHECK(r.at(0x301) == std::vector<uint16_t>{0xFFFF, 0x800B, 0x800A, 0x800C, 0x000C});
  CHECK(r.at(0x302) == std::vector<uint16_t>{0xFFFF, 0x000B, 0x000A, 0x800C});
}

TEST_CASE("a port in no partition gets an empty table; the result is deterministic") {
  const auto t = small_subnet();
  auto set = sm::parse_partitions("Default : 0x201=full ; a=1 : 0x301 ;", "t");
  REQUIRE(set);
  set->partitions[0].members.erase(set->partitions[0].members.begin(), set->partitions[0].members.begin() + 2);
  const auto r1 = resolve_pkeys(t, *set);
  const auto r = by_guid(r1);
  CHECK(r.at(0x201) == std::vector<uint16_t>{0xFFFF});
  CHECK(r.at(0x301) == std::vector<uint16_t>{0x0001});
  CHECK(r.at(0x302).empty());
  CHECK(r.at(0x100).empty());
  const auto r2 = resolve_pkeys(t, *set);
  REQUIRE(r1.size() == r2.size());
  for (size_t i = 0; i < r1.size(); ++i) CHECK(r1[i].pkeys == r2[i].pkeys);
}

TEST_CASE("the default partition as OpenSM makes it: every port limited, the SM's full, then the file") {
  const auto t = small_subnet();  // the SM on 0x201
  auto set = sm::parse_partitions("a=0x0a : ALL=full ;", "t");  // no word on Default
  REQUIRE(set);
  auto r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x201) == std::vector<uint16_t>{0xFFFF, 0x800A});
  CHECK(r.at(0x301) == std::vector<uint16_t>{0x7FFF, 0x800A});
  CHECK(r.at(0x100) == std::vector<uint16_t>{0x7FFF, 0x800A});
  // What the file says comes after: ALL=limited makes the SM's port limited too, as in OpenSM.
  set = sm::parse_partitions("Default=0x7fff : ALL=limited, 0x302=full ;", "t");
  REQUIRE(set);
  r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x201) == std::vector<uint16_t>{0x7FFF});
  CHECK(r.at(0x302) == std::vector<uint16_t>{0xFFFF});
  set = sm::parse_partitions("Default : 0x301=full ;", "t");
  REQUIRE(set);
  r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x201) == std::vector<uint16_t>{0xFFFF});
  CHECK(r.at(0x301) == std::vector<uint16_t>{0xFFFF});
  CHECK(r.at(0x302) == std::vector<uint16_t>{0x7FFF});
}

TEST_CASE("a P_Key over several statements: the last entry naming a port decides, whichever statement") {
  const auto t = small_subnet();
  auto set = sm::parse_partitions(R"(
    Default=0x7fff : ALL=full ;
    s=0x80, defmember=full : 0x301, 0x302 ;
    x=0x81 : ALL ;
    s=0x80 : 0x302 ;                    # limited now
    again=0x80, defmember=full : ALL_SWITCHES ;
  )", "t");
  REQUIRE(set);
  const auto r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x301) == std::vector<uint16_t>{0xFFFF, 0x8080, 0x0081});
  CHECK(r.at(0x302) == std::vector<uint16_t>{0xFFFF, 0x0080, 0x0081});
  CHECK(r.at(0x100) == std::vector<uint16_t>{0xFFFF, 0x8080, 0x0081});
  CHECK(r.at(0x201) == std::vector<uint16_t>{0xFFFF, 0x0081});
}

TEST_CASE("indx0: that partition's P_Key at index 0; the last indx0 decides; a later entry without it cancels") {
  const auto t = small_subnet();
  auto set = sm::parse_partitions(R"(
    Default=0x7fff : ALL=full ;
    a=0x0a, indx0 : ALL_CAS=limited ;
    b=0x0b : ALL=full ;
    b=0x0b, indx0 : 0x301=full ;        # later than a's: b first on 0x301
    c=0x0c, indx0 : 0x302=full ;
    c=0x0c : 0x302=limited ;            # c again without indx0: nothing of the file's at 0 on 0x302
  )", "t");
  REQUIRE(set);
  const auto r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x201) == std::vector<uint16_t>{0x000A, 0xFFFF, 0x800B});
  CHECK(r.at(0x301) == std::vector<uint16_t>{0x800B, 0xFFFF, 0x000A});
  CHECK(r.at(0x302) == std::vector<uint16_t>{0xFFFF, 0x000A, 0x800B, 0x000C});
  CHECK(r.at(0x100) == std::vector<uint16_t>{0xFFFF, 0x800B});
}

TEST_CASE("ALL_CAS, ALL_SWITCHES, ALL_ROUTERS by node type") {
  fabric::TopologyBuilder b;
  auto add = [&](uint64_t guid, mad::NodeType type) {
    fabric::Node n;
    n.guid = mad::Guid(guid);
    n.type = type;
    n.num_ports = type == mad::NodeType::sw ? 2 : 1;
    std::vector<fabric::Port> ps(n.num_ports + 1u);
    for (uint8_t i = 0; i <= n.num_ports; ++i) {
      ps[i].num = mad::PortNum(i);
      ps[i].guid = type == mad::NodeType::sw ? mad::Guid(guid) : (i ? mad::Guid(guid + i) : mad::Guid());
    }
    REQUIRE(b.add_node(n, ps));
  };
  add(0x100, mad::NodeType::sw);
  add(0x200, mad::NodeType::ca);      // port 0x201
  add(0x400, mad::NodeType::router);  // port 0x401
  REQUIRE(b.add_link(mad::Guid(0x100), mad::PortNum(1), mad::Guid(0x200), mad::PortNum(1)));
  REQUIRE(b.add_link(mad::Guid(0x100), mad::PortNum(2), mad::Guid(0x400), mad::PortNum(1)));
  b.set_sm(mad::Guid(0x200), mad::PortNum(1));
  const auto t = std::move(b).build();
  auto set = sm::parse_partitions("Default=0x7fff:ALL=full; c=1:ALL_CAS; s=2:ALL_SWITCHES; r=3:ALL_ROUTERS=full;", "t");
  REQUIRE(set);
  const auto r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x201) == std::vector<uint16_t>{0xFFFF, 0x0001});
  CHECK(r.at(0x100) == std::vector<uint16_t>{0xFFFF, 0x0002});
  CHECK(r.at(0x401) == std::vector<uint16_t>{0xFFFF, 0x8003});
}

TEST_CASE("=both is both entries only with allow_both_pkeys; else the full one, as OpenSM's default") {
  const auto t = small_subnet();
  auto set = sm::parse_partitions("Default=0x7fff : ALL=full ; s=0x05 : 0x301=both, 0x302=limited ;", "t");
  REQUIRE(set);
  CHECK_FALSE(set->allow_both_pkeys);
  auto r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x301) == std::vector<uint16_t>{0xFFFF, 0x8005});
  CHECK(r.at(0x302) == std::vector<uint16_t>{0xFFFF, 0x0005});
  set->allow_both_pkeys = true;
  r = by_guid(resolve_pkeys(t, *set));
  CHECK(r.at(0x301) == std::vector<uint16_t>{0xFFFF, 0x8005, 0x0005});
}
