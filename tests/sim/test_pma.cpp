// The simulated PMA: PerfMgt Gets and Sets, LID-routed from an endpoint to nodes whose LIDs and
// LFTs are set by hand (no SM), against counters moved by injection.
#include <doctest/doctest.h>

#include <optional>

#include "fabric/helpers.h"
#include "mad/pma.h"

using namespace mad;

namespace {

// H1 - S1 - H2: LIDs 1, 2, 3; the endpoint (the PerfMgr) at H1.
struct Line {
  simtest::Hand h{simtest::spec({"H1", "S1", "H2"}, {{"H1", 1, "S1", 1}, {"S1", 2, "H2", 1}})};
  sim::SimFabric& f = *h.f;
  sim::EndpointId ep = 0;
  std::unique_ptr<sim::SimTransport> t;
  sim::NodeIdx h1 = *f.find("H1"), s1 = *f.find("S1"), h2 = *f.find("H2");

  Line() {
    program();
    ep = *f.attach(h1, 1);
    t = std::make_unique<sim::SimTransport>(f, ep);
  }
  void program() {
    h.lid("H1", 1);
    h.lid("S1", 2);
    h.lid("H2", 3);
    h.activate_all();
    h.lft("S1", {0xFF, 1, 0, 2});
  }
  // One PMA request to `dlid`, and its answer (by TID), if one comes.
  std::optional<PmaMad> ask(PmaMad req, uint16_t dlid) {
    static uint64_t tid = 1000;
    req.tid = ++tid;
    Packet p;
    p.mad = encode_pma(req);
    p.addr.lid = Lid(dlid);
    p.addr.qpn = 1;
    p.addr.qkey = kGsiQkey;
    (void)t->send(p);
    const Nanos deadline = f.now() + std::chrono::milliseconds(10);
    std::vector<Packet> in;
    while (f.now() < deadline) {
      in.clear();
      (void)t->receive(in, deadline);
      for (const auto& m : in) {
        auto r = decode_pma(m.mad);
        if (r && r->tid == req.tid) return *r;
      }
    }
    return std::nullopt;
  }
  PortCounters get(uint16_t dlid, uint8_t port) {
    auto r = ask(make_get_counters(port), dlid);
    REQUIRE(r);
    REQUIRE(r->status == status::ok);
    auto c = decode_pma_attr<PortCounters>(*r);
    REQUIRE(c);
    return *c;
  }
  PortCountersExtended get_ext(uint16_t dlid, uint8_t port) {
    auto r = ask(make_get_counters_ext(port), dlid);
    REQUIRE(r);
    REQUIRE(r->status == status::ok);
    auto c = decode_pma_attr<PortCountersExtended>(*r);
    REQUIRE(c);
    return *c;
  }
  uint16_t status_of(const PmaMad& req, uint16_t dlid) {
    auto r = ask(req, dlid);
    REQUIRE(r);
    CHECK(r->method == method::get_resp);
    return r->status;
  }
};

}  // namespace

TEST_CASE("PMA ClassPortInfo: the default caps, and a node configured without extended counters") {
  Line l;
  auto r = l.ask(make_pma(method::get, pma_attr::class_port_info), 2);
  REQUIRE(r);
  CHECK(r->method == method::get_resp);
  CHECK(r->status == status::ok);
  auto cpi = decode_pma_attr<PmaClassPortInfo>(*r);
  REQUIRE(cpi);
  CHECK(cpi->class_version == 1);
  CHECK(cpi->all_port_select());
  CHECK(cpi->extended_counters());
  CHECK(cpi->xmit_wait());
  CHECK(l.f.node(l.s1).pma_handled == 1);
  CHECK(l.f.node(l.s1).smps_handled == 0);  // the PMA answered, not the SMA

  l.f.mutable_node(l.h2).pma_cap = pma_cap::all_port_select;
  r = l.ask(make_pma(method::get, pma_attr::class_port_info), 3);
  REQUIRE(r);
  cpi = decode_pma_attr<PmaClassPortInfo>(*r);
  REQUIRE(cpi);
  CHECK_FALSE(cpi->extended_counters());
  CHECK_FALSE(cpi->xmit_wait());
  CHECK(l.status_of(make_get_counters_ext(1), 3) == status::unsupported_method_attr);
  // The endpoint's own node answers too (loopback to its own LID).
  CHECK(l.status_of(make_pma(method::get, pma_attr::class_port_info), 1) == status::ok);
  CHECK(l.f.node(l.h1).pma_handled == 1);
}

TEST_CASE("PortCounters: injected counters per port, all ports summed, saturation at the wire width") {
  Line l;
  sim::SimCounterDelta d;
  d.symbol_errors = 5;
  d.rcv_errors = 7;
  d.xmit_data = 1000;
  d.rcv_pkts = 30;
  d.xmit_wait = 9;
  REQUIRE(l.f.add_counters(l.s1, 2, d));
  REQUIRE(l.f.add_counters(l.s1, 1, d));
  PortCounters c = l.get(2, 2);
  CHECK(c.port_select == 2);
  CHECK(c.symbol_errors == 5);
  CHECK(c.rcv_errors == 7);
  CHECK(c.xmit_data == 1000);
  CHECK(c.rcv_pkts == 30);
  CHECK(c.xmit_wait == 9);
  CHECK(c.link_downed == 0);
  CHECK(l.get(2, 3).symbol_errors == 0);
  const PortCounters all = l.get(2, kAllPorts);
  CHECK(all.port_select == 0xFF);
  CHECK(all.symbol_errors == 10);
  CHECK(all.xmit_data == 2000);

  // IBA counters stop at all ones; the simulator keeps counting underneath.
  REQUIRE(l.f.add_counter(l.s1, 2, sim::Counter::symbol_errors, 70000));
  REQUIRE(l.f.add_counter(l.s1, 2, sim::Counter::link_downed, 300));
  REQUIRE(l.f.add_counter(l.s1, 2, sim::Counter::local_link_integrity_errors, 20));
  REQUIRE(l.f.add_counter(l.s1, 2, sim::Counter::xmit_data, 1ULL << 33));
  c = l.get(2, 2);
  CHECK(c.symbol_errors == 65535);
  CHECK(c.link_downed == 255);
  CHECK(c.local_link_integrity_errors == 15);
  CHECK(c.xmit_data == 0xFFFFFFFFu);
  CHECK(l.f.counters(l.s1, 2)->symbol_errors == 70005);
  CHECK(l.get(2, kAllPorts).symbol_errors == 65535);  // the sum saturates too

  // A CA answers for the port the MAD came in by.
  REQUIRE(l.f.add_counter(l.h2, 1, sim::Counter::vl15_dropped, 4));
  CHECK(l.get(3, 1).vl15_dropped == 4);
}

TEST_CASE("PortCounters Set clears only the selected counters, of one port or all") {
  Line l;
  sim::SimCounterDelta d;
  d.symbol_errors = 3;
  d.link_downed = 2;
  d.xmit_data = 100;
  d.rcv_data = 200;
  d.xmit_wait = 50;
  for (uint8_t p = 0; p <= 8; ++p) REQUIRE(l.f.add_counters(l.s1, p, d));
  auto r = l.ask(make_clear_counters(2, counter_select::symbol_errors | counter_select::xmit_data,
                                     counter_select::select2_xmit_wait), 2);
  REQUIRE(r);
  CHECK(r->status == status::ok);
  auto after = decode_pma_attr<PortCounters>(*r);  // the answer carries the counters after the clear
  REQUIRE(after);
  CHECK(after->symbol_errors == 0);
  CHECK(after->xmit_data == 0);
  CHECK(after->xmit_wait == 0);
  CHECK(after->link_downed == 2);
  CHECK(after->rcv_data == 200);
  PortCounters read = l.get(2, 2);
  CHECK(read.counter_select == 0);  // the answer echoes the request's selects
  read.counter_select = after->counter_select;
  read.counter_select2 = after->counter_select2;
  CHECK(read == *after);
  CHECK(l.get(2, 1).symbol_errors == 3);  // another port keeps its own
  // The extended registers are separate: clearing PortXmitData left PortCountersExtended's.
  CHECK(l.get_ext(2, 2).xmit_data == 100);

  r = l.ask(make_clear_counters(kAllPorts, counter_select::all, counter_select::select2_xmit_wait), 2);
  REQUIRE(r);
  CHECK(r->status == status::ok);
  for (uint8_t p = 0; p <= 8; ++p) CHECK(l.get(2, p) == PortCounters{.port_select = p});
}

TEST_CASE("PortCountersExtended: 64-bit registers that wrap, and Set clears by select") {
  Line l;
  REQUIRE(l.f.set_counter(l.s1, 1, sim::Counter::ext_xmit_data, UINT64_MAX - 9));
  sim::SimCounterDelta d;
  d.xmit_data = 20;
  d.rcv_data = 1ULL << 40;
  d.unicast_xmit_pkts = 11;
  d.multicast_rcv_pkts = 12;
  REQUIRE(l.f.add_counters(l.s1, 1, d));
  PortCountersExtended e = l.get_ext(2, 1);
  CHECK(e.port_select == 1);
  CHECK(e.xmit_data == 10);  // wrapped
  CHECK(e.rcv_data == 1ULL << 40);
  CHECK(e.unicast_xmit_pkts == 11);
  CHECK(e.multicast_rcv_pkts == 12);
  CHECK(l.get(2, 1).xmit_data == 20);
  CHECK(l.get(2, 1).rcv_data == 0xFFFFFFFFu);  // the 32-bit view saturates

  const uint16_t sel = counter_select_ext::rcv_data | counter_select_ext::unicast_xmit_pkts;
  auto r = l.ask(make_clear_counters_ext(1, sel), 2);
  REQUIRE(r);
  CHECK(r->status == status::ok);
  e = *decode_pma_attr<PortCountersExtended>(*r);
  CHECK(e.rcv_data == 0);
  CHECK(e.unicast_xmit_pkts == 0);
  CHECK(e.xmit_data == 10);
  CHECK(e.multicast_rcv_pkts == 12);
  CHECK(l.get(2, 1).rcv_data == 0xFFFFFFFFu);  // PortCounters' own register is untouched
  CHECK(l.get_ext(2, kAllPorts).multicast_rcv_pkts == 12);
}

TEST_CASE("a rebooted node counts from 0 again; a link going down counts LinkDowned") {
  Line l;
  REQUIRE(l.f.link_down(l.s1, 2));
  CHECK(l.f.counters(l.s1, 2)->link_downed == 1);
  CHECK(l.f.counters(l.h2, 1)->link_downed == 1);
  REQUIRE(l.f.link_up(l.s1, 2));
  l.h.activate_all();
  CHECK(l.get(2, 2).link_downed == 1);

  REQUIRE(l.f.add_counter(l.s1, 1, sim::Counter::rcv_errors, 42));
  REQUIRE(l.f.remove_node(l.s1));
  CHECK_FALSE(l.ask(make_get_counters(1), 2));  // a removed node answers nothing
  REQUIRE(l.f.restore_node(l.s1));
  CHECK(*l.f.counters(l.s1, 1) == sim::SimCounters{});
  l.program();  // LIDs and LFT again, as an SM would
  CHECK(l.get(2, 1) == PortCounters{.port_select = 1});
}

TEST_CASE("bad requests get a MAD status, never a crash; a silent node answers nothing") {
  Line l;
  const uint16_t port_samples_control = 0x0010;
  CHECK(l.status_of(make_pma(method::get, port_samples_control), 2) == status::unsupported_method_attr);
  CHECK(l.status_of(make_pma(method::send, pma_attr::port_counters), 2) == status::unsupported_method);
  CHECK(l.status_of(make_pma(method::set, pma_attr::class_port_info), 2) == status::unsupported_method_attr);
  CHECK(l.status_of(make_get_counters(9), 2) == status::invalid_field);   // S1 has 8 ports
  CHECK(l.status_of(make_get_counters(2), 3) == status::invalid_field);   // not the port asked through
  CHECK(l.status_of(make_get_counters_ext(200), 2) == status::invalid_field);
  PmaMad mod = make_get_counters(1);
  mod.attr_mod = 1;
  CHECK(l.status_of(mod, 2) == status::invalid_field);
  PmaMad v2 = make_get_counters(1);
  v2.class_version = 2;
  CHECK(l.status_of(v2, 2) == status::bad_version);
  // Without AllPortSelect, 0xFF is no port.
  l.f.mutable_node(l.s1).pma_cap = pma_cap::ext_width;
  CHECK(l.status_of(make_get_counters(kAllPorts), 2) == status::invalid_field);
  // A response arriving at a node is not for its PMA.
  PmaMad resp = make_get_counters(1);
  resp.method = method::get_resp;
  const uint64_t handled = l.f.node(l.s1).pma_handled;
  CHECK_FALSE(l.ask(resp, 2));
  CHECK(l.f.node(l.s1).pma_handled == handled);

  REQUIRE(l.f.set_silent(l.s1, true));
  CHECK_FALSE(l.ask(make_get_counters(1), 2));
  REQUIRE(l.f.set_silent(l.s1, false));
  CHECK(l.ask(make_get_counters(1), 2));
  // Injection refuses ports that do not exist.
  CHECK_FALSE(l.f.add_counter(l.h2, 0, sim::Counter::rcv_errors, 1));
  CHECK_FALSE(l.f.add_counters(l.s1, 9, {}));
  CHECK_FALSE(l.f.set_counter(99, 1, sim::Counter::rcv_errors, 1));
}

TEST_CASE("traffic: counters advance with the rates on virtual time, read through the PMA") {
  Line l;
  // 8 Gb/s out of S1[2] (1e9 bytes/s), half the time waiting; H2 receives it.
  const sim::PortRate rates[] = {{l.s1, 2, 8.0, 0.0, 0.5}, {l.h2, 1, 0.0, 8.0, 0.0}};
  REQUIRE(l.f.set_traffic(rates));
  const Nanos t0 = l.f.now();
  l.f.run_until(t0 + std::chrono::milliseconds(100));
  // What the registers hold now: 1e8 bytes in 4-byte words, in 4096-byte packets.
  auto c = *l.f.counters(l.s1, 2);
  CHECK(c.ext_xmit_data == 25'000'000);
  CHECK(c.xmit_pkts == 24'414);  // 1e8 / 4096 = 24414.06
  CHECK(c.unicast_xmit_pkts == 24'414);
  CHECK(c.xmit_wait == 781'250);  // 50 ms of 64 ns ticks
  CHECK(c.rcv_data == 0);
  CHECK(l.f.counters(l.h2, 1)->ext_rcv_data == 25'000'000);
  // The PMA's answer counts the time up to when it answers (a few microseconds later).
  const PortCountersExtended e = l.get_ext(2, 2);
  CHECK(e.xmit_data >= 25'000'000);
  CHECK(e.xmit_data < 25'100'000);
  // A clear through the PMA starts from zero; nothing is lost to rounding between reads.
  REQUIRE(l.ask(make_clear_counters_ext(2, 0xFF), 2));
  const uint64_t after_clear = l.f.counters(l.s1, 2)->ext_xmit_data;
  const Nanos t1 = l.f.now();
  for (int i = 0; i < 1000; ++i) l.f.run_until(l.f.now() + std::chrono::nanoseconds(3));  // 0.75 words each
  CHECK(l.f.counters(l.s1, 2)->ext_xmit_data - after_clear ==
        static_cast<uint64_t>(static_cast<double>((l.f.now() - t1).count()) * 0.25));
  // Other traffic from now on: S1[2] carries none.
  const sim::PortRate other[] = {{l.s1, 1, 8.0, 0.0, 0.0}};
  REQUIRE(l.f.set_traffic(other));
  const uint64_t stopped = l.f.counters(l.s1, 2)->ext_xmit_data;
  l.f.run_until(l.f.now() + std::chrono::milliseconds(10));
  CHECK(l.f.counters(l.s1, 2)->ext_xmit_data == stopped);
  CHECK(l.f.counters(l.s1, 1)->ext_xmit_data == 2'500'000);
  // Bad rates change nothing.
  const sim::PortRate bad[] = {{l.s1, 1, -1.0, 0.0, 0.0}};
  CHECK_FALSE(l.f.set_traffic(bad));
  const sim::PortRate no_port[] = {{l.h1, 0, 1.0, 0.0, 0.0}};
  CHECK_FALSE(l.f.set_traffic(no_port));
  l.f.run_until(l.f.now() + std::chrono::milliseconds(10));
  CHECK(l.f.counters(l.s1, 1)->ext_xmit_data == 5'000'000);
}
