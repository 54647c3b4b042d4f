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
  REQUIRE(d.partitions[0].groups.size() == 1);
  CHECK(d.partitions[0].groups[0].mgid.str() == "ff12:401b:ffff::ffff:ffff");
  CHECK(d.partitions[0].groups[0].qkey == 0x0B1Bu);
}

namespace {

// The members a partition got from the file, without the default partition's own start
// (ALL=limited, SELF=full) and the entries' places.
std::vector<PartitionMember> file_members(const sm::Partition& p) {
  std::vector<PartitionMember> out;
  for (PartitionMember m : p.members) {
    m.seq = 0;
    out.push_back(m);
  }
  if (p.pkey == 0x7FFF) out.erase(out.begin(), out.begin() + 2);
  return out;
}

}  // namespace

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
  REQUIRE(d.groups.size() == 1);
  CHECK(d.groups[0].mtu == 5);
  CHECK(d.groups[0].rate == 7);
  const auto& st = s.partitions[1];
  CHECK(st.name == "storage");
  CHECK(st.pkey == 2);
  CHECK(st.ipoib);
  REQUIRE(st.groups.size() == 1);
  // The broadcast group is link-local whatever scope= says, as OpenSM creates it.
  CHECK(st.groups[0].mgid.str() == "ff12:401b:8002::ffff:ffff");
  CHECK(st.groups[0].sl == 1);
  CHECK(st.groups[0].qkey == 0x1234u);
  CHECK(st.groups[0].mtu == 4);  // not given: the default
  CHECK(file_members(st) == std::vector<PartitionMember>{
                                {Who::guid, mad::Guid(0x0002c90300001234ULL), Membership::limited},
                                {Who::guid, mad::Guid(0x0002c90300001235ULL), Membership::full},  // defmember
                                {Who::self, {}, Membership::both}});
  const auto& m = s.partitions[2];
  CHECK(m.pkey == 3);
  CHECK(!m.ipoib);
  CHECK(m.groups.empty());
  // Without defmember a member is limited, as in OpenSM.
  CHECK(file_members(m) == std::vector<PartitionMember>{{Who::all_switches, {}, Membership::limited},
                                                        {Who::all_cas, {}, Membership::full}});
  CHECK(s.partitions[3].members.empty());
}

TEST_CASE("the default partition: ALL=limited, SELF=full before what the file says, as OpenSM") {
  auto s = parse_ok("a=0x1 : ALL ; Default : SELF=full ;");
  REQUIRE(s.partitions.size() == 2);
  const auto& d = s.partitions[0];
  CHECK(d.name == "Default");
  CHECK(d.pkey == 0x7FFF);
  CHECK(!d.ipoib);  // no IPoIB group unless the file says ipoib
  CHECK(d.groups.empty());
  REQUIRE(d.members.size() == 3);
  CHECK(d.members[0].who == Who::all);
  CHECK(d.members[0].membership == Membership::limited);
  CHECK(d.members[1].who == Who::self);
  CHECK(d.members[1].membership == Membership::full);
  CHECK(s.partitions[1].name == "a");
  // A file that does not name it has it all the same.
  s = parse_ok("b=2:ALL;a=1:ALL;");
  REQUIRE(s.partitions.size() == 3);
  CHECK(s.partitions[0].name == "Default");
  CHECK(s.partitions[0].members.size() == 2);
  CHECK(s.partitions[0].groups.empty());
  CHECK(s.partitions[1].name == "b");  // file order
  CHECK(s.partitions[2].name == "a");
  // Another name for 0x7fff adds to it; the first name stays.
  s = parse_ok("x=1:ALL; everyone=0x7FFF, ipoib : ALL=full;");
  REQUIRE(s.partitions.size() == 2);
  CHECK(s.partitions[0].name == "Default");
  CHECK(s.partitions[0].ipoib);
  CHECK(file_members(s.partitions[0]) == std::vector<PartitionMember>{{Who::all, {}, Membership::full}});
}

TEST_CASE("Q_Key, as OpenSM spells it, TClass, FlowLabel, and flags in any case") {
  auto s = parse_ok("a=1, IPoIB, Q_Key=0x80010000, MTU=1, TClass=7, FlowLabel=0x12345 : ;");
  REQUIRE(s.partitions[1].groups.size() == 1);
  const auto& g = s.partitions[1].groups[0];
  CHECK(g.qkey == 0x80010000u);
  CHECK(s.partitions[1].ipoib);
  CHECK(g.mtu == 1);
  CHECK(g.tclass == 7);
  CHECK(g.flow_label == 0x12345u);
}

TEST_CASE("a P_Key in several statements is one partition: members joined, each statement's flags its own") {
  const auto s = parse_ok(R"(
ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;
other = 0x81 : ALL ;
# 0x123453, 0x123454 limited
ShareIO = 0x80 : 0x123453, 0x123454, 0x123455=full;
again = 0x80 , defmember=both, ipoib : 0x123456, 0x123451=limited;
)");
  REQUIRE(s.partitions.size() == 3);
  const auto& p = s.partitions[1];
  CHECK(p.name == "ShareIO");  // the first name
  CHECK(p.pkey == 0x80);
  CHECK(p.ipoib);              // a later statement's ipoib
  REQUIRE(p.groups.size() == 1);
  CHECK(p.groups[0].mgid.str() == "ff12:401b:8080::ffff:ffff");
  CHECK(file_members(p) == std::vector<PartitionMember>{
                               {Who::guid, mad::Guid(0x123451), Membership::full},
                               {Who::guid, mad::Guid(0x123452), Membership::full},
                               {Who::guid, mad::Guid(0x123453), Membership::limited},
                               {Who::guid, mad::Guid(0x123454), Membership::limited},
                               {Who::guid, mad::Guid(0x123455), Membership::full},
                               {Who::guid, mad::Guid(0x123456), Membership::both},
                               {Who::guid, mad::Guid(0x123451), Membership::limited}});
  // The entries keep their place in the file across partitions.
  CHECK(p.members[0].seq < s.partitions[2].members[0].seq);
  CHECK(s.partitions[2].members[0].seq < p.members[2].seq);
  CHECK(s.partitions[2].name == "other");
}

TEST_CASE("names: not unique; without a P_Key the partition of that name, else a P_Key generated as OpenSM") {
  const auto s = parse_ok("a : 0x1 ; b=0x5 : 0x2 ; b : 0x3 ; c : 0x4 ; twin=0x7 : ; twin=0x8 : ; =0x9 : ; 0x0a : ;");
  REQUIRE(s.partitions.size() == 8);
  CHECK(s.partitions[1].name == "a");
  CHECK(s.partitions[1].pkey == 1);  // the lowest unused from 1
  CHECK(s.partitions[2].pkey == 5);
  CHECK(s.partitions[2].members.size() == 2);  // b : 0x3 joined b=0x5
  CHECK(s.partitions[3].name == "c");
  CHECK(s.partitions[3].pkey == 2);
  CHECK(s.partitions[4].pkey == 7);
  CHECK(s.partitions[5].pkey == 8);
  CHECK(s.partitions[5].name == "twin");
  CHECK(s.partitions[6].name == "0009");  // no name: the P_Key, as OpenSM
  CHECK(s.partitions[7].pkey == 0x0a);    // a P_Key alone
  CHECK(s.partitions[7].name == "000a");
}

TEST_CASE("indx0, ALL_ROUTERS, NONE, decimal and octal GUIDs, memberships abbreviated, members on lines") {
  const auto s = parse_ok(R"(
a=0x1, indx0 : 0x10=full, 20, 030=limi, ALL_ROUTERS=f, NONE, SELF=b ;
b=0x2 :
    0x40
    0x41 , ,
    0x42 ;
)");
  const auto& a = s.partitions[1];
  CHECK(file_members(a) == std::vector<PartitionMember>{
                               {Who::guid, mad::Guid(0x10), Membership::full, true},
                               {Who::guid, mad::Guid(20), Membership::limited, true},   // decimal
                               {Who::guid, mad::Guid(030), Membership::limited, true},  // octal, as strtoull
                               {Who::all_routers, {}, Membership::full, true},
                               {Who::self, {}, Membership::both, true}});
  CHECK(file_members(s.partitions[2]) == std::vector<PartitionMember>{{Who::guid, mad::Guid(0x40), Membership::limited},
                                                                      {Who::guid, mad::Guid(0x41), Membership::limited},
                                                                      {Who::guid, mad::Guid(0x42), Membership::limited}});
}

TEST_CASE("mgid= groups: to the end of the line, flags inherited from the statement, IP groups checked and filled") {
  const auto s = parse_ok(R"(
Default=0x7fff, ipoib, sl=2, FlowLabel=5, TClass=9 :
    mgid=ff12:401b::0707,sl=1            # an IPv4 group: the P_Key filled in
    mgid=ff12:601b::16                   # IPv6
    mgid = ff12::1, Q_Key=0xDEADBEEF, rate=3, mtu=2   # not IP: any rate and MTU
    mgid=ff15::2,scope=5,scope=8         # one group per scope
    mgid=ff12:401b::0707                 # again: the first stays
    ALL=full;
p2=0x0002, ipoib, mtu=5, scope=5 :
    mgid=ff12:401b:8002::1 ;
)");
  const auto& g = s.partitions[0].groups;
  REQUIRE(g.size() == 6);
  CHECK(g[0].mgid.str() == "ff12:401b:ffff::ffff:ffff");  // the broadcast group first
  CHECK(g[0].sl == 2);
  CHECK(g[0].tclass == 9);
  CHECK(g[0].flow_label == 5u);
  CHECK(g[1].mgid.str() == "ff12:401b:ffff::707");
  CHECK(g[1].sl == 1);
  CHECK(g[1].qkey == 0x0B1Bu);
  CHECK(g[1].tclass == 0);  // TClass is not inherited (OpenSM)
  CHECK(g[1].flow_label == 5u);
  CHECK(g[2].mgid.str() == "ff12:601b:ffff::16");
  CHECK(g[2].sl == 2);
  CHECK(g[3].mgid.str() == "ff12::1");
  CHECK(g[3].qkey == 0xDEADBEEFu);
  CHECK(g[3].mtu == 2);
  CHECK(g[4].mgid.str() == "ff15::2");
  CHECK(g[5].mgid.str() == "ff18::2");
  CHECK(g[5].qkey == 0u);  // a non-IP group without Q_Key: 0
  CHECK(s.partitions[0].members.back().who == Who::all);  // the member after the groups
  // scope= on the statement: its mgid groups at that scope (and the broadcast group link-local).
  const auto& g2 = s.partitions[1].groups;
  REQUIRE(g2.size() == 2);
  CHECK(g2[0].mgid.str() == "ff12:401b:8002::ffff:ffff");
  CHECK(g2[1].mgid.str() == "ff15:401b:8002::1");
  CHECK(g2[1].mtu == 5);
}

TEST_CASE("errors name the file, the line and what is wrong") {
  CHECK(parse_err("a=1:ALL;\nb=2 :\n  0x12zz;") ==
        "p.conf:3: partition 'b': bad port GUID '0x12zz' (0x hex, or decimal, or ALL, ALL_CAS, ALL_SWITCHES, "
        "ALL_ROUTERS, SELF, NONE)");
  CHECK(parse_err("a=1: 0x10000000000000000;").find("bad port GUID") != std::string::npos);  // 65 bits
  CHECK(parse_err("a=1: 0x0;").find("bad port GUID '0x0'") != std::string::npos);
  CHECK(parse_err("a=1: 12a4;").find("bad port GUID '12a4'") != std::string::npos);
  CHECK(parse_err("a=1: 089;").find("bad port GUID '089'") != std::string::npos);  // not octal
  CHECK(parse_err("a=1: ALL_ROUTER;").find("bad port GUID 'ALL_ROUTER'") != std::string::npos);
  CHECK(parse_err("a=1, ipob : ALL;") == "p.conf:1: partition 'a': unknown flag 'ipob'");
  CHECK(parse_err("a=1, color=red : ALL;") == "p.conf:1: partition 'a': unknown flag 'color'");
  CHECK(parse_err("\na=0 : ALL;") == "p.conf:2: partition 'a': P_Key 0 out of range (0x0001..0x7fff)");
  CHECK(parse_err("a=0x8001 : ALL;") == "p.conf:1: partition 'a': P_Key 0x8001 out of range (0x0001..0x7fff)");
  CHECK(parse_err("a=0x1x : ALL;") == "p.conf:1: partition 'a': bad P_Key '0x1x'");
  CHECK(parse_err("a=1 ALL;") == "p.conf:1: partition 'a': missing ':' before 'ALL'");
  CHECK(parse_err("a=1, ipoib ;") == "p.conf:1: partition 'a': missing ':' before ';'");
  CHECK(parse_err("a=1 : ALL\n\n") == "p.conf:1: partition 'a': missing ';' at the end");
  CHECK(parse_err("a=1 : ALL\nb=2 : ALL;") == "p.conf:2: partition 'a': missing ';' before 'b'");
  CHECK(parse_err("a=1 : ALL\nb=2, ipoib : ALL;") == "p.conf:2: partition 'a': missing ';' before 'b'");
  CHECK(parse_err("a=1 : ALL SELF;") == "p.conf:1: partition 'a': missing ',' or ';' before 'SELF'");
  CHECK(parse_err("a=1") == "p.conf:1: partition 'a': missing ':' and ';'");
  CHECK(parse_err("Default=2 : ALL;") == "p.conf:1: partition 'Default' must have P_Key 0x7fff, not 0x0002");
  CHECK(parse_err("a=1 : ALL=half;") ==
        "p.conf:1: partition 'a': membership of ALL must be full, limited or both, not 'half'");
  CHECK(parse_err("a=1, defmember=half : ALL;").find("defmember must be full, limited or both") != std::string::npos);
  CHECK(parse_err("a=1, mtu=6 : ALL;") == "p.conf:1: partition 'a': mtu=6 is not a number in 1..5");
  CHECK(parse_err("a=1, sl=x : ALL;") == "p.conf:1: partition 'a': sl=x is not a number in 0..15");
  CHECK(parse_err("a=1, FlowLabel=0x100000 : ALL;") == "p.conf:1: partition 'a': FlowLabel=0x100000 is not a number in 0..1048575");
  CHECK(parse_err("a=1, TClass=256 : ALL;") == "p.conf:1: partition 'a': TClass=256 is not a number in 0..255");
  CHECK(parse_err("a=1, qkey=0x100000000 : ALL;").find("qkey=0x100000000") != std::string::npos);
  CHECK(parse_err("a=1 : =full;") == "p.conf:1: partition 'a': expected a member, found '='");
  CHECK(parse_err(": ALL;") == "p.conf:1: expected a partition name or P_Key, found ':'");
  CHECK(parse_err("a=1, : ALL;") == "p.conf:1: partition 'a': expected a flag after ','");
  // mgid= lines.
  CHECK(parse_err("a=1 :\n mgid=fe80::1 ;") == "p.conf:2: partition 'a': mgid fe80::1 is not a multicast GID (ff..)");
  CHECK(parse_err("a=1 :\n mgid=ff12::zz ;") ==
        "p.conf:2: partition 'a': mgid 'ff12::zz' is not a GID (IPv6 notation: ff12:401b::1)");
  CHECK(parse_err("a=1 :\n mgid= ;") == "p.conf:2: partition 'a': mgid= needs a GID");
  CHECK(parse_err("a=1 :\n mgid=ff12::1, ALL=full ;") ==
        "p.conf:2: partition 'a': mgid ff12::1: unknown group flag 'ALL' (mtu, rate, sl, scope, Q_Key, TClass, "
        "FlowLabel; the line ends the group)");
  CHECK(parse_err("a=1 :\n mgid=ff12::1 ALL ;") ==
        "p.conf:2: partition 'a': mgid ff12::1: expected ',' or the end of the line before 'ALL'");
  CHECK(parse_err("a=1 :\n mgid=ff12::1, sl=16 ;") == "p.conf:2: partition 'a': mgid ff12::1: sl=16 is not a number in 0..15");
  CHECK(parse_err("a=1 :\n mgid=ff12::1, sl ;") == "p.conf:2: partition 'a': mgid ff12::1: flag 'sl' needs a value");
  CHECK(parse_err("a=1 :\n mgid=ff12:401b:8002::1 ;") ==
        "p.conf:2: partition 'a': IP group ff12:401b:8002::1 has P_Key 0x8002, not the partition's 0x8001 (or 0)");
  CHECK(parse_err("a=1, rate=6 :\n mgid=ff12:401b::1, rate=3 ;") ==
        "p.conf:2: partition 'a': IP group ff12:401b::1 has rate 3, its partition's statement 6: they must match");
  CHECK(parse_err("a=1 :\n mgid=ff12:601b::1, mtu=5 ;") ==
        "p.conf:2: partition 'a': IP group ff12:601b::1 has mtu 5, its partition's statement 4: they must match");
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
    f << "x=0x7 : SELF=full;\ny=7 : 0xg;\n";
  }
  s = sm::load_partitions(path);
  REQUIRE(!s);
  CHECK(s.error().message.rfind(path + ":2: partition 'x': bad port GUID '0xg'", 0) == 0);
  std::remove(path.c_str());
  s = sm::load_partitions(path);
  REQUIRE(!s);
  CHECK(s.error().code == mad::Errc::io);
  CHECK(s.error().message.find(path) != std::string::npos);
}
