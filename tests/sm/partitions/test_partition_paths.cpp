// The SA's answers within partitions, on a fabric the real SM brought up in the simulator with
// a partitions file: a PathRecord only between ports that share a partition with a full
// member among them, with the P_Key of that partition; an MCMemberRecord join only into a
// group of a partition the joining port is in. The index gets the P_Key tables the SM
// programmed, as the daemon builds it.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "tests/sm/harness.h"
#include "mad/sa_mad.h"
#include "mad/sa_path_record.h"
#include "tests/sm/sa/sa_helpers.h"
#include "cli/config.h"
#include "sm/multicast/groups.h"
#include "sm/multicast/mcmember.h"
#include "sm/sa/index.h"
#include "sm/sa/queries.h"
#include "sm/sa/services.h"

namespace {

using mad::PathRecord;
using M = mad::McMemberRecord;

struct Port {
  mad::Lid lid;
  mad::Gid gid;
};

// The subnet the run's last sweep published, as if no P_Key table were known.
std::shared_ptr<const sm::Subnet> without_pkeys(const smtest::Run& run) {
  auto s = std::make_shared<sm::Subnet>(run.subnet());
  s->pkeys.clear();
  return s;
}

// Six CAs (not the SM's): a, b limited in Default and full in 0x0002; c, d full in Default
// and limited in 0x0003; e, f limited in Default and in 0x0004. Everyone else: Default full.
struct Fixture {
  smtest::Run probe{*sim::make_fat_tree(2, 8)};
  std::vector<Port> ca;  // a..f
  std::unique_ptr<smtest::Run> run;
  std::unique_ptr<sm::sa::Index> ix;

  Fixture() {
    const sim::SimFabric& f = *probe.fabric;
    std::vector<uint64_t> g;
    for (sim::NodeIdx i = 0; i < f.nodes().size() && g.size() < 6; ++i)
      if (!f.node(i).is_switch() && i != f.endpoint_node(probe.ep)) g.push_back(f.node(i).ports[1].guid.value());
    REQUIRE(g.size() == 6);
    const std::string text = fmt::format(
        "Default=0x7fff : ALL=full, 0x{0:016x}=limited, 0x{1:016x}=limited, 0x{4:016x}=limited, "
        "0x{5:016x}=limited ;\n"
        "two=0x0002 : 0x{0:016x}=full, 0x{1:016x}=full ;\n"
        "three=0x0003 : 0x{2:016x}=limited, 0x{3:016x}=limited ;\n"
        "four=0x0004 : 0x{4:016x}=limited, 0x{5:016x}=limited ;\n",
        g[0], g[1], g[2], g[3], g[4], g[5]);
    auto set = sm::parse_partitions(text, "test");
    REQUIRE_MESSAGE(set, (set ? "" : set.error().message));
    sm::SmConfig cfg;
    cfg.partitions = *set;
    run = std::make_unique<smtest::Run>(*sim::make_fat_tree(2, 8), cfg);
    REQUIRE(run->until_idle());
    REQUIRE(run->sm->subnet_up());
    ix = std::make_unique<sm::sa::Index>(sm::sa::Index::of(run->sm->subnet(), 18));
    for (uint64_t guid : g) {
      const sm::sa::Endport* e = ix->by_guid(mad::Guid(guid));
      REQUIRE(e);
      ca.push_back(Port{e->lid, mad::Gid(satest::kPrefix, guid)});
    }
  }

  // Asked by `s` itself unless `from` is given.
  sm::sa::Answer path(uint8_t method, const Port& s, const Port* d, std::optional<uint16_t> pkey = {},
                      const Port* from = nullptr) {
    PathRecord q;
    q.slid = s.lid;
    uint64_t mask = PathRecord::c_slid;
    if (d) {
      q.dlid = d->lid;
      mask |= PathRecord::c_dlid;
    }
    if (pkey) {
      q.pkey = *pkey;
      mask |= PathRecord::c_pkey;
    }
    return satest::ask(ix.get(), {}, satest::request(method, PathRecord::kAttrId, mask, satest::bytes(q)),
                       from ? from->lid : s.lid);
  }
  // The P_Key of the one PathRecord a Get answers (nullopt: an error status, e.g. NO_RECORDS).
  std::optional<uint16_t> pkey(const Port& s, const Port& d, std::optional<uint16_t> want = {},
                               const Port* from = nullptr) {
    auto a = path(mad::sa_method::get, s, &d, want, from);
    if (a.response.header.status != 0) {
      CHECK(a.response.header.status == mad::sa_status::no_records);
      return std::nullopt;
    }
    auto r = satest::records<PathRecord>(a);
    REQUIRE(r.size() == 1);
    CHECK(r[0].slid == s.lid);
    CHECK(r[0].dlid == d.lid);
    return r[0].pkey;
  }
};

}  // namespace

TEST_CASE("partitions: PathRecords only within a shared partition, with its P_Key") {
  Fixture fx;
  const auto& [a, b, c, d, e, f] = std::tie(fx.ca[0], fx.ca[1], fx.ca[2], fx.ca[3], fx.ca[4], fx.ca[5]);
  // a and b share only 0x0002 (both limited in Default): that partition, full.
  CHECK(fx.pkey(a, b) == 0x8002);
  CHECK(fx.pkey(b, a) == 0x8002);
  CHECK(fx.pkey(a, b, 0x0002) == 0x0002);  // a P_Key asked is answered as asked
  CHECK(fx.pkey(a, b, 0x8002) == 0x8002);
  CHECK_FALSE(fx.pkey(a, b, 0x7FFF));  // both limited in Default
  CHECK_FALSE(fx.pkey(a, b, 0xFFFF));
  CHECK_FALSE(fx.pkey(a, b, 0x0005));  // no such partition
  // c and d: Default (full) is preferred over 0x0003 they hold as limited members only.
  CHECK(fx.pkey(c, d) == 0xFFFF);
  CHECK_FALSE(fx.pkey(c, d, 0x0003));
  // a limited member and a full one of Default: the source's own entry.
  CHECK(fx.pkey(a, c) == 0x7FFF);
  CHECK(fx.pkey(c, a) == 0xFFFF);
  // e and f: limited members of everything they are in: no path between them, nor to a.
  CHECK_FALSE(fx.pkey(e, f));
  CHECK_FALSE(fx.pkey(e, f, 0x0004));
  CHECK_FALSE(fx.pkey(e, a));
  CHECK_FALSE(fx.pkey(e, e));  // not even to itself
  CHECK(fx.pkey(a, a) == 0x8002);
  CHECK(fx.pkey(e, c) == 0x7FFF);

  // GetTable from e: every end port but a, b, e and f, each in Default with e's entry.
  auto t = fx.path(mad::sa_method::get_table, e, nullptr);
  REQUIRE(t.response.header.status == 0);
  auto recs = satest::records<PathRecord>(t);
  CHECK(recs.size() == fx.ix->endports().size() - 4);
  for (const PathRecord& r : recs) {
    CHECK(r.pkey == 0x7FFF);
    for (const Port* p : {&a, &b, &e, &f}) CHECK(r.dlid != p->lid);
  }
  // From c, a full member of Default, which every end port holds: every end port.
  t = fx.path(mad::sa_method::get_table, c, nullptr);
  CHECK(satest::records<PathRecord>(t).size() == fx.ix->endports().size());
  // With P_Key 0x0002 from a: only a itself and b.
  t = fx.path(mad::sa_method::get_table, a, nullptr, 0x0002);
  recs = satest::records<PathRecord>(t);
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].pkey == 0x0002);
}

TEST_CASE("partitions: a requester sees only paths between ports it shares a partition with") {
  Fixture fx;
  const auto& [a, b, c, d, e, f] = std::tie(fx.ca[0], fx.ca[1], fx.ca[2], fx.ca[3], fx.ca[4], fx.ca[5]);
  CHECK(fx.pkey(a, b, {}, &c) == 0x8002);  // c shares Default with both (c full)
  CHECK_FALSE(fx.pkey(a, b, {}, &e));      // e shares nothing with a or b
  CHECK(fx.pkey(c, d, {}, &e) == 0xFFFF);  // e shares Default with c and d
  CHECK_FALSE(fx.pkey(c, a, {}, &f));      // f: c yes, a no
  // GetTable from c asked by e: every end port but a, b and f (e sees itself).
  auto t = fx.path(mad::sa_method::get_table, c, nullptr, {}, &e);
  CHECK(satest::records<PathRecord>(t).size() == fx.ix->endports().size() - 3);
  // A requester the index does not know (no LID of an end port) is not filtered on.
  const Port stranger{mad::Lid(0xBFFF), mad::Gid()};
  CHECK(fx.pkey(a, b, {}, &stranger) == 0x8002);
}

TEST_CASE("partitions: NodeRecords, PortInfoRecords and P_Key tables only of ports the requester shares a partition with") {
  Fixture fx;
  const auto& [a, b, c, d, e, f] = std::tie(fx.ca[0], fx.ca[1], fx.ca[2], fx.ca[3], fx.ca[4], fx.ca[5]);
  auto node_of = [&](const Port& who, const Port& asker) {
    mad::NodeRecord q;
    q.lid = who.lid;
    return satest::ask(fx.ix.get(), {}, satest::request(mad::sa_method::get, mad::NodeRecord::kAttrId, 1, satest::bytes(q)),
                       asker.lid)
        .response.header.status;
  };
  CHECK(node_of(b, a) == 0);                                  // share 0x0002
  CHECK(node_of(a, e) == mad::sa_status::no_records);         // e shares nothing with a
  CHECK(node_of(e, e) == 0);                                  // itself
  CHECK(node_of(c, e) == 0);                                  // Default, c full
  CHECK(node_of(f, e) == mad::sa_status::no_records);         // both limited everywhere
  // GetTable of every NodeRecord: e sees all end ports but a, b and f (d is a full member).
  auto all = [&](uint16_t attr, const Port& asker) {
    auto ans = satest::ask(fx.ix.get(), {}, satest::request(mad::sa_method::get_table, attr, 0), asker.lid);
    REQUIRE(ans.response.header.status == 0);
    return ans.payload.size() / (size_t{ans.response.attr_offset} * 8);
  };
  const size_t every = all(mad::NodeRecord::kAttrId, c);
  CHECK(every == fx.ix->node_records().count());
  CHECK(all(mad::NodeRecord::kAttrId, e) == every - 3);
  (void)d;
  // PortInfoRecords and P_KeyTableRecords of a (LID in the mask): b sees them, e does not.
  for (uint16_t attr : {mad::PortInfoRecord::kAttrId, mad::PKeyTableRecord::kAttrId}) {
    std::vector<uint8_t> q(attr == mad::PortInfoRecord::kAttrId ? mad::PortInfoRecord::kSize : mad::PKeyTableRecord::kSize);
    q[0] = static_cast<uint8_t>(a.lid.value() >> 8);
    q[1] = static_cast<uint8_t>(a.lid.value());
    auto by_b = satest::ask(fx.ix.get(), {}, satest::request(mad::sa_method::get_table, attr, 1, q), b.lid);
    auto by_e = satest::ask(fx.ix.get(), {}, satest::request(mad::sa_method::get_table, attr, 1, q), e.lid);
    CHECK(by_b.payload.size() > 0);
    CHECK(by_e.payload.size() == 0);
  }
}

TEST_CASE("partitions: ServiceRecords are registered and seen only within the requester's partitions") {
  Fixture fx;
  const auto& [a, b, c, d, e, f] = std::tie(fx.ca[0], fx.ca[1], fx.ca[2], fx.ca[3], fx.ca[4], fx.ca[5]);
  (void)d;
  (void)f;
  sm::sa::Services svc({fx.run->transport->clock(), [] { return int64_t{1'700'000'000'000}; }});
  sm::sa::Handler* hs[] = {&svc};
  using SR = mad::ServiceRecord;
  auto ask = [&](uint8_t method, const SR& r, uint64_t mask, const Port& from) {
    return satest::ask(fx.ix.get(), hs, satest::request(method, SR::kAttrId, mask, satest::bytes(r)), from.lid);
  };
  constexpr uint64_t kKey = SR::c_id | SR::c_gid | SR::c_pkey;
  SR two;
  two.id = 0x2;
  two.gid = a.gid;
  two.pkey = 0x8002;
  two.name = "in-two";
  CHECK(ask(mad::sa_method::set, two, kKey, a).response.header.status == 0);
  SR dflt = two;
  dflt.id = 0x7F;
  dflt.gid = c.gid;
  dflt.pkey = 0xFFFF;
  dflt.name = "in-default";
  CHECK(ask(mad::sa_method::set, dflt, kKey, c).response.header.status == 0);
  // e is not in 0x0002: it may not register a service there.
  SR bad = two;
  bad.id = 0x3;
  bad.gid = e.gid;
  CHECK(ask(mad::sa_method::set, bad, kKey, e).response.header.status == mad::sa_status::req_invalid);
  CHECK(svc.size() == 2);
  auto names = [&](const Port& from) {
    auto ans = ask(mad::sa_method::get_table, SR{}, 0, from);
    REQUIRE(ans.response.header.status == 0);
    std::vector<std::string> out;
    for (size_t off = 0; off + SR::kSize <= ans.payload.size(); off += size_t{ans.response.attr_offset} * 8)
      out.push_back(SR::decode(std::span(ans.payload).subspan(off, SR::kSize))->name);
    return out;
  };
  CHECK(names(b) == std::vector<std::string>{"in-two", "in-default"});  // b holds both (Default as limited)
  CHECK(names(e) == std::vector<std::string>{"in-default"});
  CHECK(names(c) == std::vector<std::string>{"in-default"});
}

TEST_CASE("partitions: an index without P_Key tables puts every port in Default, full") {
  Fixture fx;
  fx.ix = std::make_unique<sm::sa::Index>(sm::sa::Index::of(without_pkeys(*fx.run), 18));
  CHECK(fx.pkey(fx.ca[4], fx.ca[5]) == 0xFFFF);
  CHECK_FALSE(fx.pkey(fx.ca[0], fx.ca[1], 0x0002));
}

TEST_CASE("partitions: a port joins only the groups of its partitions") {
  Fixture fx;
  sm::multicast::Registry groups;
  sm::multicast::McMemberHandler h(groups, {});
  sm::sa::Handler* hs[] = {&h};
  auto set = [&](const Port& p, const M& q, uint64_t mask) {
    return satest::ask(fx.ix.get(), hs, satest::request(mad::sa_method::set, M::kAttrId, mask, satest::bytes(q)),
                       p.lid)
        .response.header.status;
  };
  // a creates a group in 0x0002.
  M q;
  q.mgid = mad::Gid(0xff12601b00020000ULL, 0x1234);
  q.port_gid = fx.ca[0].gid;
  q.join_state = mad::join_state::full;
  q.qkey = 0x22;
  q.pkey = 0x8002;
  constexpr uint64_t kCreate = M::c_mgid | M::c_port_gid | M::c_join_state | M::c_qkey | M::c_pkey | M::c_sl |
                               M::c_flow_label | M::c_tclass;
  REQUIRE(set(fx.ca[0], q, kCreate) == 0);
  REQUIRE(groups.find(q.mgid));
  // Who sees it (GetTable, as `saquery -g` asks): b, in 0x0002, does; c does not.
  auto seen = [&](const Port& p) {
    auto a = satest::ask(fx.ix.get(), hs, satest::request(mad::sa_method::get_table, M::kAttrId, 0), p.lid);
    return a.payload.size() / (size_t{a.response.attr_offset} * 8);
  };
  CHECK(seen(fx.ca[1]) == 1);
  CHECK(seen(fx.ca[2]) == 0);
  // c is not in 0x0002: refused, and nothing changes.
  const uint64_t version = groups.version();
  M j;
  j.mgid = q.mgid;
  j.port_gid = fx.ca[2].gid;
  j.join_state = mad::join_state::full;
  constexpr uint64_t kJoin = M::c_mgid | M::c_port_gid | M::c_join_state;
  CHECK(set(fx.ca[2], j, kJoin) == mad::sa_status::req_invalid);
  CHECK(groups.version() == version);
  CHECK(groups.find(q.mgid)->members.size() == 1);
  // b is; but e, which shares no partition with b, may not join it for b (a proxy join).
  j.port_gid = fx.ca[1].gid;
  CHECK(set(fx.ca[4], j, kJoin) == mad::sa_status::req_invalid);
  CHECK(groups.find(q.mgid)->members.size() == 1);
  CHECK(set(fx.ca[1], j, kJoin) == 0);
  CHECK(groups.find(q.mgid)->members.size() == 2);
  // c shares Default with a (c full): it may make a a send-only member for it.
  j.port_gid = fx.ca[0].gid;
  j.join_state = mad::join_state::send_only_non;
  CHECK(set(fx.ca[2], j, kJoin) == 0);
  j.join_state = mad::join_state::full;
  // Nor may c create a group in a partition it is not in; e may join as a limited member of 0x0004.
  M c = q;
  c.mgid = mad::Gid(0xff12601b00030000ULL, 0x1);
  c.port_gid = fx.ca[2].gid;
  CHECK(set(fx.ca[2], c, kCreate) == mad::sa_status::req_invalid);
  CHECK_FALSE(groups.find(c.mgid));
  M e = q;
  e.mgid = mad::Gid(0xff12601b00040000ULL, 0x1);
  e.port_gid = fx.ca[4].gid;
  e.pkey = 0x8004;
  CHECK(set(fx.ca[4], e, kCreate) == 0);
  // A port whose table is not known to the index is in Default only.
  fx.ix = std::make_unique<sm::sa::Index>(sm::sa::Index::of(without_pkeys(*fx.run), 18));
  j.port_gid = fx.ca[3].gid;
  CHECK(set(fx.ca[3], j, kJoin) == mad::sa_status::req_invalid);
}
