// Every attribute codec: round trip, truncated input, garbage input, the SMP glue
// (encode_attr / decode_attr) and the attribute-modifier helpers.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "attr_samples.h"
#include "mad/attributes.h"

using namespace mad;

#define ALL_ATTRIBUTES                                                                     \
  NodeInfo, NodeDescription, PortInfo, SwitchInfo, LinearForwardingTable,                  \
      MulticastForwardingTable, SmInfo, GuidInfo, PKeyTable, Sl2VlTable, VlArbTable, Notice

TEST_CASE_TEMPLATE("attribute round trip keeps every field", A, ALL_ATTRIBUTES) {
  const A a = test::sample<A>();
  std::array<uint8_t, A::kSize> buf{};
  a.encode(buf);
  auto d = A::decode(buf);
  REQUIRE(d);
  CHECK(*d == a);
  CHECK(!(*d == A{}));  // the sample really sets fields
  CHECK(!d->to_string().empty());
}

TEST_CASE_TEMPLATE("attribute encode writes exactly kSize bytes", A, ALL_ATTRIBUTES) {
  std::vector<uint8_t> buf(A::kSize + 8, 0xEE);
  test::sample<A>().encode(buf);
  for (size_t i = A::kSize; i < buf.size(); ++i) CHECK(buf[i] == 0xEE);
  // A longer input decodes the same: only the first kSize bytes count.
  auto d = A::decode(buf);
  REQUIRE(d);
  CHECK(*d == test::sample<A>());
}

TEST_CASE_TEMPLATE("attribute encode into a short buffer writes nothing past its end", A,
                   ALL_ATTRIBUTES) {
  std::vector<uint8_t> buf(A::kSize + 8, 0xEE);
  test::sample<A>().encode(std::span<uint8_t>(buf).first(A::kSize / 2));
  for (size_t i = A::kSize / 2; i < buf.size(); ++i) CHECK(buf[i] == 0xEE);
}

TEST_CASE_TEMPLATE("attribute decode of every truncated length is Errc::truncated", A,
                   ALL_ATTRIBUTES) {
  std::array<uint8_t, A::kSize> buf{};
  test::sample<A>().encode(buf);
  for (size_t n = 0; n < A::kSize; ++n) {
    auto d = A::decode(std::span<const uint8_t>(buf).first(n));
    REQUIRE(!d);
    CHECK(d.error().code == Errc::truncated);
  }
  CHECK(A::decode(std::span<const uint8_t>()).error().code == Errc::truncated);
}

TEST_CASE_TEMPLATE("attribute decode of garbage never crashes and round-trips", A,
                   ALL_ATTRIBUTES) {
  std::mt19937 rng(0xFAB51);
  std::vector<uint8_t> buf;
  for (int iter = 0; iter < 2000; ++iter) {
    buf.resize(rng() % (A::kSize + 16));
    for (auto& b : buf) b = static_cast<uint8_t>(rng());
    auto d = A::decode(buf);
    if (!d) {
      CHECK((d.error().code == Errc::truncated || d.error().code == Errc::invalid));
      CHECK((d.error().code == Errc::invalid) == (buf.size() >= A::kSize));
      continue;
    }
    std::array<uint8_t, A::kSize> out{};
    d->encode(out);
    auto again = A::decode(out);
    REQUIRE(again);
    CHECK(*again == *d);
    (void)d->to_string();
  }
}

TEST_CASE_TEMPLATE("encode_attr / decode_attr carry an attribute in an SMP", A,
                   ALL_ATTRIBUTES) {
  Smp s = make_dr_smp(method::get_resp, A::kAttrId, 0, DrPath().extended(PortNum(1)));
  s.data = encode_attr(test::sample<A>());
  auto d = decode_attr<A>(s);
  REQUIRE(d);
  if constexpr (A::kSize <= kSmpDataSize) {
    CHECK(*d == test::sample<A>());
    for (size_t i = A::kSize; i < kSmpDataSize; ++i) CHECK(s.data[i] == 0);
  }
  // Through the full 256-byte wire format too.
  auto wire = decode_smp(encode_smp(s));
  REQUIRE(wire);
  auto d2 = decode_attr<A>(*wire);
  REQUIRE(d2);
  CHECK(*d2 == *d);

  s.attr_id = static_cast<uint16_t>(A::kAttrId ^ 0x0100);
  auto wrong = decode_attr<A>(s);
  REQUIRE(!wrong);
  CHECK(wrong.error().code == Errc::invalid);
}

TEST_CASE("Notice in an SMP: IssuerGID does not fit and decodes as zero") {
  Notice n = test::sample_notice();
  Smp s = make_lid_smp(method::trap, attr::notice, 0);
  s.data = encode_attr(n);
  auto d = decode_attr<Notice>(s);
  REQUIRE(d);
  CHECK(d->issuer_gid == GidBytes{});
  n.issuer_gid = {};
  CHECK(*d == n);
}

TEST_CASE("PortInfo: every one-bit flag lands on its own bit") {
  // The sample has alternating flags; the complement must round-trip as well.
  PortInfo p = test::sample_port_info();
  p.partition_enforcement_inbound = !p.partition_enforcement_inbound;
  p.partition_enforcement_outbound = !p.partition_enforcement_outbound;
  p.filter_raw_inbound = !p.filter_raw_inbound;
  p.filter_raw_outbound = !p.filter_raw_outbound;
  p.client_reregister = !p.client_reregister;
  std::array<uint8_t, PortInfo::kSize> b{};
  p.encode(b);
  CHECK(b[43] == 0x35);  // OperationalVLs 3, PartEnfOut, FilterRawOut
  CHECK(b[51] == 0x52);  // ClientReregister clear
  auto d = PortInfo::decode(b);
  REQUIRE(d);
  CHECK(*d == p);
}

TEST_CASE("SwitchInfo: every one-bit flag lands on its own bit") {
  SwitchInfo s = test::sample_switch_info();
  s.inbound_enforcement_cap = !s.inbound_enforcement_cap;
  s.outbound_enforcement_cap = !s.outbound_enforcement_cap;
  s.filter_raw_inbound_cap = !s.filter_raw_inbound_cap;
  s.filter_raw_outbound_cap = !s.filter_raw_outbound_cap;
  s.enhanced_port0 = !s.enhanced_port0;
  s.port_state_change = !s.port_state_change;
  std::array<uint8_t, SwitchInfo::kSize> b{};
  s.encode(b);
  CHECK(b[11] == 0x92);
  CHECK(b[16] == 0x50);
  auto d = SwitchInfo::decode(b);
  REQUIRE(d);
  CHECK(*d == s);
}

TEST_CASE("decode refuses values the IBA forbids") {
  SUBCASE("NodeInfo node type outside 1..3") {
    std::array<uint8_t, NodeInfo::kSize> b{};
    test::sample_node_info().encode(b);
    for (int t : {0, 4, 0xFF}) {
      b[2] = static_cast<uint8_t>(t);
      auto d = NodeInfo::decode(b);
      REQUIRE(!d);
      CHECK(d.error().code == Errc::invalid);
    }
  }
  SUBCASE("PortInfo PortState above Active, PhysState above PhyTest") {
    std::array<uint8_t, PortInfo::kSize> b{};
    test::sample_port_info().encode(b);
    const uint8_t b32 = b[32];
    b[32] = static_cast<uint8_t>((b32 & 0xF0) | 5);
    CHECK(PortInfo::decode(b).error().code == Errc::invalid);
    b[32] = static_cast<uint8_t>((b32 & 0xF0) | 4);
    CHECK(PortInfo::decode(b).has_value());
    b[33] = static_cast<uint8_t>((b[33] & 0x0F) | 0x80);
    CHECK(PortInfo::decode(b).error().code == Errc::invalid);
  }
  SUBCASE("SMInfo SMState above Master") {
    std::array<uint8_t, SmInfo::kSize> b{};
    test::sample_sm_info().encode(b);
    b[20] = 0xE4;
    CHECK(SmInfo::decode(b).error().code == Errc::invalid);
  }
}

TEST_CASE("encode masks values wider than their field") {
  PortInfo p;
  p.lmc = 0xFF;            // 3 bits
  p.hoq_life = 0xFF;       // 5 bits
  p.link_round_trip_latency = 0xFFFFFFFF;  // 24 bits
  std::array<uint8_t, PortInfo::kSize> b{};
  p.encode(b);
  CHECK(b[34] == 0x07);
  CHECK(b[42] == 0x1F);
  CHECK(b[56] == 0x00);
  CHECK(b[57] == 0xFF);
  NodeInfo n;
  n.vendor_id = 0xAB123456;  // 24 bits
  std::array<uint8_t, NodeInfo::kSize> nb{};
  n.encode(nb);
  CHECK(nb[36] == 0);  // LocalPortNum untouched
  CHECK(nb[37] == 0x12);
}

TEST_CASE("NodeDescription: NUL padding, truncation to 64, stop at the first NUL") {
  std::array<uint8_t, 64> b{};
  b.fill(0xAA);
  NodeDescription{"abc"}.encode(b);
  CHECK(b[0] == 'a');
  CHECK(b[2] == 'c');
  for (size_t i = 3; i < 64; ++i) CHECK(b[i] == 0);

  const std::string long_name(100, 'x');
  NodeDescription{long_name}.encode(b);
  auto d = NodeDescription::decode(b);
  REQUIRE(d);
  CHECK(d->text == std::string(64, 'x'));  // all 64 bytes, no terminator needed

  b[5] = 0;
  d = NodeDescription::decode(b);
  REQUIRE(d);
  CHECK(d->text == "xxxxx");

  NodeDescription odd{std::string("a\x01\xff\\", 4)};
  CHECK(odd.to_string() == "NodeDesc: a\\x01\\xff\\x5c");
}

TEST_CASE("to_string prints one 'name: value' line per field") {
  const std::string s = test::sample_port_info().to_string();
  CHECK(s.find("Lid: 258\n") != std::string::npos);
  CHECK(s.find("LinkState: Armed\n") != std::string::npos);
  CHECK(s.find("PhysLinkState: LinkUp\n") != std::string::npos);
  CHECK(s.find("NeighborMTU: 2048\n") != std::string::npos);
  CHECK(s.find("CapMask: 0x0200000a\n") != std::string::npos);
  CHECK(s.back() != '\n');
  const std::string n = test::sample_node_info().to_string();
  CHECK(n.find("NodeType: Switch (2)\n") != std::string::npos);
  CHECK(n.find("Guid: 0x0002c90300a1b2c4\n") != std::string::npos);
  CHECK(std::count(n.begin(), n.end(), '\n') == 11);  // 12 fields
  CHECK(test::sample_sm_info().to_string().find("SMState: Master (3)") != std::string::npos);
}

TEST_CASE("attribute modifier helpers") {
  CHECK(lft_block_of(Lid(0)) == 0);
  CHECK(lft_block_of(Lid(63)) == 0);
  CHECK(lft_block_of(Lid(64)) == 1);
  CHECK(lft_index_of(Lid(65)) == 1);
  CHECK(lft_block_of(Lid(Lid::kMaxUnicast)) == 767);

  CHECK(mft_attr_mod(5, 2) == 0x20000005u);
  CHECK(mft_attr_mod(0x1FF, 0xF) == 0xF00001FFu);
  CHECK(mft_attr_mod(0x3FF, 0x1F) == 0xF00001FFu);  // masked to the field widths
  CHECK(mft_index_of_mod(0x20000005u) == MftIndex{5, 2});
  CHECK(mft_index_of_mod(mft_attr_mod(300, 9)) == MftIndex{300, 9});
  CHECK(mft_block_of(Lid(0xC000)) == 0);
  CHECK(mft_block_of(Lid(0xC020)) == 1);
  CHECK(mft_index_of(Lid(0xC021)) == 1);
  CHECK(mft_block_of(Lid(0xFFFE)) == 511);

  CHECK(pkey_attr_mod(3, PortNum(7)) == 0x00070003u);
  CHECK(pkey_attr_mod(1) == 1u);
  CHECK(pkey_block_of_mod(0x00070003u) == 3);
  CHECK(pkey_port_of_mod(0x00070003u) == PortNum(7));
  CHECK(pkey_block_of(33) == 1);
  CHECK(pkey_is_full_member(0xFFFF));
  CHECK(!pkey_is_full_member(0x7FFF));
  CHECK(pkey_base(0x8001) == 1);

  CHECK(sl2vl_attr_mod(PortNum(1), PortNum(2)) == 0x0102u);
  CHECK(sl2vl_in_port_of_mod(0x0102u) == PortNum(1));
  CHECK(sl2vl_out_port_of_mod(0x0102u) == PortNum(2));
  CHECK(vl_arb_attr_mod(vl_arb_block::high_0_31, PortNum(1)) == 0x30001u);
  CHECK(vl_arb_block_of_mod(0x30001u) == 3);
  CHECK(vl_arb_port_of_mod(0x30001u) == PortNum(1));
  CHECK(port_info_attr_mod(PortNum(5)) == 5u);
  CHECK(guid_info_block_of(9) == 1u);

  CHECK(mtu::bytes(mtu::mtu256) == 256);
  CHECK(mtu::bytes(mtu::mtu4096) == 4096);
  CHECK(mtu::bytes(0) == 0);
}
