// Golden bytes for every attribute, two kinds:
//  - "IBA layout": the shared samples (attr_samples.h) encoded, against bytes written by hand
//    from the field tables of IBA 1.3 vol 1 14.2.5 (cross-checked with the offsets in
//    OpenSM's ib_types.h and libibmad's field table).
//  - "ibsim": SMP data captured from ibsim 0.10 (Debian ibsim-utils) on
//    /work/shared/topologies/ft2-r8.net after one OpenSM 3.3.23 sweep (opensm -o), dumped with
//    infiniband-diags 44 `smpdump -D <path> <attr> [mod]`; the expected field values are the
//    ones `smpquery -D <op> <path> [port]` printed for the same attribute. Path "0" is the CA
//    H00000 the tools attached to, "0,1" the switch S1_000 one hop away.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "attr_samples.h"
#include "hex.h"
#include "mad/attributes.h"

using namespace mad;

namespace {

template <class A>
std::vector<uint8_t> encoded(const A& a) {
  std::vector<uint8_t> b(A::kSize);
  a.encode(b);
  return b;
}

// Decodes the captured 64-byte SMP data and checks that re-encoding gives the same 64 bytes
// (ibsim leaves reserved bits zero, so nothing is lost either way).
template <class A>
A decode_captured(std::string_view dump) {
  const auto bytes = test::from_hex(dump);
  REQUIRE(bytes.size() == kSmpDataSize);
  auto d = A::decode(bytes);
  REQUIRE(d);
  SmpData again = encode_attr(*d);
  CHECK(std::vector<uint8_t>(again.begin(), again.end()) == bytes);
  return *d;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// IBA layout

TEST_CASE("golden IBA layout: NodeInfo") {
  CHECK(encoded(test::sample_node_info()) == test::from_hex(
            "01 01 02 24"               // Base/ClassVersion, NodeType switch, NumPorts 36
            "00 02 c9 03 00 a1 b2 c3"   // SystemImageGUID
            "00 02 c9 03 00 a1 b2 c4"   // NodeGUID
            "00 02 c9 03 00 a1 b2 c5"   // PortGUID
            "00 08 cf 08"               // PartitionCap, DeviceID
            "00 00 00 a1"               // Revision
            "07 00 02 c9"));            // LocalPortNum, VendorID (24 bits)
}

TEST_CASE("golden IBA layout: NodeDescription") {
  auto expect = test::from_hex("73 77 2d 6c 65 61 66 2d 30 37 20 48 43 41 2d 31 20 72 61 63 6b 20 33");
  expect.resize(64, 0);
  CHECK(encoded(test::sample_node_description()) == expect);
}

TEST_CASE("golden IBA layout: PortInfo, every field") {
  CHECK(encoded(test::sample_port_info()) == test::from_hex(
            "11 22 33 44 55 66 77 88"   //  0 M_Key
            "fe 80 00 00 00 ab cd ef"   //  8 GIDPrefix
            "01 02 03 04"               // 16 LID, MasterSMLID
            "02 00 00 0a"               // 20 CapabilityMask: ClientRereg, IsTrap, IsSM
            "05 06 07 08"               // 24 DiagCode, M_KeyLeasePeriod
            "09 03 1f 02"               // 28 LocalPortNum, LinkWidth Enabled/Supported/Active
            "73"                        // 32 LinkSpeedSupported 7, PortState Armed
            "52"                        // 33 PhysState LinkUp, LinkDownDefaultState Polling
            "85"                        // 34 M_KeyProtectBits 2, LMC 5
            "46"                        // 35 LinkSpeedActive 4, LinkSpeedEnabled 6
            "49"                        // 36 NeighborMTU 2048, MasterSMSL 9
            "4a"                        // 37 VLCap 4, InitType 0xa
            "0b 0c 0d"                  // 38 VLHighLimit, VLArbitrationHigh/LowCap
            "e5"                        // 41 InitTypeReply 0xe, MTUCap 4096
            "d3"                        // 42 VLStallCount 6, HOQLife 0x13
            "3a"                        // 43 OperationalVLs 3, PartEnfIn, FilterRawIn
            "14 15 16 17 18 19"         // 44 M_Key/P_Key/Q_Key violations
            "20"                        // 50 GUIDCap
            "d2"                        // 51 ClientReregister, McastPKeyTrapSuppr 2, SubnetTimeOut 0x12
            "11"                        // 52 RespTimeValue
            "ab"                        // 53 LocalPhyErrors 0xa, OverrunErrors 0xb
            "1c 1d"                     // 54 MaxCreditHint
            "00 1e 1f 20"               // 56 LinkRoundTripLatency (24 bits)
            "04 31"                     // 60 CapabilityMask2
            "27"                        // 62 LinkSpeedExtActive 2, LinkSpeedExtSupported 7
            "1e"));                     // 63 LinkSpeedExtEnabled 0x1e
}

TEST_CASE("golden IBA layout: SwitchInfo") {
  CHECK(encoded(test::sample_switch_info()) == test::from_hex(
            "c0 00 01 00 04 00 00 2c"   // LinearFDBCap, RandomFDBCap, MulticastFDBCap, LinearFDBTop
            "01 02 03"                  // DefaultPort, DefaultMcastPrimary/NotPrimaryPort
            "96"                        // LifeTimeValue 18, PortStateChange, OptSL2VL 2
            "00 04 00 40"               // LIDsPerPort, PartitionEnforcementCap
            "a8 00"                     // InboundEnfCap, FilterRawInboundCap, EnhancedPort0
            "c0 10"));                  // MulticastFDBTop
}

TEST_CASE("golden IBA layout: SMInfo") {
  CHECK(encoded(test::sample_sm_info()) == test::from_hex(
            "00 02 c9 03 00 00 12 34"   // GUID
            "01 02 03 04 05 06 07 08"   // SM_Key
            "0a 0b 0c 0d"               // ActCount
            "e3"));                     // Priority 14, SMState Master
}

TEST_CASE("golden IBA layout: SLtoVLMappingTable") {
  CHECK(encoded(test::sample_sl2vl()) == test::from_hex("fe dc ba 98 76 54 32 10"));
}

TEST_CASE("golden IBA layout: tables") {
  const auto lft = encoded(test::sample_lft());
  CHECK(lft[0] == 0x01);  // LID 64*block + 0
  CHECK(lft[62] == 0x3f);
  CHECK(lft[63] == 0xff);

  CHECK(encoded(test::sample_mft()) == test::from_hex(
            "10 00 11 01 12 02 13 03 14 04 15 05 16 06 17 07"
            "18 08 19 09 1a 0a 1b 0b 1c 0c 1d 0d 1e 0e 1f 0f"
            "20 10 21 11 22 12 23 13 24 14 25 15 26 16 27 17"
            "28 18 29 19 2a 1a 2b 1b 2c 1c 2d 1d 2e 1e 2f 1f"));

  const auto guids = encoded(test::sample_guid_info());
  CHECK(std::vector<uint8_t>(guids.begin(), guids.begin() + 16) ==
        test::from_hex("00 02 c9 03 00 00 00 01 00 02 c9 03 00 00 00 02"));
  CHECK(guids[63] == 0x08);

  const auto pkeys = encoded(test::sample_pkey_table());
  CHECK(std::vector<uint8_t>(pkeys.begin(), pkeys.begin() + 8) ==
        test::from_hex("ff ff 81 01 01 02 81 03"));  // default P_Key, then full/limited members

  const auto vla = encoded(test::sample_vl_arb());
  CHECK(std::vector<uint8_t>(vla.begin(), vla.begin() + 6) == test::from_hex("01 40 02 41 03 42"));
  CHECK(vla[2 * 15] == 0x01);  // entry 15: VL 1 (i % 15 + 1)
  CHECK(vla[63] == 0x5f);
}

TEST_CASE("golden IBA layout: Notice") {
  auto expect = test::from_hex(
      "82 00 00 04"   // IsGeneric, Type Security; ProducerType class manager
      "01 00"         // TrapNumber 256
      "0a 0b"         // IssuerLID
      "92 34");       // NoticeToggle, NoticeCount 0x1234
  for (uint8_t i = 1; i <= 54; ++i) expect.push_back(i);                  // DataDetails
  for (uint8_t i = 0; i < 16; ++i) expect.push_back(static_cast<uint8_t>(0xf0 + i));  // IssuerGID
  CHECK(encoded(test::sample_notice()) == expect);
}

// ---------------------------------------------------------------------------------------
// ibsim captures

TEST_CASE("golden ibsim: NodeInfo of switch S1_000 (smpdump -D 0,1 0x11)") {
  const auto n = decode_captured<NodeInfo>(R"(
      0101 0208 0000 0000 0020 0000 0000 0000
      0020 0000 0000 0000 0020 0000 0008 0000
      0000 00a1 0100 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  CHECK(n.base_version == 1);
  CHECK(n.class_version == 1);
  CHECK(n.node_type == NodeType::sw);
  CHECK(n.num_ports == 8);
  CHECK(n.system_image_guid == Guid(0x200000));
  CHECK(n.node_guid == Guid(0x200000));
  CHECK(n.port_guid == Guid(0x200000));
  CHECK(n.partition_cap == 8);
  CHECK(n.device_id == 0);
  CHECK(n.revision == 0xa1);
  CHECK(n.local_port_num == PortNum(1));
  CHECK(n.vendor_id == 0);
}

TEST_CASE("golden ibsim: NodeInfo of CA H00000 (smpdump -D 0 0x11)") {
  const auto n = decode_captured<NodeInfo>(R"(
      0101 0101 0000 0000 0010 0000 0000 0000
      0010 0000 0000 0000 0010 0001 0040 0000
      0000 00a1 0100 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  CHECK(n.node_type == NodeType::ca);
  CHECK(n.num_ports == 1);
  CHECK(n.system_image_guid == Guid(0x100000));
  CHECK(n.node_guid == Guid(0x100000));
  CHECK(n.port_guid == Guid(0x100001));
  CHECK(n.partition_cap == 64);
  CHECK(n.revision == 0xa1);
  CHECK(n.local_port_num == PortNum(1));
}

TEST_CASE("golden ibsim: PortInfo of switch port 0 (smpdump -D 0,1 0x15 0)") {
  const auto p = decode_captured<PortInfo>(R"(
      0000 0000 0000 0000 fe80 0000 0000 0000
      0002 0001 0000 c048 0000 0ff9 0102 1f02
      7452 0011 1040 0008 0803 0040 0000 0000
      0000 011f 0800 0000 0000 0000 0030 0000)");
  CHECK(p.gid_prefix == 0xfe80000000000000);
  CHECK(p.lid == Lid(2));
  CHECK(p.master_sm_lid == Lid(1));
  CHECK(p.capability_mask == 0xc048);
  CHECK(p.has_cap(port_cap::is_trap_supported));
  CHECK(p.has_cap(port_cap::is_sl_mapping_supported));
  CHECK(p.has_cap(port_cap::is_extended_speeds_supported));
  CHECK(p.has_cap(port_cap::is_capability_mask2_supported));
  CHECK(!p.has_cap(port_cap::is_sm));
  CHECK(p.diag_code == 0);
  CHECK(p.m_key_lease_period == 4089);
  CHECK(p.local_port_num == PortNum(1));
  CHECK(p.link_width_enabled == link_width::x4);
  CHECK(p.link_width_supported == 0x1f);  // 1X or 4X or 8X or 12X or 2X
  CHECK(p.link_width_active == link_width::x4);
  CHECK(p.link_speed_supported == 7);     // 2.5, 5.0, 10.0 Gbps
  CHECK(p.port_state == PortState::active);
  CHECK(p.phys_state == PhysState::link_up);
  CHECK(p.link_down_default_state == 2);  // Polling
  CHECK(p.m_key_protect_bits == 0);
  CHECK(p.lmc == 0);
  CHECK(p.link_speed_active == link_speed::sdr);
  CHECK(p.link_speed_enabled == link_speed::sdr);
  CHECK(p.neighbor_mtu == mtu::mtu256);
  CHECK(p.master_sm_sl == 0);
  CHECK(p.vl_cap == 4);                   // VL0-7
  CHECK(p.init_type == 0);
  CHECK(p.vl_high_limit == 0);
  CHECK(p.vl_arb_high_cap == 8);
  CHECK(p.vl_arb_low_cap == 8);
  CHECK(p.init_type_reply == 0);
  CHECK(p.mtu_cap == mtu::mtu1024);
  CHECK(p.vl_stall_count == 0);
  CHECK(p.hoq_life == 0);
  CHECK(p.operational_vls == 4);          // VL0-7
  CHECK(!p.partition_enforcement_inbound);
  CHECK(!p.partition_enforcement_outbound);
  CHECK(!p.filter_raw_inbound);
  CHECK(!p.filter_raw_outbound);
  CHECK(p.m_key_violations == 0);
  CHECK(p.p_key_violations == 0);
  CHECK(p.q_key_violations == 0);
  CHECK(p.guid_cap == 1);
  CHECK(!p.client_reregister);
  CHECK(p.mcast_pkey_trap_suppression_enabled == 0);
  CHECK(p.subnet_timeout == 31);
  CHECK(p.resp_time_value == 8);
  CHECK(p.local_phy_errors == 0);
  CHECK(p.overrun_errors == 0);
  CHECK(p.max_credit_hint == 0);
  CHECK(p.link_round_trip_latency == 0);
  CHECK(p.capability_mask2 ==
        (port_cap2::is_link_width_2x_supported | port_cap2::is_link_speed_hdr_supported));
  CHECK(p.link_speed_ext_active == 0);
  CHECK(p.link_speed_ext_supported == 0);
  CHECK(p.link_speed_ext_enabled == 0);
}

TEST_CASE("golden ibsim: PortInfo of switch port 1 (smpdump -D 0,1 0x15 1)") {
  const auto p = decode_captured<PortInfo>(R"(
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0103 1f02
      7452 0047 4040 0008 0804 f040 0000 0000
      0000 0000 0000 0000 0000 0000 0000 4707)");
  CHECK(p.lid == Lid(0));  // a switch's external ports have no LID of their own
  CHECK(p.capability_mask == 0);
  CHECK(p.local_port_num == PortNum(1));
  CHECK(p.link_width_enabled == (link_width::x1 | link_width::x4));
  CHECK(p.link_width_active == link_width::x4);
  CHECK(p.port_state == PortState::active);
  CHECK(p.phys_state == PhysState::link_up);
  CHECK(p.link_speed_active == link_speed::qdr);
  CHECK(p.link_speed_enabled == 7);
  CHECK(p.neighbor_mtu == mtu::mtu2048);
  CHECK(p.mtu_cap == mtu::mtu2048);
  CHECK(p.vl_stall_count == 7);
  CHECK(p.hoq_life == 16);
  CHECK(p.operational_vls == 4);
  CHECK(p.subnet_timeout == 0);
  CHECK(p.link_speed_ext_active == link_speed_ext::hdr);  // 53.125 Gbps
  CHECK(p.link_speed_ext_supported == 7);                 // FDR, EDR, HDR
  CHECK(p.link_speed_ext_enabled == 7);
}

TEST_CASE("golden ibsim: PortInfo of CA H00000 port 1 (smpdump -D 0 0x15 1)") {
  const auto p = decode_captured<PortInfo>(R"(
      0000 0000 0000 0000 fe80 0000 0000 0000
      0001 0001 0050 c048 0000 0ff9 0103 1f02
      7452 0047 4040 0008 0804 e040 0000 0000
      0000 201f 0000 0000 0000 0000 0030 4707)");
  CHECK(p.lid == Lid(1));
  CHECK(p.master_sm_lid == Lid(1));
  CHECK(p.capability_mask == 0x50c048);
  CHECK(p.has_cap(port_cap::is_vendor_class_supported));
  CHECK(p.has_cap(port_cap::is_capability_mask_notice_supported));
  CHECK(p.m_key_lease_period == 4089);
  CHECK(p.link_speed_active == link_speed::qdr);
  CHECK(p.vl_stall_count == 7);
  CHECK(p.hoq_life == 0);
  CHECK(p.guid_cap == 32);
  CHECK(p.subnet_timeout == 31);
  CHECK(p.resp_time_value == 0);
  CHECK(p.capability_mask2 == 0x30);
  CHECK(p.link_speed_ext_active == link_speed_ext::hdr);
}

TEST_CASE("golden ibsim: SwitchInfo (smpdump -D 0,1 0x12)") {
  const auto s = decode_captured<SwitchInfo>(R"(
      c000 0000 0400 002c 0000 0090 0000 0040
      3000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  CHECK(s.linear_fdb_cap == 49152);
  CHECK(s.random_fdb_cap == 0);
  CHECK(s.multicast_fdb_cap == 1024);
  CHECK(s.linear_fdb_top == Lid(44));
  CHECK(s.default_port == PortNum(0));
  CHECK(s.default_mcast_primary_port == PortNum(0));
  CHECK(s.default_mcast_not_primary_port == PortNum(0));
  CHECK(s.life_time_value == 18);
  CHECK(!s.port_state_change);
  CHECK(s.optimized_sl2vl_programming == 0);
  CHECK(s.lids_per_port == 0);
  CHECK(s.partition_enforcement_cap == 64);
  CHECK(!s.inbound_enforcement_cap);
  CHECK(!s.outbound_enforcement_cap);
  CHECK(s.filter_raw_inbound_cap);
  CHECK(s.filter_raw_outbound_cap);
  CHECK(!s.enhanced_port0);
  CHECK(s.multicast_fdb_top == Lid(0));
}

TEST_CASE("golden ibsim: LinearForwardingTable block 0 (smpdump -D 0,1 0x19 0)") {
  const auto t = decode_captured<LinearForwardingTable>(R"(
      ff01 0005 0502 0505 0305 0504 0505 0506
      0706 0807 0805 0607 0805 0607 0805 0607
      0805 0607 0805 0607 0805 0607 08ff ffff
      ffff ffff ffff ffff ffff ffff ffff ffff)");
  // Out ports of LIDs 1..44 as `ibroute -D 0,1` printed them.
  const uint8_t ibroute[44] = {1, 0, 5, 5, 2, 5, 5, 3, 5, 5, 4, 5, 5, 5, 6, 7, 6, 8, 7, 8, 5, 6,
                               7, 8, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8};
  CHECK(t.ports[0] == LinearForwardingTable::kUnreachable);
  for (size_t lid = 1; lid <= 44; ++lid) {
    CAPTURE(lid);
    CHECK(t.ports[lft_index_of(Lid(static_cast<uint16_t>(lid)))] == PortNum(ibroute[lid - 1]));
  }
  for (size_t i = 45; i < 64; ++i) CHECK(t.ports[i] == LinearForwardingTable::kUnreachable);
}

TEST_CASE("golden ibsim: MulticastForwardingTable block 0 is empty after OpenSM -o") {
  // smpdump -D 0,1 0x1b 0; `ibroute -M -D 0,1` printed "0 valid mlids dumped".
  const auto t = decode_captured<MulticastForwardingTable>(R"(
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  CHECK(t == MulticastForwardingTable{});
}

TEST_CASE("golden ibsim: NodeDescription (smpdump -D 0,1 0x10 and -D 0 0x10)") {
  CHECK(decode_captured<NodeDescription>(R"(
      5331 5f30 3030 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)").text == "S1_000");
  CHECK(decode_captured<NodeDescription>(R"(
      4830 3030 3030 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)").text == "H00000");
}

TEST_CASE("golden ibsim: P_KeyTable block 0 (smpdump -D 0 0x16 0 and -D 0,1 0x16 0x10000)") {
  // Same bytes from the CA and from switch port 1; smpquery pkeys printed 0xffff then zeros.
  const auto t = decode_captured<PKeyTable>(R"(
      ffff 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  CHECK(t.pkeys[0] == kDefaultPKey);
  CHECK(pkey_is_full_member(t.pkeys[0]));
  for (size_t i = 1; i < 32; ++i) CHECK(t.pkeys[i] == 0);
}

TEST_CASE("golden ibsim: GUIDInfo block 0 (smpdump -D 0 0x14 0)") {
  // smpquery has no GUIDInfo op; GUID0 must be the PortGUID NodeInfo reported (0x100001).
  const auto g = decode_captured<GuidInfo>(R"(
      0000 0000 0010 0001 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  CHECK(g.guids[0] == Guid(0x100001));
  for (size_t i = 1; i < 8; ++i) CHECK(g.guids[i].is_zero());
}

TEST_CASE("golden ibsim: SLtoVLMappingTable (smpdump -D 0 0x17 0, -D 0,1 0x17 0x0102)") {
  // smpquery sl2vl: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|
  const auto t = decode_captured<Sl2VlTable>(R"(
      0123 4567 89ab cde7 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  const std::array<uint8_t, 16> smpquery = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7};
  CHECK(t.vl == smpquery);
}

TEST_CASE("golden ibsim: VLArbitrationTable low and high (smpdump 0x18 0x10000 / 0x30001)") {
  // smpquery vlarb, low priority: VL 0..7 weights 0,4,4,4,4,4,4,4.
  const auto low = decode_captured<VlArbTable>(R"(
      0000 0104 0204 0304 0404 0504 0604 0704
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  for (uint8_t i = 0; i < 8; ++i) {
    CHECK(low.entries[i].vl == i);
    CHECK(low.entries[i].weight == (i == 0 ? 0 : 4));
  }
  // High priority (switch port 1): VL 0..7 weights 4,0,0,0,0,0,0,0.
  const auto high = decode_captured<VlArbTable>(R"(
      0004 0100 0200 0300 0400 0500 0600 0700
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000
      0000 0000 0000 0000 0000 0000 0000 0000)");
  for (uint8_t i = 0; i < 8; ++i) {
    CHECK(high.entries[i].vl == i);
    CHECK(high.entries[i].weight == (i == 0 ? 4 : 0));
  }
}
