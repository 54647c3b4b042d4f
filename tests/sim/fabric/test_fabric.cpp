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
  // LIDs: H1 1, S1 2, S2 3, H2 4. Ports up to Active on the H1-S1-S2-H2 line (via port 5).
  auto set_lid = [&](const DrPath& p, uint8_t port, uint16_t lid) {
    PortInfo pi = l.port(p, port);
    pi.lid = Lid(lid);
    pi.master_sm_lid = Lid(1);
    pi.port_state = PortState::no_change;
    CHECK(l.set_port(p, port, pi) == status::ok);
  };
  set_lid(DrPath(), 1, 1);
  set_lid(path({1}), 0, 2);
  set_lid(path({1, 5}), 0, 3);
  set_lid(path({1, 5, 1}), 1, 4);
  auto activate = [&](const DrPath& p, uint8_t port, PortState s) {
    PortInfo pi = l.port(p, port);
    pi.port_state = s;
    CHECK(l.set_port(p, port, pi) == status::ok);
  };
  for (PortState s : {PortState::armed, PortState::active}) {
    activate(DrPath(), 1, s);
    activate(path({1}), 1, s);
    activate(path({1}), 5, s);
    activate(path({1, 5}), 5, s);
    activate(path({1, 5}), 1, s);
    activate(path({1, 5, 1}), 1, s);
  }
  auto set_lft = [&](const DrPath& p, std::vector<uint8_t> ports) {
    LinearForwardingTable t;
    t.ports.fill(LinearForwardingTable::kUnreachable);
    for (size_t i = 0; i < ports.size(); ++i) t.ports[i] = PortNum(ports[i]);
    Smp s = make_dr_smp(method::set, attr::linear_fwd_table, 0, p);
    s.data = encode_attr(t);
    auto r = exchange(*l.f, *l.t, s);
    REQUIRE(r);
    CHECK(r->status == status::ok);
    SwitchInfo si;
    si.linear_fdb_top = Lid(static_cast<uint16_t>(ports.size() - 1));
    Smp top = make_dr_smp(method::set, attr::switch_info, 0, p);
    top.data = encode_attr(si);
    CHECK(exchange(*l.f, *l.t, top)->status == status::ok);
  };
  //                 LID: 0     1  2  3  4
  set_lft(path({1}), {0xFF, 1, 0, 5, 5});
  set_lft(path({1, 5}), {0xFF, 5, 5, 0, 1});
  auto by_lid = [&](uint16_t lid) {
    return exchange(*l.f, *l.t, make_lid_smp(method::get, attr::node_info, 0), Lid(lid));
  };
  auto r = by_lid(4);
  REQUIRE(r);
  CHECK(NodeInfo::decode(r->data)->node_guid == Guid(0x100002));
  REQUIRE(by_lid(3));
  CHECK(NodeInfo::decode(by_lid(3)->data)->node_guid == Guid(0x200001));
  CHECK_FALSE(by_lid(5));  // beyond LinearFDBTop
  // Through port 6 (still Init) nothing gets by.
  set_lft(path({1}), {0xFF, 1, 0, 6, 6});
  CHECK_FALSE(by_lid(4));
  CHECK(l.f->stats().dropped_no_route > 0);
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
