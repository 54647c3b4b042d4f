// The PMA wire formats (class 0x04): golden bytes written by hand from the IBA 1.3 16.1 field
// layouts (cross-checked with OpenSM's ib_port_counters_t / ib_port_counters_ext_t and
// libibmad's IB_PC_* field offsets), round trips, and refusals.
#include <doctest/doctest.h>

#include <vector>

#include "hex.h"
#include "mad/pma.h"

using namespace mad;

namespace {

template <class A>
std::vector<uint8_t> encoded(const A& a) {
  std::vector<uint8_t> b(A::kSize);
  a.encode(b);
  return b;
}

// Every field a distinct value, so a field at a wrong offset shows.
PortCounters sample_counters() {
  PortCounters c;
  c.port_select = 0x05;
  c.counter_select = 0xA55A;
  c.symbol_errors = 0x0102;
  c.link_error_recovery = 0x03;
  c.link_downed = 0x04;
  c.rcv_errors = 0x0506;
  c.rcv_remote_phys_errors = 0x0708;
  c.rcv_switch_relay_errors = 0x090A;
  c.xmit_discards = 0x0B0C;
  c.xmit_constraint_errors = 0x0D;
  c.rcv_constraint_errors = 0x0E;
  c.counter_select2 = 0x01;
  c.local_link_integrity_errors = 0x9;
  c.excessive_buffer_overrun_errors = 0x6;
  c.vl15_dropped = 0x1112;
  c.xmit_data = 0x13141516;
  c.rcv_data = 0x1718191A;
  c.xmit_pkts = 0x1B1C1D1E;
  c.rcv_pkts = 0x1F202122;
  c.xmit_wait = 0x23242526;
  return c;
}

PortCountersExtended sample_ext() {
  PortCountersExtended c;
  c.port_select = 0x07;
  c.counter_select = 0x00FF;
  c.xmit_data = 0x0102030405060708;
  c.rcv_data = 0x1112131415161718;
  c.xmit_pkts = 0x2122232425262728;
  c.rcv_pkts = 0x3132333435363738;
  c.unicast_xmit_pkts = 0x4142434445464748;
  c.unicast_rcv_pkts = 0x5152535455565758;
  c.multicast_xmit_pkts = 0x6162636465666768;
  c.multicast_rcv_pkts = 0x7172737475767778;
  return c;
}

PmaClassPortInfo sample_cpi() {
  PmaClassPortInfo c;
  c.cap_mask = pma_cap::all_port_select | pma_cap::ext_width | pma_cap::xmit_wait;
  c.cap_mask2 = 0x0000003;
  c.resp_time_value = 0x12;
  c.redirect_gid = Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C3ULL);
  c.redirect_tc = 0x40;
  c.redirect_sl = 0x5;
  c.redirect_fl = 0xABCDE;
  c.redirect_lid = Lid(0x11);
  c.redirect_pkey = 0xFFFF;
  c.redirect_qp = 0x000001;
  c.redirect_qkey = 0x80010000;
  c.trap_gid = Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C4ULL);
  c.trap_tc = 0x20;
  c.trap_sl = 0x3;
  c.trap_fl = 0x12345;
  c.trap_lid = Lid(0x22);
  c.trap_pkey = 0x7FFF;
  c.trap_hop_limit = 0x40;
  c.trap_qp = 0x000002;
  c.trap_qkey = 0x80010000;
  return c;
}

}  // namespace

TEST_CASE("golden IBA layout: PortCounters") {
  CHECK(encoded(sample_counters()) == test::from_hex(
            "00 05 a5 5a"        // reserved, PortSelect, CounterSelect
            "01 02 03 04"        // SymbolErrorCounter, LinkErrorRecovery, LinkDowned
            "05 06 07 08"        // PortRcvErrors, PortRcvRemotePhysicalErrors
            "09 0a 0b 0c"        // PortRcvSwitchRelayErrors, PortXmitDiscards
            "0d 0e 01 96"        // XmitConstraint, RcvConstraint, CounterSelect2, LLI(7-4) EBO(3-0)
            "00 00 11 12"        // reserved, VL15Dropped
            "13 14 15 16 17 18 19 1a"  // PortXmitData, PortRcvData
            "1b 1c 1d 1e 1f 20 21 22"  // PortXmitPkts, PortRcvPkts
            "23 24 25 26"));     // PortXmitWait
}

TEST_CASE("golden IBA layout: PortCountersExtended") {
  CHECK(encoded(sample_ext()) == test::from_hex(
            "00 07 00 ff 00 00 00 00"  // reserved, PortSelect, CounterSelect, reserved
            "01 02 03 04 05 06 07 08"  // PortXmitData
            "11 12 13 14 15 16 17 18"  // PortRcvData
            "21 22 23 24 25 26 27 28"  // PortXmitPkts
            "31 32 33 34 35 36 37 38"  // PortRcvPkts
            "41 42 43 44 45 46 47 48"  // PortUnicastXmitPkts
            "51 52 53 54 55 56 57 58"  // PortUnicastRcvPkts
            "61 62 63 64 65 66 67 68"  // PortMulticastXmitPkts
            "71 72 73 74 75 76 77 78"));  // PortMulticastRcvPkts
}

TEST_CASE("golden IBA layout: PMA ClassPortInfo") {
  CHECK(encoded(sample_cpi()) == test::from_hex(
            "01 01 13 00"              // BaseVersion, ClassVersion, CapabilityMask
            "00 00 00 72"              // CapabilityMask2 (31-5) = 3, RespTimeValue (4-0) = 0x12
            "fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c3"  // RedirectGID
            "40 5a bc de"              // RedirectTC, RedirectSL, RedirectFL
            "00 11 ff ff"              // RedirectLID, RedirectP_Key
            "00 00 00 01 80 01 00 00"  // reserved + RedirectQP, RedirectQ_Key
            "fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c4"  // TrapGID
            "20 31 23 45"              // TrapTC, TrapSL, TrapFL
            "00 22 7f ff"              // TrapLID, TrapP_Key
            "40 00 00 02 80 01 00 00"));  // TrapHL + TrapQP, TrapQ_Key
  const auto d = PmaClassPortInfo::decode(encoded(sample_cpi()));
  REQUIRE(d);
  CHECK(d->all_port_select());
  CHECK(d->extended_counters());
  CHECK(d->xmit_wait());
  PmaClassPortInfo none;
  CHECK_FALSE(none.all_port_select());
  CHECK_FALSE(none.extended_counters());
  none.cap_mask = pma_cap::ext_width_noietf;
  CHECK(none.extended_counters());
}

TEST_CASE("golden: the PMA MAD header, reserved bytes and data offset") {
  PmaMad m = make_get_counters(3);
  m.tid = 0x0102030405060708;
  m.attr_mod = 0xA0B0C0D0;
  const MadBytes b = encode_pma(m);
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 24) == test::from_hex(
            "01 04 01 01 00 00 00 00"  // base 1, class PerfMgt, class version 1, Get, status
            "01 02 03 04 05 06 07 08"  // TID
            "00 12 00 00 a0 b0 c0 d0"));  // PortCounters, reserved, modifier
  for (size_t i = 24; i < kPmaDataOffset; ++i) CHECK(b[i] == 0);
  CHECK(b[kPmaDataOffset + 1] == 3);  // PortSelect
}

TEST_CASE("round trips: every field survives encode and decode") {
  const PortCounters pc = sample_counters();
  auto pc2 = PortCounters::decode(encoded(pc));
  REQUIRE(pc2);
  CHECK(*pc2 == pc);

  const PortCountersExtended ext = sample_ext();
  auto ext2 = PortCountersExtended::decode(encoded(ext));
  REQUIRE(ext2);
  CHECK(*ext2 == ext);

  const PmaClassPortInfo cpi = sample_cpi();
  auto cpi2 = PmaClassPortInfo::decode(encoded(cpi));
  REQUIRE(cpi2);
  CHECK(*cpi2 == cpi);

  PmaMad m = make_pma(method::get_resp, pma_attr::port_counters_ext, 7);
  m.status = status::unsupported_method_attr;
  m.tid = 0xDEADBEEFCAFEF00D;
  m.class_version = 2;
  m.data = encode_pma_attr(ext);
  auto m2 = decode_pma(encode_pma(m));
  REQUIRE(m2);
  CHECK(*m2 == m);
  auto ext3 = decode_pma_attr<PortCountersExtended>(*m2);
  REQUIRE(ext3);
  CHECK(*ext3 == ext);
  // A MAD of another attribute is not taken for this one.
  CHECK_FALSE(decode_pma_attr<PortCounters>(*m2));
}

TEST_CASE("PortCounters: the two 4-bit counters saturate on encode and are masked on decode") {
  PortCounters c;
  c.local_link_integrity_errors = 200;
  c.excessive_buffer_overrun_errors = 16;
  const auto b = encoded(c);
  CHECK(b[19] == 0xFF);
  auto d = PortCounters::decode(b);
  REQUIRE(d);
  CHECK(d->local_link_integrity_errors == 15);
  CHECK(d->excessive_buffer_overrun_errors == 15);
  c.local_link_integrity_errors = 0xA;
  c.excessive_buffer_overrun_errors = 0;
  CHECK(encoded(c)[19] == 0xA0);
  c.local_link_integrity_errors = 0;
  c.excessive_buffer_overrun_errors = 0x5;
  CHECK(encoded(c)[19] == 0x05);
}

TEST_CASE("clear requests carry the masks and zero counters") {
  const PmaMad m = make_clear_counters(kAllPorts, counter_select::symbol_errors | counter_select::rcv_pkts,
                                       counter_select::select2_xmit_wait);
  CHECK(m.method == method::set);
  CHECK(m.attr_id == pma_attr::port_counters);
  auto c = decode_pma_attr<PortCounters>(m);
  REQUIRE(c);
  CHECK(c->port_select == 0xFF);
  CHECK(c->counter_select == 0x8001);
  CHECK(c->counter_select2 == 0x01);
  PortCounters zero = *c;
  zero.port_select = 0;
  zero.counter_select = 0;
  zero.counter_select2 = 0;
  CHECK(zero == PortCounters{});
  const PmaMad e = make_clear_counters_ext(2, counter_select_ext::all);
  auto ce = decode_pma_attr<PortCountersExtended>(e);
  REQUIRE(ce);
  CHECK(ce->port_select == 2);
  CHECK(ce->counter_select == 0xFF);
}

TEST_CASE("refusals: truncated data, short MADs, other classes and base versions") {
  std::vector<uint8_t> short_pc(PortCounters::kSize - 1);
  CHECK(PortCounters::decode(short_pc).error().code == Errc::truncated);
  std::vector<uint8_t> short_ext(PortCountersExtended::kSize - 1);
  CHECK(PortCountersExtended::decode(short_ext).error().code == Errc::truncated);
  std::vector<uint8_t> short_cpi(PmaClassPortInfo::kSize - 1);
  CHECK_FALSE(PmaClassPortInfo::decode(short_cpi));
  CHECK(PortCounters::decode({}).error().code == Errc::truncated);

  const MadBytes good = encode_pma(make_get_counters(1));
  REQUIRE(decode_pma(good));
  CHECK(decode_pma(std::span<const uint8_t>(good).first(kMadSize - 1)).error().code == Errc::truncated);
  CHECK(decode_pma(std::span<const uint8_t>()).error().code == Errc::truncated);
  MadBytes smp = good;
  smp[1] = mgmt_class::subn_lid_routed;
  CHECK(decode_pma(smp).error().code == Errc::invalid);
  MadBytes v2 = good;
  v2[0] = 2;
  CHECK(decode_pma(v2).error().code == Errc::invalid);
}

TEST_CASE("printers name the fields as perfquery does") {
  const std::string s = print(sample_counters());
  CHECK(s.find("SymbolErrorCounter: 258") != std::string::npos);
  CHECK(s.find("PortXmitWait: 589571366") != std::string::npos);
  CHECK(print(sample_ext()).find("PortMulticastRcvPkts: 8174723217654970232") != std::string::npos);
  CHECK(print(sample_cpi()).find("CapMask: 0x1300") != std::string::npos);
  CHECK(print(make_get_counters(1)).find("PortCounters") != std::string::npos);
}
