// PathRecords with a QoS policy (sm/qos_policy/), on a fabric the real SM brought up in the
// simulator: the SL of the level each query matches, the level's MTU and rate limits and
// PacketLifeTime, the SL a query asks for, and SL 0 without a policy. Oracles: for every
// record, the SL follows from its ends and the query's fields by the policy's rules.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "mad/sa_path_record.h"
#include "sm/qos_policy/parse.h"
#include "sm/sa/queries.h"
#include "tests/sm/harness.h"
#include "tests/sm/sa/sa_helpers.h"

namespace {

using P = mad::PathRecord;
using satest::bytes;
using satest::kPrefix;
using satest::request;

struct QosFixture {
  smtest::Run run{*sim::make_fat_tree(2, 8)};
  std::shared_ptr<const sm::sa::Index> index;
  sm::qos::Policy policy;
  mad::Guid storage;  // the last CA's port
  QosFixture() {
    REQUIRE(run.until_idle());
    REQUIRE(run.sm->subnet_up());
    index = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(run.sm->subnet(), 18));
    storage = run.topo().port(run.topo().cas().back(), mad::PortNum(1)).guid;
    auto p = sm::qos::parse_policy(fmt::format(R"(
port-groups
  port-group
    name: Storage
    port-guid: {:#x}
  end-port-group
  port-group
    name: Me
    node-type: SELF
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
  qos-level
    name: storage
    sl: 5
    mtu-limit: 1
    rate-limit: 2
    packet-life: 3
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    destination: Storage
    service-id: 0x10000-0x1ffff
    qos-level-name: storage
  end-qos-match-rule
end-qos-match-rules
qos-ulps
  any, pkey 0x7fff : 7
  any, target-port-guid 0x0-0xffffffffffffffff : 2
end-qos-ulps
)", storage.value()), "q.conf");
    REQUIRE_MESSAGE(p, (p ? "" : p.error().message));
    policy = std::move(*p);
  }
  std::vector<P> ask(uint64_t mask, const P& q, bool with_policy = true) const {
    auto a = sm::sa::answer_query(index.get(), {}, request(mad::sa_method::get_table, mad::sa_attr::path_record, mask,
                                                           bytes(q)), {}, kPrefix, with_policy ? &policy : nullptr);
    return satest::records<P>(a);
  }
};

}  // namespace

TEST_CASE("SA with a QoS policy: the matched level's SL and limits, the default level's elsewhere") {
  QosFixture f;
  const auto& t = f.run.topo();
  const fabric::Port& src = t.port(t.cas()[0], mad::PortNum(1));
  P q;
  q.sgid = mad::Gid(kPrefix, src.guid.value());
  q.service_id = 0x10042;
  // From one CA to every end port, with a Service ID of the storage rule.
  const auto with = f.ask(P::c_sgid | P::c_service_id_msb | P::c_service_id_lsb, q);
  const auto without = f.ask(P::c_sgid | P::c_service_id_msb | P::c_service_id_lsb, q, false);
  REQUIRE(with.size() == f.index->endports().size());
  REQUIRE(without.size() == with.size());
  size_t to_storage = 0;
  for (size_t i = 0; i < with.size(); ++i) {
    const P& p = with[i];
    const P& plain = without[i];
    CHECK(plain.sl == 0);
    REQUIRE(p.dgid == plain.dgid);
    if (p.dgid.guid() == f.storage) {
      ++to_storage;
      CHECK(p.sl == 5);
      CHECK(p.mtu == 1);  // the level's limits, below the path's
      CHECK(plain.mtu > 1);
      CHECK(p.rate == 2);
      CHECK(mad::rate::tenths_gbps(plain.rate) > mad::rate::tenths_gbps(2));
      CHECK(p.pkt_life == 3);
    } else {
      // The target-port-guid rule of qos-ulps (every GUID) takes the rest: SL 2, the path's limits.
      CHECK(p.sl == 2);
      CHECK(p.mtu == plain.mtu);
      CHECK(p.rate == plain.rate);
      CHECK(p.pkt_life == plain.pkt_life);
    }
  }
  CHECK(to_storage == 1);
  // Without the Service ID the storage rule does not match; with the P_Key the ulps rule does.
  const auto no_sid = f.ask(P::c_sgid, q);
  for (const P& p : no_sid) CHECK(p.sl == 2);
  q.pkey = 0xFFFF;
  const auto by_pkey = f.ask(P::c_sgid | P::c_pkey, q);
  REQUIRE(by_pkey.size() == with.size());
  for (const P& p : by_pkey) CHECK(p.sl == 7);
}

TEST_CASE("SA with a QoS policy: a query naming an SL gets the paths whose level gives it") {
  QosFixture f;
  const auto& t = f.run.topo();
  const fabric::Port& src = t.port(t.cas()[0], mad::PortNum(1));
  P q;
  q.sgid = mad::Gid(kPrefix, src.guid.value());
  q.service_id = 0x10042;
  const uint64_t mask = P::c_sgid | P::c_service_id_msb | P::c_service_id_lsb | P::c_sl;
  q.sl = 5;
  const auto five = f.ask(mask, q);
  REQUIRE(five.size() == 1);
  CHECK(five[0].dgid.guid() == f.storage);
  q.sl = 2;
  CHECK(f.ask(mask, q).size() == f.index->endports().size() - 1);
  q.sl = 4;
  CHECK(f.ask(mask, q).empty());
  CHECK(f.ask(mask, q, false).empty());  // no policy: SL 0 only
  q.sl = 0;
  CHECK(f.ask(mask, q).empty());
  CHECK(f.ask(mask, q, false).size() == f.index->endports().size());
}

TEST_CASE("SA with a QoS policy: port groups by node type SELF find the SM's own port") {
  QosFixture f;
  auto p = sm::qos::parse_policy("port-groups\n port-group\n  name: Me\n  node-type: SELF\n end-port-group\n"
                                 "end-port-groups\nqos-levels\n qos-level\n  name: DEFAULT\n  sl: 0\n end-qos-level\n"
                                 " qos-level\n  name: sm\n  sl: 9\n end-qos-level\nend-qos-levels\nqos-match-rules\n"
                                 " qos-match-rule\n  destination: Me\n  qos-level-name: sm\n end-qos-match-rule\n"
                                 "end-qos-match-rules\n", "q.conf");
  REQUIRE(p);
  f.policy = *p;
  const mad::Guid self = f.run.sm->subnet()->sm.port_guid;
  REQUIRE_FALSE(self.is_zero());
  const auto& t = f.run.topo();
  P q;
  q.sgid = mad::Gid(kPrefix, t.port(t.cas()[3], mad::PortNum(1)).guid.value());
  size_t nine = 0;
  for (const P& r : f.ask(P::c_sgid, q)) {
    CHECK(r.sl == (r.dgid.guid() == self ? 9 : 0));
    nine += r.sl == 9;
  }
  CHECK(nine == 1);
}

// Engines that use VL layers give SLs of their own (RoutingTables::has_sls()): those keep the
// routes free of deadlock, so they win over the policy's; the level's limits still apply.
TEST_CASE("SA with a QoS policy: the routing engine's SLs win where it has them") {
  QosFixture f;
  auto layered = std::make_shared<sm::Subnet>(*f.run.sm->subnet());
  auto tables = std::make_shared<routing::RoutingTables>(*layered->tables);
  tables->reserve_sls();  // every SL 0, as an engine with one layer leaves them
  layered->tables = tables;
  f.index = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(layered, 18));
  REQUIRE(f.index->engine_sls());
  const auto& t = f.run.topo();
  P q;
  q.sgid = mad::Gid(kPrefix, t.port(t.cas()[0], mad::PortNum(1)).guid.value());
  q.service_id = 0x10042;
  const auto rs = f.ask(P::c_sgid | P::c_service_id_msb | P::c_service_id_lsb, q);
  REQUIRE(rs.size() == f.index->endports().size());
  for (const P& r : rs) {
    CHECK(r.sl == 0);
    if (r.dgid.guid() == f.storage) CHECK(r.mtu == 1);  // the storage level's limit
  }
  q.sl = 5;  // the policy's SL is not what the engine answers
  CHECK(f.ask(P::c_sgid | P::c_service_id_msb | P::c_service_id_lsb | P::c_sl, q).empty());
}
