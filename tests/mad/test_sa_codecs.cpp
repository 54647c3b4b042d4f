// SA wire formats: the SA MAD header and RMPP header, every SA record (round trip, golden
// bytes written from the IBA field tables, truncation, field tables against the codecs), GIDs.
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "../mad/hex.h"
#include "mad/sa_multipath_record.h"
#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "mad/sa_service_records.h"

using namespace mad;

namespace {

template <class R>
std::vector<uint8_t> enc(const R& r) {
  std::vector<uint8_t> b(R::kSize, 0);
  r.encode(b);
  return b;
}

PathRecord sample_path() {
  PathRecord p;
  p.service_id = 0x1122334455667788ULL;
  p.dgid = Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C3ULL);
  p.sgid = Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C4ULL);
  p.dlid = Lid(0x0102);
  p.slid = Lid(0x0304);
  p.raw_traffic = true;
  p.flow_label = 0xABCDE;
  p.hop_limit = 0x40;
  p.tclass = 0x55;
  p.reversible = true;
  p.numb_path = 0x7F;
  p.pkey = 0xFFFF;
  p.qos_class = 0xABC;
  p.sl = 0xD;
  p.mtu_selector = 2;
  p.mtu = 5;
  p.rate_selector = 2;
  p.rate = 7;
  p.pkt_life_selector = 2;
  p.pkt_life = 0x12;
  p.preference = 3;
  return p;
}

McMemberRecord sample_member() {
  McMemberRecord m;
  m.mgid = ipoib_broadcast_mgid(0x7FFF);
  m.port_gid = Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C3ULL);
  m.qkey = 0x0000000B;
  m.mlid = Lid(0xC000);
  m.mtu_selector = 2;
  m.mtu = 4;
  m.tclass = 0;
  m.pkey = 0xFFFF;
  m.rate_selector = 2;
  m.rate = 3;
  m.pkt_life_selector = 2;
  m.pkt_life = 0x12;
  m.sl = 0;
  m.flow_label = 0x12345;
  m.hop_limit = 0xFF;
  m.scope = 2;
  m.join_state = join_state::full;
  m.proxy_join = true;
  return m;
}

}  // namespace

TEST_CASE("GIDs: IPoIB broadcast MGID, text form, bytes") {
  const Gid g = ipoib_broadcast_mgid(0x7FFF);
  CHECK(g.str() == "ff12:401b:ffff::ffff:ffff");
  CHECK(g.is_multicast());
  CHECK(g.mc_scope() == 2);
  CHECK(g.mc_signature() == kIpoibSignature);
  CHECK(g.mc_pkey() == 0xFFFF);
  CHECK(ipoib_broadcast_mgid(0x0001).str() == "ff12:401b:8001::ffff:ffff");
  const Gid p = Gid::port(Guid(0x0002c90300a1b2c3ULL));
  CHECK(p.str() == "fe80::2:c903:a1:b2c3");
  CHECK(p.is_link_local());
  CHECK_FALSE(p.is_multicast());
  std::array<uint8_t, 16> b{};
  g.encode(b);
  CHECK(std::vector<uint8_t>(b.begin(), b.end()) == test::from_hex("ff12401bffff0000 00000000ffffffff"));
  CHECK(Gid::decode(b) == g);
  CHECK(Gid().str() == "::");
}

TEST_CASE("golden IBA layout: SA MAD header with RMPP") {
  SaMad m;
  m.header.method = sa_method::get_table_resp;
  m.header.status = sa_status::no_records;
  m.header.tid = 0x0102030405060708ULL;
  m.header.attr_id = sa_attr::path_record;
  m.header.attr_mod = 0;
  m.rmpp.version = 1;
  m.rmpp.type = rmpp::Type::data;
  m.rmpp.resp_time = 0x1F;
  m.rmpp.flags = rmpp::flag_active | rmpp::flag_first | rmpp::flag_last;
  m.rmpp.segment = 1;
  m.rmpp.payload_or_window = 84;
  m.sm_key = 0xAABBCCDDEEFF0011ULL;
  m.attr_offset = 8;
  m.comp_mask = 0x30;
  m.data[0] = 0x99;
  const MadBytes b = encode_sa_mad(m);
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 57) ==
        test::from_hex("01 03 02 92 0300 0000 0102030405060708 0035 0000 00000000"  // MAD header
                       "01 01 ff 00 00000001 00000054"                              // RMPP: v1 DATA, 0x1F<<3|7
                       "aabbccddeeff0011 0008 0000 0000000000000030"               // SM_Key, offset, mask
                       "99"));
  auto d = decode_sa_mad(b);
  REQUIRE(d);
  CHECK(*d == m);
  CHECK(!print(*d).empty());
  CHECK_FALSE(decode_sa_mad(std::span<const uint8_t>(b.data(), 255)));
  MadBytes smp = b;
  smp[1] = 0x81;
  CHECK_FALSE(decode_sa_mad(smp));
}

TEST_CASE("golden IBA layout: PathRecord (Table 209)") {
  const auto bytes = enc(sample_path());
  CHECK(bytes == test::from_hex(
                     "1122334455667788"                     // ServiceID
                     "fe80000000000000 0002c90300a1b2c3"    // DGID
                     "fe80000000000000 0002c90300a1b2c4"    // SGID
                     "0102 0304"                            // DLID, SLID
                     "8abcde40"                             // RawTraffic 1, FlowLabel, HopLimit
                     "55 ff ffff"                           // TClass, Reversible|NumbPath, P_Key
                     "abcd"                                 // QoSClass 12 bits, SL 4 bits
                     "85 87 92 03"                          // MTU 2:5, Rate 2:7, PacketLifeTime 2:0x12, Preference
                     "000000000000"));
  auto d = PathRecord::decode(bytes);
  REQUIRE(d);
  CHECK(*d == sample_path());
}

namespace {

MultiPathRecord sample_multipath() {
  MultiPathRecord m;
  m.raw_traffic = true;
  m.flow_label = 0xABCDE;
  m.hop_limit = 0x40;
  m.tclass = 0x55;
  m.reversible = true;
  m.numb_path = 0x7F;
  m.pkey = 0xFFFF;
  m.qos_class = 0xABC;
  m.sl = 0xD;
  m.mtu_selector = 2, m.mtu = 5;
  m.rate_selector = 2, m.rate = 7;
  m.pkt_life_selector = 2, m.pkt_life = 0x12;
  m.service_id = 0x1122334455667788ULL;
  m.independence = 1;
  m.sgids = {Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C4ULL)};
  m.dgids = {Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C3ULL), Gid(0xFE80000000000000ULL, 0x0002C90300A1B2C5ULL)};
  return m;
}

}  // namespace

TEST_CASE("golden IBA layout: MultiPathRecord (Table 218)") {
  const MultiPathRecord m = sample_multipath();
  std::vector<uint8_t> bytes(m.size());
  m.encode(bytes);
  CHECK(bytes == test::from_hex("8abcde40"                           // RawTraffic 1, FlowLabel, HopLimit
                                "55 ff ffff abcd"                     // TClass, Reversible|NumbPath, P_Key, QoSClass|SL
                                "85 87 92"                            // MTU 2:5, Rate 2:7, PacketLifeTime 2:0x12
                                "11 40 01 02"                         // ServiceID MSB, Independence 1, SGIDCount, DGIDCount
                                "22334455667788"                      // ServiceID 56 LSB
                                "fe80000000000000 0002c90300a1b2c4"   // SGID
                                "fe80000000000000 0002c90300a1b2c3"   // DGIDs
                                "fe80000000000000 0002c90300a1b2c5"));
  auto d = MultiPathRecord::decode(bytes);
  REQUIRE(d);
  CHECK(*d == m);
  // The head is shorter than 24 bytes, or the counts announce more GIDs than there are.
  CHECK_FALSE(MultiPathRecord::decode(std::span(bytes).first(23)));
  CHECK_FALSE(MultiPathRecord::decode(std::span(bytes).first(bytes.size() - 1)));
  bytes[15] = 0xFF;
  CHECK_FALSE(MultiPathRecord::decode(bytes));
  // Every ComponentMask field in order, covering the 24-byte head exactly.
  uint32_t next = 0;
  for (const FieldSpec& f : MultiPathRecord::components()) {
    CHECK(f.bit == next);
    next = f.bit + f.width;
  }
  CHECK(next == MultiPathRecord::kHeadSize * 8);
  CHECK(MultiPathRecord::kMaxGids == 11);
  // The most GIDs one SA MAD carries fit its 200 bytes, through a whole SA MAD.
  MultiPathRecord full = m;
  full.sgids.assign(5, m.sgids[0]);
  full.dgids.assign(6, m.dgids[1]);
  SaMad mad;
  mad.header.attr_id = sa_attr::multipath_record;
  REQUIRE(full.size() == mad.data.size());
  full.encode(mad.data);
  auto back = decode_sa_mad(encode_sa_mad(mad));
  REQUIRE(back);
  auto again = MultiPathRecord::decode(back->data);
  REQUIRE(again);
  CHECK(*again == full);
  // More than fit: the counts say what was written (SGIDs first), so the bytes decode whole.
  MultiPathRecord over = m;
  over.sgids.assign(7, m.sgids[0]);
  over.dgids.assign(7, m.dgids[1]);
  over.encode(mad.data);
  auto cut = MultiPathRecord::decode(mad.data);
  REQUIRE(cut);
  CHECK(cut->sgids.size() == 7);
  CHECK(cut->dgids.size() == 4);
  CHECK(cut->dgids[3] == m.dgids[1]);
  // Above 255 of a kind: 255 written, not the count's low 8 bits.
  MultiPathRecord many = m;
  many.sgids.assign(300, m.sgids[0]);
  many.dgids.clear();
  std::vector<uint8_t> big(many.size());
  many.encode(big);
  auto most = MultiPathRecord::decode(big);
  REQUIRE(most);
  CHECK(most->sgids.size() == 255);
}

TEST_CASE("golden IBA layout: MCMemberRecord (Table 211)") {
  const auto bytes = enc(sample_member());
  CHECK(bytes == test::from_hex("ff12401bffff0000 00000000ffffffff"   // MGID
                                "fe80000000000000 0002c90300a1b2c3"   // PortGID
                                "0000000b c000"                       // Q_Key, MLID
                                "84 00 ffff 83 92"                    // MTU, TClass, P_Key, Rate, PacketLifeTime
                                "012345ff"                            // SL 0, FlowLabel, HopLimit
                                "21 80 0000"));                       // Scope|JoinState, ProxyJoin
  auto d = McMemberRecord::decode(bytes);
  REQUIRE(d);
  CHECK(*d == sample_member());
}

TEST_CASE("golden IBA layout: the attribute-wrapping records") {
  NodeRecord nr;
  nr.lid = Lid(5);
  nr.info.node_type = NodeType::ca;
  nr.info.num_ports = 2;
  nr.info.node_guid = Guid(0x1111);
  nr.info.port_guid = Guid(0x1112);
  nr.description.text = "H1";
  auto b = enc(nr);
  CHECK(b.size() == 108);
  CHECK(b[0] == 0);
  CHECK(b[1] == 5);
  CHECK(b[4] == 1);   // BaseVersion at byte 4
  CHECK(b[6] == 1);   // NodeType
  CHECK(b[44] == 'H');  // NodeDescription at byte 44
  CHECK(get_field(b, NodeRecord::components()[7]) == 0x1111);  // NodeGUID via the table
  CHECK(get_field(b, NodeRecord::components()[8]) == 0x1112);
  auto nd = NodeRecord::decode(b);
  REQUIRE(nd);
  CHECK(*nd == nr);

  PortInfoRecord pr;
  pr.endport_lid = Lid(7);
  pr.port = PortNum(3);
  pr.info.lid = Lid(7);
  pr.info.master_sm_lid = Lid(1);
  pr.info.capability_mask = 0x02010048;
  pr.info.port_state = PortState::active;
  pr.info.lmc = 2;
  pr.info.mtu_cap = 5;
  pr.info.subnet_timeout = 18;
  pr.info.link_speed_ext_enabled = 0x1F;
  b = enc(pr);
  const auto f = PortInfoRecord::components();
  CHECK(f.size() == 58);
  CHECK(get_field(b, f[0]) == 7);
  CHECK(get_field(b, f[1]) == 3);
  CHECK(get_field(b, f[5]) == 7);           // PortInfo.LID
  CHECK(get_field(b, f[6]) == 1);           // MasterSMLID
  CHECK(get_field(b, f[7]) == 0x02010048);  // CapabilityMask
  CHECK(get_field(b, f[15]) == 4);          // PortState
  CHECK(get_field(b, f[20]) == 2);          // LMC
  CHECK(get_field(b, f[31]) == 5);          // MTUCap
  CHECK(get_field(b, f[45]) == 18);         // SubnetTimeOut
  CHECK(get_field(b, f[57]) == 0x1F);       // LinkSpeedExtEnabled
  auto pd = PortInfoRecord::decode(b);
  REQUIRE(pd);
  CHECK(*pd == pr);

  PKeyTableRecord kr;
  kr.lid = Lid(9);
  kr.block = 1;
  kr.port = PortNum(4);
  kr.table.pkeys[0] = 0xFFFF;
  kr.table.pkeys[1] = 0x8001;
  b = enc(kr);
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 12) == test::from_hex("0009 0001 04 000000 ffff 8001"));
  auto kd = PKeyTableRecord::decode(b);
  REQUIRE(kd);
  CHECK(*kd == kr);

  MftRecord mr;
  mr.lid = Lid(3);
  mr.position = 1;
  mr.block = 0x101;
  mr.table.port_masks[0] = 0x0006;
  b = enc(mr);
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 10) == test::from_hex("0003 1101 00000000 0006"));
  CHECK(get_field(b, MftRecord::components()[1]) == 1);
  CHECK(get_field(b, MftRecord::components()[3]) == 0x101);
  auto md = MftRecord::decode(b);
  REQUIRE(md);
  CHECK(*md == mr);

  LinkRecord lr{Lid(1), PortNum(2), PortNum(3), Lid(4)};
  CHECK(enc(lr) == test::from_hex("0001 02 03 0004 0000"));
  CHECK(*LinkRecord::decode(enc(lr)) == lr);

  SmInfoRecord sr;
  sr.lid = Lid(1);
  sr.info.guid = Guid(0xABCD);
  sr.info.priority = 3;
  sr.info.state = SmState::master;
  b = enc(sr);
  CHECK(b.size() == 25);
  CHECK(b[24] == 0x33);
  CHECK(*SmInfoRecord::decode(b) == sr);
}

TEST_CASE("golden IBA layout: ServiceRecord, InformInfo, ClassPortInfo") {
  ServiceRecord s;
  s.id = 0x10;
  s.gid = Gid(0xFE80000000000000ULL, 0x22);
  s.pkey = 0xFFFF;
  s.lease = ServiceRecord::kInfiniteLease;
  s.key[15] = 1;
  s.name = "fabricsm-test";
  s.data8[0] = 8;
  s.data16[7] = 0x1616;
  s.data32[3] = 0x32323232;
  s.data64[1] = 0x6464646464646464ULL;
  auto b = enc(s);
  CHECK(b.size() == 176);
  CHECK(std::vector<uint8_t>(b.begin() + 24, b.begin() + 32) == test::from_hex("ffff 0000 ffffffff"));
  CHECK(b[47] == 1);
  CHECK(b[48] == 'f');
  CHECK(b[112] == 8);
  CHECK(get_field(b, ServiceRecord::components()[30]) == 0x1616);
  CHECK(get_field(b, ServiceRecord::components()[34]) == 0x32323232);
  CHECK(get_field(b, ServiceRecord::components()[36]) == 0x6464646464646464ULL);
  CHECK(ServiceRecord::components().size() == 37);
  CHECK(*ServiceRecord::decode(b) == s);

  InformInfo ii;
  ii.lid_begin = Lid(0xFFFF);
  ii.is_generic = true;
  ii.subscribe = true;
  ii.type = 0xFFFF;
  ii.trap_or_device = 64;
  ii.qpn = 1;
  ii.resp_time = 19;
  ii.producer_or_vendor = 4;
  b = enc(ii);
  CHECK(std::vector<uint8_t>(b.begin() + 16, b.end()) ==
        test::from_hex("ffff 0000 0000 01 01 ffff 0040 00000113 00 000004"));
  CHECK(*InformInfo::decode(b) == ii);

  InformInfoRecord ir;
  ir.subscriber_gid = Gid(0xFE80000000000000ULL, 0x33);
  ir.enumeration = 2;
  ir.info = ii;
  b = enc(ir);
  CHECK(b[17] == 2);
  CHECK(std::vector<uint8_t>(b.begin() + 24, b.end()) == enc(ii));
  CHECK(*InformInfoRecord::decode(b) == ir);

  ClassPortInfo c;
  c.capability_mask = 0x0602;
  c.resp_time = 18;
  c.capability_mask2 = 1;
  c.trap_lid = Lid(1);
  c.trap_qp = 1;
  c.trap_qkey = 0x80010000;
  c.trap_hop_limit = 0xFF;
  b = enc(c);
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 8) == test::from_hex("01 02 0602 00000032"));
  CHECK(std::vector<uint8_t>(b.begin() + 60, b.end()) == test::from_hex("0001 0000 ff000001 80010000"));
  CHECK(*ClassPortInfo::decode(b) == c);
}

TEST_CASE_TEMPLATE("SA records refuse short input and keep fields through a round trip", R, NodeRecord,
                   PortInfoRecord, SmInfoRecord, SwitchInfoRecord, LinkRecord, LftRecord, MftRecord,
                   GuidInfoRecord, PKeyTableRecord, PathRecord, McMemberRecord, ServiceRecord, InformInfo,
                   InformInfoRecord, ClassPortInfo) {
  std::vector<uint8_t> b(R::kSize - 1, 0);
  CHECK_FALSE(R::decode(b));
  CHECK(attr_offset_for(R::kSize) * 8 >= R::kSize);
  CHECK(attr_offset_for(R::kSize) * 8 < R::kSize + 8);
  // Encoding never writes past kSize.
  std::vector<uint8_t> big(R::kSize + 16, 0xEE);
  R{}.encode(big);
  for (size_t i = R::kSize; i < big.size(); ++i) CHECK(big[i] == 0xEE);
}

TEST_CASE("field tables cover their record without gaps or overlaps") {
  auto check = [](std::span<const FieldSpec> t, size_t record_bits, std::string_view what) {
    INFO(what);
    uint32_t next = 0;
    for (const FieldSpec& f : t) {
      CHECK(f.bit == next);
      next = f.bit + f.width;
    }
    CHECK(next <= record_bits);
  };
  check(NodeRecord::components(), NodeRecord::kSize * 8, "NodeRecord");
  check(PortInfoRecord::components(), PortInfoRecord::kSize * 8, "PortInfoRecord");
  check(SmInfoRecord::components(), SmInfoRecord::kSize * 8, "SMInfoRecord");
  check(SwitchInfoRecord::components(), SwitchInfoRecord::kSize * 8, "SwitchInfoRecord");
  check(LinkRecord::components(), LinkRecord::kSize * 8, "LinkRecord");
  check(LftRecord::components(), LftRecord::kSize * 8, "LFTRecord");
  check(MftRecord::components(), MftRecord::kSize * 8, "MFTRecord");
  check(GuidInfoRecord::components(), GuidInfoRecord::kSize * 8, "GuidInfoRecord");
  check(PKeyTableRecord::components(), PKeyTableRecord::kSize * 8, "P_KeyTableRecord");
  check(PathRecord::components(), PathRecord::kSize * 8, "PathRecord");
  check(McMemberRecord::components(), McMemberRecord::kSize * 8, "MCMemberRecord");
  check(ServiceRecord::components(), ServiceRecord::kSize * 8, "ServiceRecord");
  check(InformInfo::components(), InformInfo::kSize * 8, "InformInfo");
  check(InformInfoRecord::components(), InformInfoRecord::kSize * 8, "InformInfoRecord");
}

TEST_CASE("component matching compares exactly the selected fields") {
  PathRecord a = sample_path(), b = sample_path();
  b.slid = Lid(99);
  const auto ea = enc(a), eb = enc(b);
  const auto f = PathRecord::components();
  CHECK(components_match(ea, eb, PathRecord::c_dlid | PathRecord::c_dgid | PathRecord::c_sgid, f));
  CHECK_FALSE(components_match(ea, eb, PathRecord::c_slid, f));
  b = a;
  b.dgid = Gid(1, 2);
  CHECK_FALSE(components_match(ea, enc(b), PathRecord::c_dgid, f));
  CHECK(unknown_components(1ull << 23, f.size()) == 1ull << 23);
  CHECK(unknown_components(PathRecord::c_preference, f.size()) == 0);
}

TEST_CASE("rates: codes, order, links") {
  CHECK(rate::tenths_gbps(rate::r10) == 100);
  CHECK(rate::valid(rate::r56));
  CHECK_FALSE(rate::valid(0));
  CHECK_FALSE(rate::valid(25));
  CHECK(rate::next_lower(rate::r40) == rate::r30);
  CHECK(rate::next_lower(rate::r2_5) == 0);
  CHECK(rate::of_link(0x02, 0x1, 0, false) == rate::r10);  // 4x SDR
  CHECK(rate::of_link(0x02, 0x4, 0, false) == rate::r40);  // 4x QDR
  CHECK(rate::of_link(0x02, 0x4, 0x1, true) == rate::r56);  // 4x FDR
  CHECK(rate::of_link(0x02, 0x4, 0x2, true) == rate::r100);  // 4x EDR
  CHECK(rate::of_link(0x08, 0x1, 0, false) == rate::r30);  // 12x SDR
  CHECK(rate::of_link(0x01, 0x1, 0, false) == rate::r2_5);
}
