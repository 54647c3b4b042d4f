// The simulated SMA's M_Key protection (IBA 14.2.4): which SMPs pass the check at each protect
// level, the violation counter, the lease timer on virtual time, trap 256, and the switch's one
// M_Key. Hand-built SMPs from an endpoint at H1; LIDs, SM LIDs and the LFT set by hand.
#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <vector>

#include "fabric/helpers.h"

using namespace mad;
using namespace std::chrono_literals;

namespace {

constexpr uint64_t kKey = 0x1122334455667788ULL;
constexpr uint64_t kWrong = 0x0BADC0DE0BADC0DEULL;

// H1 [1] - [2] S1 [3] - [1] H2; LIDs 1, 2, 3; every port's SM LID is 1 (the endpoint at H1).
struct Net {
  simtest::Hand h{simtest::spec({"H1", "S1", "H2"}, {{"H1", 1, "S1", 2}, {"S1", 3, "H2", 1}})};
  sim::SimFabric& f = *h.f;
  sim::NodeIdx h1 = *f.find("H1"), s1 = *f.find("S1"), h2 = *f.find("H2");
  sim::EndpointId ep = 0;

  struct Reply {
    std::optional<Smp> answer;  // the response with the request's TID
    std::vector<Notice> traps;  // traps that reached the SM meanwhile
    size_t mail = 0;            // everything that reached the SM
  };

  Net() {
    h.lid("H1", 1);
    h.lid("S1", 2);
    h.lid("H2", 3);
    for (const char* n : {"H1", "S1", "H2"}) h.n(n).ports[h.n(n).is_switch() ? 0 : 1].sm_lid = 1;
    h.activate_all();
    h.lft("S1", {0xFF, 2, 0, 3});
    ep = *f.attach(h1, 1);
  }
  sim::SimPort& h2_port() { return f.mutable_node(h2).ports[1]; }

  // Sends one SMP (LID-routed to `dlid` when it is not permissive) and runs the fabric 1 ms.
  Reply send(Smp req, uint16_t dlid = 0xFFFF) {
    static uint64_t tid = 500;
    req.tid = ++tid;
    Packet p;
    p.mad = encode_smp(req);
    p.addr.lid = Lid(dlid);
    f.inject(ep, p);
    f.run_until(f.now() + 1ms);
    Reply r;
    auto& in = f.inbox(ep);
    r.mail = in.size();
    for (const Packet& m : in) {
      auto s = decode_smp(m.mad);
      REQUIRE(s);
      if (s->method == method::trap) {
        auto n = decode_attr<Notice>(*s);
        REQUIRE(n);
        r.traps.push_back(*n);
      } else if (s->tid == req.tid) {
        r.answer = *s;
      }
    }
    in.clear();
    return r;
  }
  static Smp dr(uint8_t m, uint16_t attr_id, uint32_t mod, DrPath path, uint64_t key) {
    Smp s = make_dr_smp(m, attr_id, mod, path);
    s.mkey = key;
    return s;
  }
  // To H2 by directed route: out of H1 port 1, then S1 port 3.
  static Smp to_h2(uint8_t m, uint64_t key, uint16_t attr_id = attr::port_info, uint32_t mod = 0) {
    return dr(m, attr_id, mod, simtest::path({1, 3}), key);
  }
  static Smp to_s1(uint8_t m, uint64_t key, uint16_t attr_id = attr::port_info, uint32_t mod = 0) {
    return dr(m, attr_id, mod, simtest::path({1}), key);
  }
  // H2's PortInfo as a Get with the right key shows it.
  PortInfo h2_info() {
    auto r = send(to_h2(method::get, h2_port().mkey));
    REQUIRE(r.answer);
    auto pi = decode_attr<PortInfo>(*r.answer);
    REQUIRE(pi);
    return *pi;
  }
};

// A harmless Set that shows whether it was applied: P_Key table block 0 as it is.
Smp pkey_set_to_h2(uint64_t key) {
  Smp s = Net::to_h2(method::set, key, attr::pkey_table, 0);
  PKeyTable t;
  t.pkeys[0] = 0xFFFF;
  s.data = encode_attr(t);
  return s;
}

}  // namespace

TEST_CASE("M_Key check: protect levels 0-3 x Get, Set, TrapRepress x right key, wrong key, port key 0") {
  enum class Case { right, wrong, port_key_0 };
  for (uint8_t level = 0; level <= 3; ++level) {
    for (uint8_t m : {method::get, method::set, method::trap_repress}) {
      for (Case c : {Case::right, Case::wrong, Case::port_key_0}) {
        CAPTURE(level);
        CAPTURE(m);
        CAPTURE(static_cast<int>(c));
        Net net;
        const uint64_t port_key = c == Case::port_key_0 ? 0 : kKey;
        REQUIRE(net.f.set_mkey(net.h2, 1, port_key, level, 0));
        const uint64_t smp_key = c == Case::right ? kKey : kWrong;
        const uint64_t writes = net.h2_port().pkey_blocks_written;
        const uint64_t handled = net.f.node(net.h2).smps_handled;
        Smp req = m == method::set ? pkey_set_to_h2(smp_key) : Net::to_h2(m, smp_key);
        const auto r = net.send(req);

        // Levels 2 and 3 refuse a Get with a wrong key; every level refuses a Set or a
        // TrapRepress with one. A port without a key refuses nothing.
        const bool refused = c == Case::wrong && (m != method::get || level >= 2);
        CHECK(net.h2_port().mkey_violations == (refused ? 1 : 0));
        CHECK(net.f.stats().mkey_refused == (refused ? 1u : 0u));
        CHECK(r.traps.size() == (refused ? 1u : 0u));
        CHECK(net.f.node(net.h2).smps_handled == handled + (refused ? 0 : 1));
        if (m == method::trap_repress || refused) {
          CHECK(!r.answer);  // TrapRepress is never answered; a refused SMP is dropped
          CHECK(r.mail == r.traps.size());
        } else {
          REQUIRE(r.answer);
          CHECK(r.answer->status == status::ok);
        }
        if (m == method::set) CHECK(net.h2_port().pkey_blocks_written == writes + (refused ? 0 : 1));
        if (m == method::get && r.answer) {
          auto pi = decode_attr<PortInfo>(*r.answer);
          REQUIRE(pi);
          // Level 1 hides the key from a Get with the wrong key; level 0 does not.
          const bool hidden = c == Case::wrong && level == 1;
          CHECK(pi->m_key == (hidden ? 0 : port_key));
          CHECK(pi->m_key_protect_bits == level);
        }
      }
    }
  }
}

TEST_CASE("M_KeyViolations: +1 for each violation, reported by PortInfo, saturating at 0xFFFF") {
  Net net;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 0));
  (void)net.send(Net::to_h2(method::get, kWrong));
  (void)net.send(pkey_set_to_h2(kWrong));
  (void)net.send(Net::to_h2(method::trap_repress, kWrong));
  CHECK(net.h2_port().mkey_violations == 3);
  CHECK(net.h2_info().m_key_violations == 3);
  CHECK(net.f.stats().mkey_refused == 3);

  net.h2_port().mkey_violations = 0xFFFE;
  (void)net.send(Net::to_h2(method::get, kWrong));
  CHECK(net.h2_info().m_key_violations == 0xFFFF);
  (void)net.send(Net::to_h2(method::get, kWrong));
  CHECK(net.h2_info().m_key_violations == 0xFFFF);
  CHECK(net.f.stats().mkey_refused == 5);
}

TEST_CASE("M_Key lease: starts at the first violation only, then protection lapses") {
  Net net;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 10));  // a 10 s lease
  CHECK(net.h2_port().mkey_lease_deadline == sim::kMkeyLeaseNotRunning);
  const Nanos t0 = net.f.now();
  (void)net.send(pkey_set_to_h2(kWrong));
  const Nanos deadline = net.h2_port().mkey_lease_deadline;
  CHECK(deadline >= t0 + 10s);
  CHECK(deadline < t0 + 10s + 1ms);

  net.f.run_until(t0 + 6s);  // a second violation does not restart the timer
  (void)net.send(pkey_set_to_h2(kWrong));
  CHECK(net.h2_port().mkey_lease_deadline == deadline);
  CHECK(net.h2_port().mkey_violations == 2);

  net.f.run_until(deadline - 1ms);  // still protected just before the end
  CHECK(!net.send(Net::to_h2(method::get, kWrong)).answer);

  net.f.run_until(deadline);  // the lease is over: protect bits 0, the key stays
  auto r = net.send(Net::to_h2(method::get, kWrong));
  REQUIRE(r.answer);
  auto pi = decode_attr<PortInfo>(*r.answer);
  REQUIRE(pi);
  CHECK(pi->m_key == kKey);  // a Get with any key now reads it
  CHECK(pi->m_key_protect_bits == 0);
  CHECK(pi->m_key_lease_period == 10);
  CHECK(net.h2_port().mkey_lease_deadline == sim::kMkeyLeaseNotRunning);
  CHECK(r.traps.empty());

  // With the key read, another SM takes the port over.
  PortInfo take = *pi;
  take.port_state = PortState::no_change;
  take.m_key = 0x5555AAAA5555AAAAULL;
  take.m_key_protect_bits = 3;
  Smp set = Net::to_h2(method::set, pi->m_key);
  set.data = encode_attr(take);
  auto s = net.send(set);
  REQUIRE(s.answer);
  CHECK(s.answer->status == status::ok);
  CHECK(net.h2_port().mkey == 0x5555AAAA5555AAAAULL);
  CHECK(net.h2_port().mkey_protect == 3);
  CHECK(!net.send(Net::to_h2(method::get, kKey)).answer);  // the old key is now wrong
}

TEST_CASE("M_Key lease: an accepted Get, Set or TrapRepress stops the timer") {
  for (uint8_t m : {method::get, method::set, method::trap_repress}) {
    CAPTURE(m);
    Net net;
    REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 10));
    (void)net.send(Net::to_h2(method::get, kWrong));
    CHECK(net.h2_port().mkey_lease_deadline != sim::kMkeyLeaseNotRunning);
    net.f.run_until(net.f.now() + 5s);
    (void)net.send(m == method::set ? pkey_set_to_h2(kKey) : Net::to_h2(m, kKey));
    CHECK(net.h2_port().mkey_lease_deadline == sim::kMkeyLeaseNotRunning);
    net.f.run_until(net.f.now() + 20s);  // long past the old deadline: still protected
    const Nanos t1 = net.f.now();
    CHECK(!net.send(Net::to_h2(method::get, kWrong)).answer);
    CHECK(net.h2_port().mkey_protect == 2);
    // That violation starts a new lease.
    CHECK(net.h2_port().mkey_lease_deadline > t1 + 10s);
    CHECK(net.h2_port().mkey_lease_deadline < t1 + 10s + 1ms);
  }
}

TEST_CASE("M_Key lease period 0: protection never lapses") {
  Net net;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 0));
  (void)net.send(Net::to_h2(method::get, kWrong));
  CHECK(net.h2_port().mkey_lease_deadline == sim::kMkeyLeaseNotRunning);
  net.f.run_until(net.f.now() + std::chrono::hours(24));
  CHECK(!net.send(Net::to_h2(method::get, kWrong)).answer);
  CHECK(net.h2_info().m_key_protect_bits == 2);
  CHECK(net.h2_port().mkey_violations == 2);
}

TEST_CASE("trap 256 for a directed-route SMP: permissive LIDADDR and the DR fields") {
  Net net;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 0));
  auto r = net.send(Net::to_h2(method::get, kWrong, attr::port_info, 1));
  CHECK(!r.answer);
  REQUIRE(r.traps.size() == 1);
  const Notice& n = r.traps[0];
  CHECK(n.is_generic);
  CHECK(n.type == notice_type::security);
  CHECK(n.producer_or_vendor == producer_type::ca);
  CHECK(n.issuer_lid == Lid(3));
  auto t = n.trap256();
  REQUIRE(t);
  Trap256 want;
  want.lid = kPermissiveLid;
  want.dr_slid = kPermissiveLid;
  want.method = method::get;
  want.attr_id = attr::port_info;
  want.attr_mod = 1;
  want.m_key = kWrong;
  want.dr_notice = true;
  want.dr_hop_count = 2;
  want.dr_return_path[1] = 2;  // the SMP entered S1 by port 2
  want.dr_return_path[2] = 1;  // and H2 by port 1
  CHECK(*t == want);
  CHECK(net.f.stats().traps_sent == 1);
}

TEST_CASE("trap 256 for a LID-routed SMP: LIDADDR is its SLID; a switch reports as a switch") {
  Net net;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 0, 0));
  Smp set = make_lid_smp(method::set, attr::pkey_table, 0);
  set.mkey = kWrong;
  auto r = net.send(set, 3);
  CHECK(!r.answer);
  REQUIRE(r.traps.size() == 1);
  CHECK(r.traps[0].issuer_lid == Lid(3));
  auto t = r.traps[0].trap256();
  REQUIRE(t);
  Trap256 want;
  want.lid = Lid(1);  // H1, the requester
  want.method = method::set;
  want.attr_id = attr::pkey_table;
  want.m_key = kWrong;
  CHECK(*t == want);

  // The switch: its M_Key is port 0's, its trap comes from its LID 2 as a switch's.
  REQUIRE(net.f.set_mkey(net.s1, 0, kKey, 2, 0));
  Smp get = make_lid_smp(method::get, attr::switch_info, 0);
  get.mkey = kWrong;
  r = net.send(get, 2);
  CHECK(!r.answer);
  REQUIRE(r.traps.size() == 1);
  CHECK(r.traps[0].producer_or_vendor == producer_type::sw);
  CHECK(r.traps[0].issuer_lid == Lid(2));
  REQUIRE(r.traps[0].trap256());
  CHECK(r.traps[0].trap256()->lid == Lid(1));
  CHECK(r.traps[0].trap256()->attr_id == attr::switch_info);
  CHECK(net.f.node(net.s1).ports[0].mkey_violations == 1);
  get.mkey = kKey;
  r = net.send(get, 2);
  REQUIRE(r.answer);
  CHECK(r.answer->status == status::ok);
}

TEST_CASE("a refused Get at level 2 gets no answer at all; no SM LID, no trap") {
  Net net;
  net.h2_port().sm_lid = 0;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 0));
  const auto before = net.f.stats();
  auto r = net.send(Net::to_h2(method::get, kWrong, attr::node_info));
  CHECK(r.mail == 0);
  CHECK(net.f.stats().traps_sent == before.traps_sent);
  CHECK(net.f.stats().mkey_refused == before.mkey_refused + 1);
  CHECK(net.h2_port().mkey_violations == 1);
  // An SMInfo for an SM attached at H2 is the SM's, not the SMA's: it is not checked.
  const sim::EndpointId ep2 = *net.f.attach(net.h2, 1);
  (void)net.send(Net::to_h2(method::get, kWrong, attr::sm_info));
  CHECK(net.f.inbox(ep2).size() == 1);
  CHECK(net.h2_port().mkey_violations == 1);
}

TEST_CASE("a switch has one M_Key: a PortInfo Set of an external port does not change it") {
  Net net;
  auto get3 = [&](uint64_t key) { return net.send(Net::to_s1(method::get, key, attr::port_info, 3)); };
  auto r = get3(0);
  REQUIRE(r.answer);
  PortInfo pi = *decode_attr<PortInfo>(*r.answer);
  pi.port_state = PortState::no_change;
  pi.m_key = kKey;
  pi.m_key_protect_bits = 2;
  pi.m_key_lease_period = 7;
  Smp set = Net::to_s1(method::set, 0, attr::port_info, 3);
  set.data = encode_attr(pi);
  r = net.send(set);
  REQUIRE(r.answer);
  CHECK(r.answer->status == status::ok);
  for (uint8_t p : {uint8_t{0}, uint8_t{3}}) {
    CAPTURE(p);
    CHECK(net.f.node(net.s1).ports[p].mkey == 0);
    CHECK(net.f.node(net.s1).ports[p].mkey_protect == 0);
    CHECK(net.f.node(net.s1).ports[p].mkey_lease == 0);
  }
  r = get3(kWrong);  // still unprotected
  REQUIRE(r.answer);
  CHECK(decode_attr<PortInfo>(*r.answer)->m_key == 0);

  // A Set of port 0 does set it, and it guards every port's PortInfo.
  Smp set0 = Net::to_s1(method::set, 0, attr::port_info, 0);
  set0.data = encode_attr(pi);
  r = net.send(set0);
  REQUIRE(r.answer);
  CHECK(r.answer->status == status::ok);
  CHECK(net.f.node(net.s1).ports[0].mkey == kKey);
  CHECK(!get3(kWrong).answer);
  r = get3(kKey);
  REQUIRE(r.answer);
  pi = *decode_attr<PortInfo>(*r.answer);
  CHECK(pi.m_key == kKey);  // external ports report the switch's M_Key
  CHECK(pi.m_key_protect_bits == 2);
  CHECK(pi.m_key_lease_period == 7);
  CHECK(pi.m_key_violations == 1);
}

TEST_CASE("set_mkey: bad node, port or protect bits are refused and change nothing") {
  Net net;
  CHECK(!net.f.set_mkey(99, 1, kKey, 1, 0));
  CHECK(!net.f.set_mkey(net.h2, 0, kKey, 1, 0));
  CHECK(!net.f.set_mkey(net.h2, 2, kKey, 1, 0));
  CHECK(!net.f.set_mkey(net.s1, 3, kKey, 1, 0));  // a switch's M_Key is port 0's
  auto e = net.f.set_mkey(net.h2, 1, kKey, 4, 0);
  REQUIRE(!e);
  CHECK(e.error().message.find("protect bits 4") != std::string::npos);
  CHECK(net.h2_port().mkey == 0);
  CHECK(net.f.node(net.s1).ports[3].mkey == 0);
  CHECK(net.f.set_mkey(net.s1, 0, kKey, 3, 60));
  CHECK(net.f.node(net.s1).ports[0].mkey_protect == 3);
  CHECK(net.f.node(net.s1).ports[0].mkey_lease == 60);
}

TEST_CASE("a rebooted node has no M_Key protection, no lease and no violations") {
  Net net;
  REQUIRE(net.f.set_mkey(net.h2, 1, kKey, 2, 10));
  (void)net.send(Net::to_h2(method::get, kWrong));
  REQUIRE(net.h2_port().mkey_violations == 1);
  REQUIRE(net.f.remove_node(net.h2));
  REQUIRE(net.f.restore_node(net.h2));
  CHECK(net.h2_port().mkey == 0);
  CHECK(net.h2_port().mkey_protect == 0);
  CHECK(net.h2_port().mkey_lease == 0);
  CHECK(net.h2_port().mkey_violations == 0);
  CHECK(net.h2_port().mkey_lease_deadline == sim::kMkeyLeaseNotRunning);
}
