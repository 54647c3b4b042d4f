// The service stack operators run (service::Service: the SM, the SA, multicast, the store) on a
// simulated fabric, with clients on other CA ports that reach the SA the way applications do:
// LID-routed SA MADs through the simulated switches' own LFTs, long answers by RMPP. The
// ibsim scripts check the same things against saquery and OpenSM.
#include <doctest/doctest.h>

#include <bitset>
#include <filesystem>
#include <set>

#include "tests/temp_dir.h"
#include "cli/drill.h"
#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "mad/sa_service_records.h"
#include "sim/netfile.h"
#include "tests/service/sa_client.h"

using namespace std::chrono_literals;
using svctest::SaClient;

namespace {

constexpr uint64_t kPrefix = mad::kDefaultGidPrefix;

sim::FabricSpec ft2_r8() {
  auto s = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/ft2-r8.net");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  return std::move(*s);
}

using testutil::TempDir;

// SMs (the drill's Cluster runs whole service stacks) and SA clients on one fabric.
struct Bed {
  std::unique_ptr<cli::Cluster> cluster;
  std::vector<std::unique_ptr<SaClient>> clients;
  std::vector<sim::EndpointId> client_eps;

  explicit Bed(std::vector<cli::DrillSm> sms) {
    auto c = cli::Cluster::create(ft2_r8(), {}, std::move(sms), sm::Level::error);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
    cluster = std::move(*c);
    for (size_t i = 0; i < cluster->size(); ++i) REQUIRE(cluster->start(i));
    REQUIRE(settle());
  }
  bool settle() {
    return cluster->run_until([&] { return cluster->settled() && cluster->masters().size() == 1; }, 30s);
  }
  SaClient& client(const std::string& node) {
    sim::SimFabric& f = cluster->fabric();
    auto at = f.find(node);
    REQUIRE(at);
    auto ep = f.attach(*at, 1);
    REQUIRE(ep);
    clients.push_back(std::make_unique<SaClient>(f, *ep));
    client_eps.push_back(*ep);
    cluster->add_reactor(*ep, *clients.back());
    return *clients.back();
  }
  const sim::SimPort& port_of(const SaClient& c) const {
    for (size_t i = 0; i < clients.size(); ++i)
      if (clients[i].get() == &c) {
        const sim::SimFabric& f = cluster->fabric();
        return f.node(f.endpoint_node(client_eps[i])).ports[1];
      }
    FAIL("not a client of this bed");
    return cluster->fabric().node(0).ports[0];
  }
  mad::Gid gid_of(const SaClient& c) const { return mad::Gid(kPrefix, port_of(c).guid.value()); }
  // Sends `m` to the SA where the client's port says the master SM is, and waits for the answer.
  const SaClient::Answer* ask(SaClient& c, const mad::SaMad& m) {
    const uint64_t tid = c.send(m, mad::Lid(port_of(c).sm_lid));
    cluster->run_until([&] { return c.answer(tid) != nullptr; }, 2s);
    return c.answer(tid);
  }
};

template <class R>
mad::SaMad request(uint8_t method, const R& rec, uint64_t mask) {
  mad::SaMad m;
  m.header.method = method;
  m.header.attr_id = R::kAttrId;
  m.comp_mask = mask;
  rec.encode(std::span(m.data).first(R::kSize));
  return m;
}

mad::ServiceRecord service_of(const mad::Gid& gid, uint64_t id, const char* name) {
  mad::ServiceRecord s;
  s.id = id;
  s.gid = gid;
  s.pkey = 0xFFFF;
  s.lease = mad::ServiceRecord::kInfiniteLease;
  s.name = name;
  return s;
}

constexpr uint64_t kServiceKey = mad::ServiceRecord::c_id | mad::ServiceRecord::c_gid | mad::ServiceRecord::c_pkey;

std::vector<mad::ServiceRecord> services(Bed& bed, SaClient& c) {
  const auto* a = bed.ask(c, request(mad::sa_method::get_table, mad::ServiceRecord{}, 0));
  REQUIRE(a);
  return svctest::records_of<mad::ServiceRecord>(*a);
}

// CA port GUIDs a packet from `src` reaches along the simulated switches' MFTs for `mlid`.
std::multiset<uint64_t> flood(const sim::SimFabric& f, const sim::SimPort& src, mad::Lid mlid) {
  std::multiset<uint64_t> out;
  std::set<sim::NodeIdx> seen;
  std::vector<std::pair<sim::NodeIdx, uint8_t>> todo{{src.peer, src.peer_port}};
  while (!todo.empty()) {
    const auto [sw, in] = todo.back();
    todo.pop_back();
    const sim::SimNode& n = f.node(sw);
    if (!seen.insert(sw).second || n.sw->mft.empty()) continue;
    const size_t positions = (static_cast<size_t>(n.num_ports) + 16) / 16;
    const size_t off = mlid.value() - 0xC000u;
    std::bitset<256> mask;
    for (size_t p = 0; p < positions; ++p) mask |= std::bitset<256>(n.sw->mft[off * positions + p]) << (16 * p);
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      const sim::SimPort& port = n.ports[p];
      if (!mask.test(p) || p == in || port.peer == sim::kNoNode) continue;
      if (f.node(port.peer).is_switch()) todo.emplace_back(port.peer, port.peer_port);
      else out.insert(f.node(port.peer).ports[port.peer_port].guid.value());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("service: clients reach the SA through the simulated switches (records by RMPP, paths, services)") {
  Bed bed({cli::DrillSm{"H00000", {}, ""}});
  SaClient& a = bed.client("H00005");
  SaClient& b = bed.client("H00030");
  // Every end port's NodeRecord: 32 CAs and 12 switches, in segments the client acknowledged.
  const auto* nodes = bed.ask(a, request(mad::sa_method::get_table, mad::NodeRecord{}, 0));
  REQUIRE(nodes);
  CHECK(nodes->head.header.status == 0);
  CHECK(svctest::records_of<mad::NodeRecord>(*nodes).size() == 44);
  // A path from a to b, as the switches route it.
  mad::PathRecord q;
  q.sgid = bed.gid_of(a);
  q.dgid = bed.gid_of(b);
  const auto* path = bed.ask(a, request(mad::sa_method::get, q, mad::PathRecord::c_sgid | mad::PathRecord::c_dgid));
  REQUIRE(path);
  auto p = svctest::records_of<mad::PathRecord>(*path);
  REQUIRE(p.size() == 1);
  CHECK(p[0].slid == mad::Lid(bed.port_of(a).lid));
  CHECK(p[0].dlid == mad::Lid(bed.port_of(b).lid));
  // a registers a service; b finds it.
  const auto* set = bed.ask(a, request(mad::sa_method::set, service_of(bed.gid_of(a), 0x1000, "demo"), kServiceKey));
  REQUIRE(set);
  CHECK(set->head.header.status == 0);
  const auto seen = services(bed, b);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].name == "demo");
  CHECK(bed.cluster->service(0).services().size() == 1);
}

TEST_CASE("service: the SA answers during a heavy sweep, from the last subnet it indexed") {
  // It held every query until the sweep's end: at 32k CAs on ibsim, 28 of 37 PathRecord queries
  // during heavy sweeps timed out (1 s), the rest waited 1 s.
  Bed bed({cli::DrillSm{"H00000", {}, ""}});
  SaClient& a = bed.client("H00005");
  SaClient& b = bed.client("H00030");
  service::Service& svc = bed.cluster->service(0);
  const sm::SubnetManager& m = svc.manager();
  const uint64_t sweeps = m.sweeps();
  svc.request_sweep("test: a heavy sweep");
  REQUIRE(bed.cluster->run_until([&] { return m.sweeping(); }, 2s));
  mad::PathRecord q;
  q.sgid = bed.gid_of(a);
  q.dgid = bed.gid_of(b);
  const uint64_t tid = a.send(request(mad::sa_method::get, q, mad::PathRecord::c_sgid | mad::PathRecord::c_dgid),
                              mad::Lid(bed.port_of(a).sm_lid));
  REQUIRE(bed.cluster->run_until([&] { return a.answer(tid) != nullptr || !m.sweeping(); }, 5s));
  REQUIRE(a.answer(tid));
  CHECK(m.sweeping());  // answered before the sweep ended
  CHECK(m.sweeps() == sweeps + 1);
  auto p = svctest::records_of<mad::PathRecord>(*a.answer(tid));
  REQUIRE(p.size() == 1);
  CHECK(p[0].dlid == mad::Lid(bed.port_of(b).lid));
}

TEST_CASE("service: clients join the IPoIB broadcast group through the SA; the switches' MFTs carry it") {
  Bed bed({cli::DrillSm{"H00000", {}, ""}});
  SaClient& a = bed.client("H00005");
  SaClient& b = bed.client("H00030");
  const mad::Gid bc = mad::ipoib_broadcast_mgid(0x7FFF);
  using M = mad::McMemberRecord;
  for (SaClient* c : {&a, &b}) {
    M j;
    j.mgid = bc;
    j.port_gid = bed.gid_of(*c);
    j.join_state = mad::join_state::full;
    const auto* r = bed.ask(*c, request(mad::sa_method::set, j, M::c_mgid | M::c_port_gid | M::c_join_state));
    REQUIRE(r);
    CHECK(r->head.header.status == 0);
  }
  // The next tick plans the MFTs for the burst of joins.
  bed.cluster->run_for(100ms);
  const sm::multicast::Group* g = bed.cluster->service(0).multicast().groups().find(bc);
  REQUIRE(g);
  CHECK(g->members.size() == 2);
  const auto from_a = flood(bed.cluster->fabric(), bed.port_of(a), g->mlid);
  CHECK(from_a.count(bed.port_of(b).guid.value()) == 1);
  const auto from_b = flood(bed.cluster->fabric(), bed.port_of(b), g->mlid);
  CHECK(from_b.count(bed.port_of(a).guid.value()) == 1);
}

TEST_CASE("service: a takeover on a shared database keeps SA state; with databases of their own it does not") {
  for (const bool shared : {true, false}) {
    CAPTURE(shared);
    TempDir t;
    sm::SmConfig high, low;
    high.ha.priority = 15;
    low.ha.priority = 10;
    Bed bed({cli::DrillSm{"H00000", high, t.file("a.db")}, cli::DrillSm{"H00001", low, t.file(shared ? "a.db" : "b.db")}});
    REQUIRE(bed.cluster->masters() == std::vector<size_t>{0});
    SaClient& a = bed.client("H00005");
    const auto* set = bed.ask(a, request(mad::sa_method::set, service_of(bed.gid_of(a), 0x2000, "kept"), kServiceKey));
    REQUIRE(set);
    REQUIRE(set->head.header.status == 0);
    // A group created by a (MGID 0: the SA assigns one).
    using M = mad::McMemberRecord;
    M create;
    create.port_gid = bed.gid_of(a);
    create.join_state = mad::join_state::full;
    create.qkey = 0x1234;
    create.pkey = 0xFFFF;
    const uint64_t mask = M::c_mgid | M::c_port_gid | M::c_join_state | M::c_qkey | M::c_pkey | M::c_sl |
                          M::c_flow_label | M::c_tclass;
    const auto* made = bed.ask(a, request(mad::sa_method::set, create, mask));
    REQUIRE(made);
    REQUIRE(made->head.header.status == 0);
    const auto group = svctest::records_of<M>(*made);
    REQUIRE(group.size() == 1);
    bed.cluster->run_for(3s);  // the next flush writes the SA state
    bed.cluster->kill(0);
    REQUIRE(bed.settle());
    REQUIRE(bed.cluster->masters() == std::vector<size_t>{1});
    const auto after = services(bed, a);
    const sm::multicast::Group* g = bed.cluster->service(1).multicast().groups().find(group[0].mgid);
    if (shared) {
      REQUIRE(after.size() == 1);
      CHECK(after[0].name == "kept");
      REQUIRE(g);
      CHECK(g->mlid == group[0].mlid);
    } else {
      CHECK(after.empty());
      CHECK_FALSE(g);
    }
  }
}
