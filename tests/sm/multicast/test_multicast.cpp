// Multicast on a fabric the real SM brought up in the simulator: the IPoIB broadcast group,
// joins and leaves as MCMemberRecord SA MADs, and the MFTs checked on the simulated switches
// themselves (a packet flooded from any member along the programmed masks reaches every
// other member exactly once and never comes back to a switch).
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "tests/sm/harness.h"
#include "mad/multicast_forwarding_table.h"
#include "mad/sa_path_record.h"
#include "sm/multicast/multicast.h"
#include "sm/multicast/tree.h"
#include "sm/sa/queries.h"

namespace {

using namespace std::chrono_literals;
using mad::McMemberRecord;
using M = mad::McMemberRecord;
namespace mc = sm::multicast;

constexpr uint64_t kPrefix = mad::kDefaultGidPrefix;
const mad::Gid kBroadcast = mad::ipoib_broadcast_mgid(0x7FFF);

struct Fixture {
  smtest::Run run;
  sm::Logger log{sm::Level::error};
  mc::Multicast multicast{log};
  std::shared_ptr<const sm::sa::Index> index;

  explicit Fixture(sim::FabricSpec spec) : run(std::move(spec)) {
    run.sm->set_multicast(&multicast);
    REQUIRE(run.until_idle());
    REQUIRE(run.sm->subnet_up());
    reindex();
  }
  void reindex() {
    index = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(run.sm->subnet(), 18));
  }
  mad::Gid gid_of(fabric::NodeId ca) const {
    return mad::Gid(kPrefix, run.topo().port(ca, mad::PortNum(1)).guid.value());
  }
  // One SA request from `ca`'s port, as its IPoIB driver would send it; the answer.
  sm::sa::Answer ask(fabric::NodeId ca, uint8_t method, const M& rec, uint64_t mask) {
    mad::SaMad m;
    m.header.method = method;
    m.header.attr_id = M::kAttrId;
    m.header.tid = ++tid;
    m.comp_mask = mask;
    rec.encode(m.data);
    mad::MadAddress from;
    from.lid = run.topo().port(ca, mad::PortNum(1)).lid;
    sm::sa::Handler* h = &multicast.mcmember_handler();
    return sm::sa::answer_query(index.get(), std::span<sm::sa::Handler* const>(&h, 1), mad::encode_sa_mad(m), from,
                                kPrefix);
  }
  // What IPoIB sends to join the broadcast group (MGID, PortGID, JoinState, and the
  // parameters it learned from a Get).
  // A join (Set) or a leave (Delete) of `ca`'s port.
  sm::sa::Answer member(uint8_t method, fabric::NodeId ca, const mad::Gid& mgid, uint8_t js) {
    M q;
    q.mgid = mgid;
    q.port_gid = gid_of(ca);
    q.join_state = js;
    return ask(ca, method, q, M::c_mgid | M::c_port_gid | M::c_join_state);
  }
  sm::sa::Answer join(fabric::NodeId ca, const mad::Gid& mgid, uint8_t js = mad::join_state::full) {
    return member(mad::sa_method::set, ca, mgid, js);
  }
  sm::sa::Answer leave(fabric::NodeId ca, const mad::Gid& mgid, uint8_t js = mad::join_state::full) {
    return member(mad::sa_method::del, ca, mgid, js);
  }
  uint64_t tid = 0;
};

// The mask of `mlid` on a simulated switch.
std::bitset<256> sim_mask(const sim::SimNode& n, mad::Lid mlid) {
  std::bitset<256> out;
  const auto& sw = *n.sw;
  if (sw.mft.empty()) return out;
  const size_t positions = (static_cast<size_t>(n.num_ports) + 16) / 16;
  const size_t off = mlid.value() - 0xC000u;
  for (size_t p = 0; p < positions; ++p)
    out |= std::bitset<256>(sw.mft[off * positions + p]) << (16 * p);
  return out;
}

struct Flood {
  std::map<uint64_t, int> delivered;  // CA port GUID -> copies
  bool loop = false;
};

// A packet from CA `src` flooded along the simulated switches' MFTs.
Flood flood(const sim::SimFabric& f, sim::NodeIdx src, mad::Lid mlid) {
  Flood out;
  std::set<sim::NodeIdx> seen;
  std::vector<std::pair<sim::NodeIdx, uint8_t>> todo;  // (switch, port it came in by)
  const sim::SimPort& sp = f.node(src).ports[1];
  if (sp.peer == sim::kNoNode) return out;
  todo.emplace_back(sp.peer, sp.peer_port);
  while (!todo.empty()) {
    auto [sw, in] = todo.back();
    todo.pop_back();
    if (!seen.insert(sw).second) {
      out.loop = true;
      continue;
    }
    const sim::SimNode& n = f.node(sw);
    const auto mask = sim_mask(n, mlid);
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      if (!mask.test(p) || p == in) continue;
      const sim::SimPort& port = n.ports[p];
      if (port.peer == sim::kNoNode) continue;
      const sim::SimNode& peer = f.node(port.peer);
      if (peer.is_switch()) todo.emplace_back(port.peer, port.peer_port);
      else ++out.delivered[peer.ports[port.peer_port].guid.value()];
    }
  }
  return out;
}

// Every receiving member gets exactly one copy from every member; nothing else does.
void check_reaches(const Fixture& fx, const mc::Group& g) {
  const auto& f = *fx.run.fabric;
  std::set<uint64_t> receivers;
  for (const auto& [gid, js] : g.members)
    if (js & (mad::join_state::full | mad::join_state::non)) receivers.insert(gid.interface_id());
  size_t sources = 0;
  for (const auto& [gid, js] : g.members) {
    const sim::NodeIdx src = *f.find_guid(fx.run.topo().node(*fx.run.topo().find_port(gid.guid())).guid);
    const Flood fl = flood(f, src, g.mlid);
    CHECK_FALSE(fl.loop);
    for (uint64_t r : receivers) {
      if (r == gid.interface_id()) continue;
      INFO("member " << std::hex << r << " from " << gid.interface_id());
      CHECK(fl.delivered.count(r) == 1);
      if (fl.delivered.count(r)) CHECK(fl.delivered.at(r) == 1);
    }
    for (const auto& [guid, n] : fl.delivered) CHECK(receivers.count(guid) == 1);
    ++sources;
  }
  CHECK(sources == g.members.size());
}

// The switches' MFTs are exactly the trees: on-tree switches hold the tree's mask, every
// other switch nothing for the MLID.
void check_mfts_match(const Fixture& fx, const mc::Group& g) {
  const auto& t = fx.run.topo();
  const mc::GroupTree tree = mc::build_tree(t, g);
  std::map<uint64_t, mc::PortMask> want;
  for (const auto& [sw, mask] : tree.switches) want[t.node(sw).guid.value()] = mask;
  for (const auto& n : fx.run.fabric->nodes()) {
    if (!n.is_switch()) continue;
    auto it = want.find(n.guid.value());
    CHECK(sim_mask(n, g.mlid) == (it == want.end() ? mc::PortMask() : it->second));
  }
}

size_t tree_switches(const Fixture& fx, const mc::Group& g) {
  size_t n = 0;
  for (const auto& node : fx.run.fabric->nodes())
    if (node.is_switch() && sim_mask(node, g.mlid).any()) ++n;
  return n;
}

}  // namespace

TEST_CASE("multicast: the IPoIB broadcast group after SUBNET UP; every CA joins; trees reach all members once") {
  Fixture fx(*sim::make_fat_tree(2, 8));
  const mc::Group* bc = fx.multicast.groups().find(kBroadcast);
  REQUIRE(bc);
  CHECK(bc->mlid == mad::Lid(0xC000));
  CHECK(bc->kept);
  CHECK(bc->params.pkey == 0xFFFF);
  CHECK(bc->params.qkey == 0x0B1B);
  CHECK(bc->params.mtu == 4);
  CHECK(bc->params.rate == 3);

  // `saquery -g`: GetTable, no components: the group, port GID 0, exact selectors.
  const auto& t = fx.run.topo();
  const fabric::NodeId first = t.cas()[0];
  auto a = fx.ask(first, mad::sa_method::get_table, M{}, 0);
  REQUIRE(a.response.header.status == mad::status::ok);
  REQUIRE(a.payload.size() >= M::kSize);
  auto rec = M::decode(std::span(a.payload).first(M::kSize));
  REQUIRE(rec);
  CHECK(rec->mgid == kBroadcast);
  CHECK(rec->mlid == mad::Lid(0xC000));
  CHECK(rec->port_gid.is_zero());
  CHECK(rec->join_state == 0);  // a group record names no member: JoinState 0, as OpenSM answers
  CHECK(rec->mtu_selector == mad::selector::exactly);
  CHECK(rec->mgid.str() == "ff12:401b:ffff::ffff:ffff");

  // Every CA joins; the MFTs follow at the next tick, in one pass.
  auto& reps = fx.run.record();
  for (fabric::NodeId ca : t.cas()) {
    auto j = fx.join(ca, kBroadcast);
    REQUIRE(j.response.header.status == mad::status::ok);
    CHECK(M::decode(j.response.data)->mlid == mad::Lid(0xC000));
  }
  CHECK(fx.multicast.wants_programming());
  REQUIRE(fx.run.run_for(50ms));
  CHECK_FALSE(fx.multicast.wants_programming());
  CHECK(reps.empty());  // no sweep for it
  bc = fx.multicast.groups().find(kBroadcast);
  REQUIRE(bc->members.size() == t.cas().size());
  CHECK(fx.multicast.last_stats().blocks_written > 0);
  CHECK(fx.multicast.last_stats().failures == 0);
  check_reaches(fx, *bc);
  check_mfts_match(fx, *bc);
  // Every switch of a two-level tree whose leaves all have members is on the tree.
  const size_t full_tree = tree_switches(fx, *bc);
  CHECK(full_tree > 1);

  // A second pass (a sweep with nothing changed) writes no MFT block.
  REQUIRE(fx.run.sweep_again());
  REQUIRE(!reps.empty());
  CHECK(reps.back().up);
  CHECK(reps.back().mft_blocks == 0);

  // Leaves: the CAs of one leaf switch go; the tree shrinks, the rest still reach each other.
  const fabric::Port& p0 = t.port(first, mad::PortNum(1));
  const fabric::NodeId leaf = p0.peer;
  for (fabric::NodeId ca : t.cas())
    if (t.port(ca, mad::PortNum(1)).peer == leaf) REQUIRE(fx.leave(ca, kBroadcast).response.header.status == mad::status::ok);
  REQUIRE(fx.run.run_for(50ms));
  bc = fx.multicast.groups().find(kBroadcast);
  REQUIRE(bc);  // kept: the SM's broadcast group stays, even empty
  CHECK(tree_switches(fx, *bc) < full_tree);
  check_reaches(fx, *bc);
  check_mfts_match(fx, *bc);
  // Leaving twice: not a member any more.
  CHECK(fx.leave(first, kBroadcast).response.header.status == mad::sa_status::req_invalid);
}

TEST_CASE("multicast: a link failure and the re-sweep keep every member reached") {
  Fixture fx(smtest::load("ft2-r8.net"));
  const auto& t = fx.run.topo();
  for (fabric::NodeId ca : t.cas()) REQUIRE(fx.join(ca, kBroadcast).response.header.status == mad::status::ok);
  REQUIRE(fx.run.run_for(50ms));
  const mc::Group* bc = fx.multicast.groups().find(kBroadcast);
  check_reaches(fx, *bc);
  // Cut a switch-to-switch link that the tree uses.
  const mc::GroupTree tree = mc::build_tree(t, *bc);
  std::optional<std::pair<mad::Guid, uint8_t>> cut;
  for (const auto& [sw, mask] : tree.switches)
    for (uint8_t p = 1; p <= t.node(sw).num_ports && !cut; ++p)
      if (mask.test(p) && t.port(sw, mad::PortNum(p)).linked() && t.node(t.port(sw, mad::PortNum(p)).peer).is_switch())
        cut = std::make_pair(t.node(sw).guid, p);
  REQUIRE(cut);
  REQUIRE(fx.run.fabric->link_down(*fx.run.fabric->find_guid(cut->first), cut->second));
  REQUIRE(fx.run.run_for(2s));
  CHECK(fx.run.sm->subnet_up());
  CHECK(fx.multicast.last_stats().failures == 0);
  check_reaches(fx, *fx.multicast.groups().find(kBroadcast));
  check_mfts_match(fx, *fx.multicast.groups().find(kBroadcast));
}

TEST_CASE("multicast: a CA that leaves the fabric leaves its groups; a group it alone held goes") {
  Fixture fx(smtest::load("ft2-r8.net"));
  const auto& t = fx.run.topo();
  const fabric::NodeId a = t.cas().back(), b = t.cas()[t.cas().size() - 2];  // neither is the SM's
  REQUIRE(a != t.sm_node());
  REQUIRE(b != t.sm_node());
  const mad::Guid a_guid = t.node(a).guid;
  REQUIRE(fx.join(a, kBroadcast).response.header.status == mad::status::ok);
  REQUIRE(fx.join(b, kBroadcast).response.header.status == mad::status::ok);
  const mad::Gid own = mad::Gid(0xFF12A01B00000000ULL, 0x42);  // a group only `a` is in
  M create;
  create.mgid = own;
  create.port_gid = fx.gid_of(a);
  create.join_state = mad::join_state::full;
  create.qkey = 0x1234;
  create.pkey = 0xFFFF;
  const uint64_t mask = M::c_mgid | M::c_port_gid | M::c_join_state | M::c_qkey | M::c_pkey | M::c_sl |
                        M::c_flow_label | M::c_tclass;
  REQUIRE(fx.ask(a, mad::sa_method::set, create, mask).response.header.status == mad::status::ok);
  REQUIRE(fx.run.run_for(50ms));
  const mad::Gid a_gid = fx.gid_of(a), b_gid = fx.gid_of(b);
  REQUIRE(fx.multicast.groups().find(kBroadcast)->members.count(a_gid));

  REQUIRE(fx.run.fabric->remove_node(*fx.run.fabric->find_guid(a_guid)));
  REQUIRE(fx.run.run_for(2s));
  CHECK(fx.run.sm->subnet_up());
  CHECK_FALSE(fx.run.topo().find_port(a_gid.guid()));
  const mc::Group* bc = fx.multicast.groups().find(kBroadcast);
  REQUIRE(bc);  // kept: the partition's broadcast group
  CHECK_FALSE(bc->members.count(a_gid));
  CHECK(bc->members.count(b_gid));
  CHECK(fx.multicast.groups().find(own) == nullptr);
  check_mfts_match(fx, *bc);
}

TEST_CASE("multicast: create with MGID 0, send-only members, and the IBA statuses of bad requests") {
  Fixture fx(*sim::make_fat_tree(2, 4));
  const auto& t = fx.run.topo();
  const fabric::NodeId a = t.cas()[0], b = t.cas()[1], c = t.cas().back();
  M q;
  q.port_gid = fx.gid_of(a);
  q.qkey = 0x1234;
  q.pkey = 0xFFFF;
  q.sl = 0;
  q.flow_label = 0;
  q.tclass = 0;
  q.join_state = mad::join_state::full;
  q.mtu_selector = mad::selector::exactly;
  q.mtu = 5;
  const uint64_t create = M::c_mgid | M::c_port_gid | M::c_qkey | M::c_pkey | M::c_sl | M::c_flow_label | M::c_tclass |
                          M::c_join_state | M::c_mtu | M::c_mtu_selector;
  // Missing Q_Key: insufficient components, nothing created.
  auto r = fx.ask(a, mad::sa_method::set, q, create & ~M::c_qkey);
  CHECK(r.response.header.status == mad::sa_status::insufficient_components);
  CHECK(fx.multicast.groups().groups().size() == 1);
  // A port GID that is not in the subnet.
  M bad = q;
  bad.port_gid = mad::Gid(kPrefix, 0x1234567);
  CHECK(fx.ask(a, mad::sa_method::set, bad, create).response.header.status == mad::sa_status::invalid_gid);
  // Creating as a send-only member, or with JoinState 0.
  bad = q;
  bad.join_state = mad::join_state::send_only_non;
  CHECK(fx.ask(a, mad::sa_method::set, bad, create).response.header.status == mad::sa_status::req_invalid);
  bad.join_state = 0;
  CHECK(fx.ask(a, mad::sa_method::set, bad, create).response.header.status == mad::sa_status::req_invalid);
  // An MGID that is not multicast.
  bad = q;
  bad.mgid = mad::Gid(kPrefix, 1);
  CHECK(fx.ask(a, mad::sa_method::set, bad, create).response.header.status == mad::sa_status::req_invalid);
  // Unknown component bits.
  CHECK(fx.ask(a, mad::sa_method::get_table, q, 1ull << 40).response.header.status == mad::sa_status::req_invalid);
  CHECK(fx.multicast.groups().groups().size() == 1);

  // MGID 0: the SA assigns ff12:a01b:<prefix>:<n> and the next free MLID.
  r = fx.ask(a, mad::sa_method::set, q, create);
  REQUIRE(r.response.header.status == mad::status::ok);
  auto made = M::decode(r.response.data);
  REQUIRE(made);
  CHECK(made->mgid.is_multicast());
  CHECK(made->mgid.mc_signature() == 0xA01B);
  CHECK(made->mlid == mad::Lid(0xC001));
  CHECK(made->mtu == 5);
  CHECK(made->qkey == 0x1234);
  const mad::Gid mgid = made->mgid;

  // b joins with a conflicting Q_Key: REQ_INVALID; with the right one (and MTU "greater than
  // 2048"): fine. c joins send-only: it can send, it gets nothing.
  M j;
  j.mgid = mgid;
  j.port_gid = fx.gid_of(b);
  j.join_state = mad::join_state::full;
  j.qkey = 0x9999;
  CHECK(fx.ask(b, mad::sa_method::set, j, M::c_mgid | M::c_port_gid | M::c_join_state | M::c_qkey)
            .response.header.status == mad::sa_status::req_invalid);
  j.qkey = 0x1234;
  j.mtu = 4;
  j.mtu_selector = mad::selector::greater_than;
  CHECK(fx.ask(b, mad::sa_method::set, j,
               M::c_mgid | M::c_port_gid | M::c_join_state | M::c_qkey | M::c_mtu | M::c_mtu_selector)
            .response.header.status == mad::status::ok);
  j.mtu_selector = mad::selector::less_than;  // "less than 2048" does not fit a 4096 group
  j.port_gid = fx.gid_of(c);
  CHECK(fx.ask(c, mad::sa_method::set, j, M::c_mgid | M::c_port_gid | M::c_join_state | M::c_mtu | M::c_mtu_selector)
            .response.header.status == mad::sa_status::req_invalid);
  REQUIRE(fx.join(c, mgid, mad::join_state::send_only_non).response.header.status == mad::status::ok);
  REQUIRE(fx.run.run_for(50ms));
  const mc::Group* g = fx.multicast.groups().find(mgid);
  REQUIRE(g);
  CHECK(g->members.size() == 3);
  check_reaches(fx, *g);  // c's packets reach a and b; c receives nothing
  check_mfts_match(fx, *g);

  // Get by MGID and PortGID: the member's own record.
  M get;
  get.mgid = mgid;
  get.port_gid = fx.gid_of(c);
  r = fx.ask(c, mad::sa_method::get, get, M::c_mgid | M::c_port_gid);
  REQUIRE(r.response.header.status == mad::status::ok);
  CHECK(M::decode(r.response.data)->join_state == mad::join_state::send_only_non);

  // The full members leave: the group goes (c, send-only, does not keep it), its MFT entries too.
  REQUIRE(fx.leave(a, mgid).response.header.status == mad::status::ok);
  CHECK(fx.multicast.groups().find(mgid));
  REQUIRE(fx.leave(b, mgid).response.header.status == mad::status::ok);
  CHECK_FALSE(fx.multicast.groups().find(mgid));
  REQUIRE(fx.run.run_for(50ms));
  CHECK_FALSE(fx.multicast.wants_programming());
  for (const auto& n : fx.run.fabric->nodes())
    if (n.is_switch()) CHECK(sim_mask(n, mad::Lid(0xC001)).none());
  CHECK(fx.leave(a, mgid).response.header.status == mad::sa_status::req_invalid);
}

TEST_CASE("multicast: groups come back from their store records with the same MLIDs") {
  sm::Logger log(sm::Level::error);
  mc::Multicast before(log);
  before.ensure_partition_groups();
  mc::GroupParams p;
  p.qkey = 7;
  std::vector<mad::Gid> mgids;
  for (uint64_t i = 1; i <= 3; ++i) {
    mgids.push_back(mad::Gid(0xFF12A01B00000000ULL, i));
    REQUIRE(before.groups().create(mgids.back(), p, false));
    before.groups().set_member(mgids.back(), mad::Gid(kPrefix, 100 + i), mad::join_state::full);
  }
  before.groups().erase(mgids[1]);  // MLID 0xC002 free
  std::vector<std::vector<uint8_t>> stored;
  for (auto& [key, rec] : before.take_store_changes())
    if (!rec.empty()) stored.push_back(rec);
  REQUIRE(stored.size() == 3);  // broadcast, 1, 3

  // A corrupt record is refused with a message and skipped.
  std::vector<uint8_t> broken = stored[0];
  broken.pop_back();
  stored.push_back(broken);
  mc::Multicast after(log);
  CHECK(after.restore(stored) == 3);
  after.ensure_partition_groups();
  for (const auto& [mgid, g] : before.groups().groups()) {
    const mc::Group* back = after.groups().find(mgid);
    REQUIRE(back);
    CHECK(*back == g);
  }
  CHECK(after.take_store_changes().empty());
  // A new group takes the hole left by the deleted one.
  auto g = after.groups().create(mad::Gid(0xFF12A01B00000000ULL, 9), p, false);
  REQUIRE(g);
  CHECK((*g)->mlid == mad::Lid(0xC002));
}
