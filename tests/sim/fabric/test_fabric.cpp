#include <doctest/doctest.h>

#include "tests/sim/fabric/helpers.h"

using namespace simtest;
using namespace mad;

namespace {

// H1 - S1 = S2 - H2 (S1[5]-S2[5] and S1[6]-S2[6]); the SM sits on H1.
struct Line {
  std::unique_ptr<sim::SimFabric> f;
  sim::EndpointId ep;
  std::unique_ptr<sim::SimTransport> t;
  Line() {
    auto built = sim::SimFabric::build(
        spec({"H1", "S1", "S2", "H2"},
             {{"H1", 1, "S1", 1}, {"S1", 5, "S2", 5}, {"S1", 6, "S2", 6}, {"S2", 1, "H2", 1}}));
    REQUIRE(built);
    f = std::move(*built);
    ep = *f->attach(*f->find("H1"), 1);
    t = std::make_unique<sim::SimTransport>(*f, ep);
  }
  std::optional<Smp> get(uint16_t attr, uint32_t mod, const DrPath& p) {
    return exchange(*f, *t, make_dr_smp(method::get, attr, mod, p));
  }
  uint16_t set_port(const DrPath& p, uint8_t port, PortInfo pi) {
    Smp s = make_dr_smp(method::set, attr::port_info, port, p);
    s.data = encode_attr(pi);
    auto r = exchange(*f, *t, s);
    REQUIRE(r);
    return r->status;
  }
  PortInfo port(const DrPath& p, uint8_t n) {
    auto r = get(attr::port_info, n, p);
    REQUIRE(r);
    return *PortInfo::decode(r->data);
  }
  uint16_t set(uint16_t attr, uint32_t mod, const DrPath& p, const SmpData& data) {
    Smp s = make_dr_smp(method::set, attr, mod, p);
    s.data = data;
    auto r = exchange(*f, *t, s);
    REQUIRE(r);
    return r->status;
  }

  // LIDs H1 1, S1 2, S2 3, H2 4; the H1-S1-S2-H2 line (S1-S2 by port 5) brought to Active.
  void bring_up_line() {
    auto set_lid = [&](const DrPath& p, uint8_t n, uint16_t lid) {
      PortInfo pi = port(p, n);
      pi.lid = Lid(lid);
      pi.master_sm_lid = Lid(1);
      pi.port_state = PortState::no_change;
      CHECK(set_port(p, n, pi) == status::ok);
    };
    set_lid(DrPath(), 1, 1);
    set_lid(path({1}), 0, 2);
    set_lid(path({1, 5}), 0, 3);
    set_lid(path({1, 5, 1}), 1, 4);
    auto activate = [&](const DrPath& p, uint8_t n, PortState s) {
      PortInfo pi = port(p, n);
      pi.port_state = s;
      CHECK(set_port(p, n, pi) == status::ok);
    };
    for (PortState s : {PortState::armed, PortState::active}) {
      activate(DrPath(), 1, s);
      activate(path({1}), 1, s);
      activate(path({1}), 5, s);
      activate(path({1, 5}), 5, s);
      activate(path({1, 5}), 1, s);
      activate(path({1, 5, 1}), 1, s);
    }
  }
  // LFT block 0 = `ports` (from LID 0; the rest unreachable), LinearFDBTop = the last LID.
  void set_lft(const DrPath& p, std::vector<uint8_t> ports) {
    LinearForwardingTable lft;
    lft.ports.fill(LinearForwardingTable::kUnreachable);
    for (size_t i = 0; i < ports.size(); ++i) lft.ports[i] = PortNum(ports[i]);
    CHECK(set(attr::linear_fwd_table, 0, p, encode_attr(lft)) == status::ok);
    SwitchInfo si;
    si.linear_fdb_top = Lid(static_cast<uint16_t>(ports.size() - 1));
    CHECK(set(attr::switch_info, 0, p, encode_attr(si)) == status::ok);
  }
  std::optional<Smp> by_lid(uint16_t lid) {
    return exchange(*f, *t, make_lid_smp(method::get, attr::node_info, 0), Lid(lid));
  }
};

}  // namespace

TEST_CASE("directed route reaches each node and the answer says who and where") {
  Line l;
  auto local = l.get(attr::node_info, 0, DrPath());
  REQUIRE(local);
  auto ni = NodeInfo::decode(local->data);
  CHECK(ni->node_type == NodeType::ca);
  CHECK(ni->node_guid == Guid(0x100000));  // ibsim's numbering
  CHECK(ni->port_guid == Guid(0x100001));
  CHECK(local->direction);
  CHECK(local->method == method::get_resp);

  auto s2 = l.get(attr::node_info, 0, path({1, 6}));
  REQUIRE(s2);
  ni = NodeInfo::decode(s2->data);
  CHECK(ni->node_type == NodeType::sw);
  CHECK(ni->node_guid == Guid(0x200001));
  CHECK(ni->local_port_num == PortNum(6));  // it came in by port 6
  CHECK(s2->return_path[1] == 1);           // S1's port toward H1
  CHECK(s2->return_path[2] == 6);

  auto h2 = l.get(attr::node_description, 0, path({1, 5, 1}));
  REQUIRE(h2);
  CHECK(NodeDescription::decode(h2->data)->text == "H2");

  CHECK_FALSE(l.get(attr::node_info, 0, path({1, 7})));     // nothing cabled there
  CHECK_FALSE(l.get(attr::node_info, 0, path({2})));        // a CA sends only out of its SM's port
  CHECK_FALSE(l.get(attr::node_info, 0, path({1, 5, 1, 1})));  // a CA does not forward
}

TEST_CASE("port states follow the hardware rules, one step at a time") {
  Line l;
  const DrPath s1 = path({1});
  CHECK(l.port(s1, 5).port_state == PortState::init);
  CHECK(l.port(s1, 0).port_state == PortState::active);  // switch management port
  CHECK(l.port(s1, 7).port_state == PortState::down);

  PortInfo want = l.port(s1, 5);
  want.port_state = PortState::active;
  CHECK(l.set_port(s1, 5, want) == status::invalid_field);  // Init -> Active: no
  CHECK(l.port(s1, 5).port_state == PortState::init);
  want.port_state = PortState::armed;
  CHECK(l.set_port(s1, 5, want) == status::ok);
  want.port_state = PortState::active;
  CHECK(l.set_port(s1, 5, want) == status::invalid_field);  // the peer is still Init
  PortInfo peer = l.port(path({1, 5}), 5);
  peer.port_state = PortState::armed;
  CHECK(l.set_port(path({1, 5}), 5, peer) == status::ok);
  CHECK(l.set_port(s1, 5, want) == status::ok);
  CHECK(l.port(s1, 5).port_state == PortState::active);
  CHECK(l.set_port(s1, 5, want) == status::invalid_field);  // Active -> Active: no
  want.port_state = PortState::armed;
  CHECK(l.set_port(s1, 7, want) == status::invalid_field);  // a down port
}

TEST_CASE("a refused PortInfo Set changes nothing") {
  Line l;
  PortInfo want = l.port(DrPath(), 1);
  want.lid = Lid(42);
  want.port_state = PortState::active;  // invalid from Init
  CHECK(l.set_port(DrPath(), 1, want) == status::invalid_field);
  CHECK(l.port(DrPath(), 1).lid == Lid(0));
  want.port_state = PortState::no_change;
  want.master_sm_lid = Lid(42);
  CHECK(l.set_port(DrPath(), 1, want) == status::ok);
  CHECK(l.port(DrPath(), 1).lid == Lid(42));
  CHECK(l.port(DrPath(), 1).master_sm_lid == Lid(42));
}

TEST_CASE("LID routing follows programmed LFTs over Active links only") {
  Line l;
  l.bring_up_line();
  //                   LID: 0     1  2  3  4
  l.set_lft(path({1}), {0xFF, 1, 0, 5, 5});
  l.set_lft(path({1, 5}), {0xFF, 5, 5, 0, 1});
  auto r = l.by_lid(4);
  REQUIRE(r);
  CHECK(NodeInfo::decode(r->data)->node_guid == Guid(0x100002));
  REQUIRE(l.by_lid(3));
  CHECK(NodeInfo::decode(l.by_lid(3)->data)->node_guid == Guid(0x200001));
  CHECK_FALSE(l.by_lid(5));  // beyond LinearFDBTop
  // Through port 6 (still Init) nothing gets by.
  l.set_lft(path({1}), {0xFF, 1, 0, 6, 6});
  CHECK_FALSE(l.by_lid(4));
  CHECK(l.f->stats().dropped_no_route > 0);
}

TEST_CASE("a programmed 0xFF LFT entry drops a LID-routed MAD; the other LIDs still get through") {
  Line l;
  l.bring_up_line();
  l.set_lft(path({1}), {0xFF, 1, 0, 5, 0xFF});  // LID 4 (H2) <= LinearFDBTop, but unreachable
  l.set_lft(path({1, 5}), {0xFF, 5, 5, 0, 1});
  REQUIRE(l.by_lid(3));
  const uint64_t dropped = l.f->stats().dropped_no_route;
  CHECK_FALSE(l.by_lid(4));
  CHECK(l.f->stats().dropped_no_route == dropped + 1);
  l.set_lft(path({1}), {0xFF, 1, 0, 5, 5});  // the same route with a port: it answers
  REQUIRE(l.by_lid(4));
  CHECK(NodeInfo::decode(l.by_lid(4)->data)->node_guid == Guid(0x100002));
}

// GMPs (an SA query, a Report) are for the agents behind QP1: the endpoint attached at the
// port that owns the DLID gets them; without one they are dropped, never handed to the SMA.
TEST_CASE("a LID-routed GMP reaches the endpoint at its DLID, and nothing else") {
  Line l;
  l.bring_up_line();
  l.set_lft(path({1}), {0xFF, 1, 0, 5, 5});
  l.set_lft(path({1, 5}), {0xFF, 5, 5, 0, 1});
  mad::Packet q;
  q.mad[0] = 1;     // base version
  q.mad[1] = 0x03;  // SA
  q.mad[2] = 2;
  q.mad[3] = 0x01;  // Get
  q.addr.lid = Lid(4);
  q.addr.qpn = 1;
  // H2 has no endpoint: dropped, and its SMA does not answer it.
  const uint64_t dropped = l.f->stats().dropped_no_route;
  (void)l.t->send(q);
  std::vector<mad::Packet> in;
  (void)l.t->receive(in, l.f->now() + std::chrono::milliseconds(1));
  CHECK(in.empty());
  CHECK(l.f->stats().dropped_no_route == dropped + 1);
  // An endpoint there (a client process): it gets the MAD, with the sender's LID.
  const sim::EndpointId h2 = *l.f->attach(*l.f->find("H2"), 1);
  (void)l.t->send(q);
  l.f->run_until(l.f->now() + std::chrono::milliseconds(1));
  REQUIRE(l.f->inbox(h2).size() == 1);
  CHECK(l.f->inbox(h2)[0].mad[1] == 0x03);
  CHECK(l.f->inbox(h2)[0].addr.lid == Lid(1));
}

TEST_CASE("an LFT block at or past LinearFDBCap is refused and nothing is stored") {
  Line l;
  const DrPath s1 = path({1});
  auto si = l.get(attr::switch_info, 0, s1);
  REQUIRE(si);
  const uint16_t cap = SwitchInfo::decode(si->data)->linear_fdb_cap;
  REQUIRE(cap == 49152);  // ibsim's LinearFDBCap: blocks 0..767
  LinearForwardingTable lft;
  lft.ports.fill(PortNum(5));
  const uint32_t last = cap / 64u - 1u;
  CHECK(l.set(attr::linear_fwd_table, last, s1, encode_attr(lft)) == status::ok);
  CHECK(l.set(attr::linear_fwd_table, last + 1, s1, encode_attr(lft)) == status::invalid_field);
  CHECK(l.set(attr::linear_fwd_table, 0xFFFF, s1, encode_attr(lft)) == status::invalid_field);
  CHECK(l.f->node(*l.f->find("S1")).sw->lft.size() == cap);  // grown to the last good block only
  auto past = l.get(attr::linear_fwd_table, last + 1, s1);
  REQUIRE(past);
  CHECK(past->status == status::invalid_field);
  // A smaller LinearFDBCap (SimConfig) moves the limit with it.
  auto small = sim::SimFabric::build(spec({"H1", "S1"}, {{"H1", 1, "S1", 1}}),
                                     sim::SimConfig{.lft_cap = 128});
  REQUIRE(small);
  sim::SimTransport t(**small, *(*small)->attach(0, 1));
  Smp s = make_dr_smp(method::set, attr::linear_fwd_table, 1, s1);
  s.data = encode_attr(lft);
  CHECK(exchange(**small, t, s)->status == status::ok);
  s.attr_mod = 2;
  CHECK(exchange(**small, t, s)->status == status::invalid_field);
}

TEST_CASE("MulticastForwardingTable Set/Get: each block and position holds its own port masks") {
  // A 20-port switch has two 16-port positions per MLID.
  auto built = sim::SimFabric::build(spec({"H1", "S1"}, {{"H1", 1, "S1", 1}}, 20));
  REQUIRE(built);
  auto& f = **built;
  sim::SimTransport t(f, *f.attach(0, 1));
  const DrPath s1 = path({1});
  auto mft_smp = [&](uint8_t m, uint16_t block, uint8_t position) {
    return make_dr_smp(m, attr::multicast_fwd_table, mft_attr_mod(block, position), s1);
  };
  auto get = [&](uint16_t block, uint8_t position) {
    auto r = exchange(f, t, mft_smp(method::get, block, position));
    REQUIRE(r);
    REQUIRE(r->status == status::ok);
    return *MulticastForwardingTable::decode(r->data);
  };
  CHECK(get(1, 0) == MulticastForwardingTable{});  // empty before the first Set

  MulticastForwardingTable low, high;
  for (size_t i = 0; i < MulticastForwardingTable::kEntries; ++i) {
    low.port_masks[i] = static_cast<uint16_t>(0x0003 << (i % 8));  // ports 0-15
    high.port_masks[i] = static_cast<uint16_t>(i % 2 ? 0x000F : 0x0010);  // ports 16-20
  }
  Smp s = mft_smp(method::set, 1, 0);
  s.data = encode_attr(low);
  auto r = exchange(f, t, s);
  REQUIRE(r);
  CHECK(r->status == status::ok);
  CHECK(*MulticastForwardingTable::decode(r->data) == low);  // the response echoes the block
  s = mft_smp(method::set, 1, 1);
  s.data = encode_attr(high);
  CHECK(exchange(f, t, s)->status == status::ok);
  s = mft_smp(method::set, 31, 0);  // the last block (MulticastFDBCap 1024 = 32 blocks)
  s.data = encode_attr(high);
  CHECK(exchange(f, t, s)->status == status::ok);

  CHECK(get(1, 0) == low);
  CHECK(get(1, 1) == high);
  CHECK(get(31, 0) == high);
  CHECK(get(0, 0) == MulticastForwardingTable{});  // neighbours untouched
  CHECK(get(2, 1) == MulticastForwardingTable{});

  s = mft_smp(method::set, 32, 0);  // past MulticastFDBCap
  s.data = encode_attr(low);
  CHECK(exchange(f, t, s)->status == status::invalid_field);
  s = mft_smp(method::set, 1, 2);  // ports 32-47: the switch has none
  CHECK(exchange(f, t, s)->status == status::invalid_field);
  CHECK(get(1, 0) == low);
  // A CA has no MFT.
  Line l;
  CHECK(l.get(attr::multicast_fwd_table, 0, DrPath())->status == status::unsupported_method_attr);
}

TEST_CASE("P_KeyTable Set/Get: a CA's blocks, a switch's ports, entries beyond the table") {
  Line l;
  auto pkeys = [&](uint32_t mod, const DrPath& p) {
    auto r = l.get(attr::pkey_table, mod, p);
    REQUIRE(r);
    REQUIRE(r->status == status::ok);
    return *PKeyTable::decode(r->data);
  };
  // A CA port: PartitionCap 64 = blocks 0 and 1, entry 0 the default partition.
  PKeyTable fresh;
  fresh.pkeys[0] = kDefaultPKey;
  CHECK(pkeys(pkey_attr_mod(0), DrPath()) == fresh);
  PKeyTable want;
  want.pkeys[0] = kDefaultPKey;
  want.pkeys[1] = 0x8001;  // full member of 0x0001
  want.pkeys[31] = 0x0002;  // limited member of 0x0002
  CHECK(l.set(attr::pkey_table, pkey_attr_mod(1), DrPath(), encode_attr(want)) == status::ok);
  CHECK(pkeys(pkey_attr_mod(1), DrPath()) == want);
  CHECK(pkeys(pkey_attr_mod(0), DrPath()) == fresh);  // block 0 untouched
  CHECK(l.set(attr::pkey_table, pkey_attr_mod(2), DrPath(), encode_attr(want)) ==
        status::invalid_field);  // past PartitionCap

  // A switch port: its table is PartitionEnforcementCap (8) long; the port is in the modifier.
  const DrPath s1 = path({1});
  CHECK(l.set(attr::pkey_table, pkey_attr_mod(0, PortNum(5)), s1, encode_attr(want)) == status::ok);
  PKeyTable kept;  // entries 8-31 are past the table: not stored, read back as 0
  std::copy_n(want.pkeys.begin(), 8, kept.pkeys.begin());
  CHECK(pkeys(pkey_attr_mod(0, PortNum(5)), s1) == kept);
  CHECK(pkeys(pkey_attr_mod(0, PortNum(6)), s1) == fresh);  // other ports keep their own
  CHECK(l.set(attr::pkey_table, pkey_attr_mod(1, PortNum(5)), s1, encode_attr(want)) ==
        status::invalid_field);
  CHECK(l.set(attr::pkey_table, pkey_attr_mod(0, PortNum(9)), s1, encode_attr(want)) ==
        status::invalid_field);  // no port 9
}

TEST_CASE("faults: a link going down drops DR traffic through it and comes back in Init") {
  Line l;
  const auto s1 = *l.f->find("S1");
  REQUIRE(l.f->link_down(s1, 5));
  CHECK_FALSE(l.get(attr::node_info, 0, path({1, 5})));
  CHECK(l.get(attr::node_info, 0, path({1, 6})));
  auto si = l.get(attr::switch_info, 0, path({1}));
  CHECK(SwitchInfo::decode(si->data)->port_state_change);
  CHECK(l.port(path({1}), 5).port_state == PortState::down);
  REQUIRE(l.f->link_up(s1, 5));
  CHECK(l.port(path({1}), 5).port_state == PortState::init);
  CHECK(l.get(attr::node_info, 0, path({1, 5})));
  CHECK_FALSE(l.f->link_down(s1, 9));  // no such port
}

TEST_CASE("a port Set to Down retrains: both switches at its ends flag PortStateChange") {
  Line l;
  // S2 port 1 faces the CA H2: without the flag on S2 nobody would see the port come back in Init.
  PortInfo down = l.port(path({1, 5}), 1);
  down.port_state = PortState::down;
  down.phys_state = mad::PhysState::no_change;
  down.link_width_enabled = down.link_speed_enabled = down.link_speed_ext_enabled = 0;
  SwitchInfo clear = *SwitchInfo::decode(l.get(attr::switch_info, 0, path({1, 5}))->data);
  clear.port_state_change = true;  // writing 1 clears it
  REQUIRE(l.set(attr::switch_info, 0, path({1, 5}), encode_attr(clear)) == status::ok);
  CHECK_FALSE(SwitchInfo::decode(l.get(attr::switch_info, 0, path({1, 5}))->data)->port_state_change);
  REQUIRE(l.set_port(path({1, 5}), 1, down) == status::ok);
  CHECK(l.port(path({1, 5}), 1).port_state == PortState::init);
  CHECK(SwitchInfo::decode(l.get(attr::switch_info, 0, path({1, 5}))->data)->port_state_change);
}

TEST_CASE("faults: a removed switch is silent; restored, it has forgotten its tables") {
  Line l;
  const auto s2 = *l.f->find("S2");
  LinearForwardingTable t;
  t.ports.fill(PortNum(1));
  Smp s = make_dr_smp(method::set, attr::linear_fwd_table, 0, path({1, 5}));
  s.data = encode_attr(t);
  REQUIRE(exchange(*l.f, *l.t, s));
  CHECK(l.f->node(s2).sw->lft.size() == 64);
  REQUIRE(l.f->remove_node(s2));
  CHECK_FALSE(l.get(attr::node_info, 0, path({1, 5})));
  CHECK(l.port(path({1}), 5).port_state == PortState::down);
  REQUIRE(l.f->restore_node(s2));
  auto lft = l.get(attr::linear_fwd_table, 0, path({1, 5}));
  REQUIRE(lft);
  CHECK(LinearForwardingTable::decode(lft->data)->ports[0] == LinearForwardingTable::kUnreachable);
  CHECK(l.port(path({1, 5}), 5).port_state == PortState::init);
}

TEST_CASE("MAD loss is seeded: the same seed loses the same MADs") {
  auto run = [](uint64_t seed) {
    auto f = std::move(*sim::SimFabric::build(spec({"H1", "S1"}, {{"H1", 1, "S1", 1}}),
                                              sim::SimConfig{.drop_rate = 0.3, .seed = seed}));
    auto ep = *f->attach(0, 1);
    sim::SimTransport t(*f, ep);
    std::string got;
    for (int i = 0; i < 64; ++i)
      got += exchange(*f, t, make_dr_smp(method::get, attr::node_info, 0, path({1}))) ? '1' : '0';
    return got;
  };
  const std::string a = run(7);
  CHECK(a == run(7));
  CHECK(a != run(8));
  CHECK(a.find('0') != std::string::npos);
  CHECK(a.find('1') != std::string::npos);
}

TEST_CASE("SMInfo goes to the SM attached at a port; without one the port says unsupported") {
  Line l;
  auto r = l.get(attr::sm_info, 0, path({1, 5, 1}));
  REQUIRE(r);
  CHECK(r->status == status::unsupported_method_attr);
  // Attach a second SM on H2: the request now reaches its inbox instead of an SMA.
  auto ep2 = *l.f->attach(*l.f->find("H2"), 1);
  mad::Packet p;
  p.mad = encode_smp(make_dr_smp(method::get, attr::sm_info, 0, path({1, 5, 1})));
  (void)l.t->send(p);
  l.f->run_until(l.f->now() + std::chrono::milliseconds(1));
  REQUIRE(l.f->inbox(ep2).size() == 1);
  auto at_sm = decode_smp(l.f->inbox(ep2)[0].mad);
  CHECK(at_sm->attr_id == attr::sm_info);
  CHECK(at_sm->hop_ptr == 4);  // hop count + 1 on delivery
  // Its answer goes back along the return path.
  Smp resp = *at_sm;
  resp.method = method::get_resp;
  resp.direction = true;
  mad::Packet rp;
  rp.mad = encode_smp(resp);
  sim::SimTransport t2(*l.f, ep2);
  (void)t2.send(rp);
  std::vector<mad::Packet> in;
  (void)l.t->receive(in, l.f->now() + std::chrono::milliseconds(1));
  REQUIRE(in.size() == 1);
  CHECK(decode_smp(in[0].mad)->tid == at_sm->tid);
}
