#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "sm/partitions/partitions.h"

using sm::Membership;
using sm::PartitionMember;
using Who = sm::PartitionMember::Who;

namespace {

sm::PartitionSet parse_ok(std::string_view text) {
  auto r = sm::parse_partitions(text, "p.conf");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

std::string parse_err(std::string_view text) {
  auto r = sm::parse_partitions(text, "p.conf");
  REQUIRE_MESSAGE(!r, "parsed, but should not have");
  CHECK(r.error().code == mad::Errc::parse);
  return r.error().message;
}

}  // namespace

TEST_CASE("an empty file is the default partition alone") {
  CHECK(parse_ok("") == sm::PartitionSet::defaults());
  CHECK(parse_ok("# nothing here\n\n   \n;\n") == sm::PartitionSet::defaults());
  const auto d = sm::PartitionSet::defaults();
  REQUIRE(d.partitions.size() == 1);
  CHECK(d.partitions[0].pkey == 0x7FFF);
  CHECK(d.partitions[0].ipoib);
  CHECK(d.partitions[0].members == std::vector<PartitionMember>{{Who::all, {}, Membership::full}});
}

TEST_CASE("the documented syntax: flags, members, memberships, statements over several lines") {
  const auto s = parse_ok(R"(# comment
Default=0x7fff, ipoib, mtu=5, rate=7 : ALL=full ;
storage=0x0002, ipoib, defmember=full, sl=1, scope=5, qkey=0x1234 :
    0x0002c90300001234=limited,   # a comment inside a statement
    0x0002C90300001235,
    SELF=both ;
mgmt=3 : ALL_SWITCHES, ALL_CAS=full; empty=0x10:;
)");
  REQUIRE(s.partitions.size() == 4);
  const auto& d = s.partitions[0];
  CHECK(d.name == "Default");
  CHECK(d.mtu == 5);
  CHECK(d.rate == 7);
  const auto& st = s.partitions[1];
  CHECK(st.name == "storage");
  CHECK(st.pkey == 2);
  CHECK(st.ipoib);
  CHECK(st.sl == 1);
  CHECK(st.scope == 5);
  CHECK(st.qkey == 0x1234);
  CHECK(st.mtu == 4);  // not given: the default
  CHECK(st.members == std::vector<PartitionMember>{
                          {Who::guid, mad::Guid(0x0002c90300001234ULL), Membership::limited},
                          {Who::guid, mad::Guid(0x0002c90300001235ULL), Membership::full},  // defmember
                          {Who::self, {}, Membership::both}});
  const auto& m = s.partitions[2];
  CHECK(m.pkey == 3);
  CHECK(!m.ipoib);
  // Without defmember a member is limited, as in OpenSM.
  CHECK(m.members == std::vector<PartitionMember>{{Who::all_switches, {}, Membership::limited},
                                                  {Who::all_cas, {}, Membership::full}});
  CHECK(s.partitions[3].members.empty());
}

TEST_CASE("Default comes first and is added when the file does not name it") {
  auto s = parse_ok("a=0x1 : ALL ; Default : SELF=full ;");
  REQUIRE(s.partitions.size() == 2);
  CHECK(s.partitions[0].name == "Default");
  CHECK(s.partitions[0].pkey == 0x7FFF);
  CHECK(!s.partitions[0].ipoib);  // as the file says
  CHECK(s.partitions[1].name == "a");
  s = parse_ok("b=2:ALL;a=1:ALL;");
  REQUIRE(s.partitions.size() == 3);
  CHECK(s.partitions[0] == sm::PartitionSet::defaults().partitions[0]);
  CHECK(s.partitions[1].name == "b");  // file order
  CHECK(s.partitions[2].name == "a");
  // Another name for 0x7fff is the default partition too.
  s = parse_ok("x=1:ALL; everyone=0x7FFF : ALL=limited;");
  CHECK(s.partitions[0].name == "everyone");
  CHECK(s.partitions.size() == 2);
}

TEST_CASE("Q_Key, as OpenSM spells it, and flags in any case") {
  auto s = parse_ok("a=1, IPoIB, Q_Key=0x80010000, MTU=1 : ;");
  CHECK(s.partitions[1].qkey == 0x80010000u);
  CHECK(s.partitions[1].ipoib);
  CHECK(s.partitions[1].mtu == 1);
}

TEST_CASE("errors name the file, the line and what is wrong") {
  CHECK(parse_err("a=1:ALL;\n\nb=0x1 : ALL;") ==
        "p.conf:3: duplicate P_Key 0x0001: partition 'a' has it already (line 1)");
  CHECK(parse_err("a=1:ALL;\na=2:ALL;") == "p.conf:2: duplicate partition name 'a' (first on line 1)");
  CHECK(parse_err("a=1:ALL;\nb=2 :\n  0x12zz;") ==
        "p.conf:3: partition 'b': bad port GUID '0x12zz' (0x and up to 16 hex digits, or ALL, ALL_CAS, "
        "ALL_SWITCHES, SELF)");
  CHECK(parse_err("a=1: 0x00000000000000000001;").find("bad port GUID") != std::string::npos);  // 17+ digits
  CHECK(parse_err("a=1: 0x0;").find("bad port GUID '0x0'") != std::string::npos);
  CHECK(parse_err("a=1: 1234;").find("bad port GUID '1234'") != std::string::npos);
  CHECK(parse_err("a=1, ipob : ALL;") == "p.conf:1: partition 'a': unknown flag 'ipob'");
  CHECK(parse_err("a=1, color=red : ALL;") == "p.conf:1: partition 'a': unknown flag 'color'");
  CHECK(parse_err("\na=0 : ALL;") == "p.conf:2: partition 'a': P_Key 0 out of range (0x0001..0x7fff)");
  CHECK(parse_err("a=0x8001 : ALL;") == "p.conf:1: partition 'a': P_Key 0x8001 out of range (0x0001..0x7fff)");
  CHECK(parse_err("a=0x1x : ALL;") == "p.conf:1: partition 'a': bad P_Key '0x1x'");
  CHECK(parse_err("a=1 ALL;") == "p.conf:1: partition 'a': missing ':' before 'ALL'");
  CHECK(parse_err("a=1, ipoib ;") == "p.conf:1: partition 'a': missing ':' before ';'");
  CHECK(parse_err("a=1 : ALL\n\n") == "p.conf:1: partition 'a': missing ';' at the end");
  CHECK(parse_err("a=1 : ALL\nb=2 : ALL;") == "p.conf:2: partition 'a': missing ',' or ';' before 'b'");
  CHECK(parse_err("a=1") == "p.conf:1: partition 'a': missing ':' and ';'");
  CHECK(parse_err("a : ALL;") == "p.conf:1: partition 'a': missing '=P_Key'");
  CHECK(parse_err("Default=2 : ALL;") == "p.conf:1: partition 'Default' must have P_Key 0x7fff, not 0x0002");
  CHECK(parse_err("a=1 : ALL=half;") ==
        "p.conf:1: partition 'a': membership of ALL must be full, limited or both, not 'half'");
  CHECK(parse_err("a=1, defmember=half : ALL;").find("defmember must be full, limited or both") != std::string::npos);
  CHECK(parse_err("a=1, mtu=6 : ALL;") == "p.conf:1: partition 'a': mtu=6 is not a number in 1..5");
  CHECK(parse_err("a=1, sl=x : ALL;") == "p.conf:1: partition 'a': sl=x is not a number in 0..15");
  CHECK(parse_err("a=1, qkey=0x100000000 : ALL;").find("qkey=0x100000000") != std::string::npos);
  CHECK(parse_err("a=1 : ALL,;") == "p.conf:1: partition 'a': expected a member, found ';'");
  CHECK(parse_err(": ALL;") == "p.conf:1: expected a partition name, found ':'");
  CHECK(parse_err("a=1, : ALL;") == "p.conf:1: partition 'a': expected a flag after ','");
}

TEST_CASE("load_partitions reads a file, and says when it cannot") {
  const std::string path = "test_partitions_load.conf";
  {
    std::ofstream f(path);
    f << "Default=0x7fff : ALL=full;\nx=0x7 : SELF=full;\n";
  }
  auto s = sm::load_partitions(path);
  REQUIRE(s);
  CHECK(s->partitions.size() == 2);
  {
    std::ofstream f(path);
    f << "x=0x7 : SELF=full;\ny=7 : ALL;\n";
  }
  s = sm::load_partitions(path);
  REQUIRE(!s);
  CHECK(s.error().message.rfind(path + ":2: duplicate P_Key 0x0007", 0) == 0);
  std::remove(path.c_str());
  s = sm::load_partitions(path);
  REQUIRE(!s);
  CHECK(s.error().code == mad::Errc::io);
  CHECK(s.error().message.find(path) != std::string::npos);
}
