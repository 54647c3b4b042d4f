// Notice and the typed trap views: built by us, and as ibsim sends them.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>

#include "hex.h"
#include "mad/attributes.h"

using namespace mad;

TEST_CASE("trap 128: make, encode, decode, typed view") {
  const Notice n = Notice::make_trap128(Lid(6), Lid(6));
  std::array<uint8_t, Notice::kSize> b{};
  n.encode(b);
  CHECK(b[0] == 0x81);  // generic, urgent
  CHECK(b[3] == 0x02);  // producer: switch
  CHECK(b[4] == 0x00);
  CHECK(b[5] == 0x80);  // trap 128
  CHECK(b[7] == 0x06);  // IssuerLID
  CHECK(b[10] == 0x00);
  CHECK(b[11] == 0x06);  // DataDetails LIDADDR
  auto d = Notice::decode(b);
  REQUIRE(d);
  CHECK(*d == n);
  REQUIRE(d->trap128());
  CHECK(d->trap128()->lid == Lid(6));
  CHECK(!d->trap144());
  CHECK(!d->trap129to131());
  CHECK(!d->trap_gid());
  CHECK(d->to_string().find("TrapNumber: 128 (LinkStateChange)\nIssuerLID: 6\n") !=
        std::string::npos);
  CHECK(d->to_string().find("LIDADDR: 6\n") != std::string::npos);
}

TEST_CASE("trap 144: make, encode, decode, typed view") {
  Trap144 t;
  t.lid = Lid(0x0123);
  t.other_local_changes = true;
  t.capability_mask = port_cap::is_sm | port_cap::is_trap_supported;
  t.change_flags = trap144::node_description_changed | trap144::sm_priority_changed;
  t.capability_mask2 = port_cap2::is_link_width_2x_supported;
  const Notice n = Notice::make_trap144(Lid(0x0123), producer_type::ca, t);
  std::array<uint8_t, Notice::kSize> b{};
  n.encode(b);
  CHECK(b[0] == 0x84);  // generic, informational
  CHECK(b[3] == 0x01);  // producer: CA
  CHECK(b[5] == 0x90);  // trap 144
  // DataDetails: reserved 2, LIDADDR 2, reserved 1, OtherLocalChanges, CapabilityMask 4,
  // change flags 2, CapabilityMask2 2.
  CHECK(std::vector<uint8_t>(b.begin() + 10, b.begin() + 24) ==
        test::from_hex("00 00 01 23 00 01 00 00 00 0a 00 09 00 10"));
  auto d = Notice::decode(b);
  REQUIRE(d);
  CHECK(*d == n);
  REQUIRE(d->trap144());
  CHECK(*d->trap144() == t);
  CHECK(!d->trap128());
}

TEST_CASE("trap 256: make, encode to golden bytes, decode, typed view") {
  Trap256 t;
  t.lid = kPermissiveLid;  // a directed-route requester
  t.dr_slid = Lid(0x0012);
  t.method = method::set;
  t.attr_id = attr::port_info;
  t.attr_mod = 0x00000007;
  t.m_key = 0x0102030405060708ULL;
  t.dr_notice = true;
  t.dr_hop_count = 5;
  for (size_t i = 0; i < t.dr_return_path.size(); ++i)
    t.dr_return_path[i] = static_cast<uint8_t>(0xC0 + i);
  const Notice n = Notice::make_trap256(Lid(0x0abc), producer_type::sw, t);
  std::array<uint8_t, Notice::kSize> b{};
  n.encode(b);
  // Header: generic, security (2); producer switch; trap 0x0100; IssuerLID 0x0abc; count 0.
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 10) ==
        test::from_hex("82 00 00 02 01 00 0a bc 00 00"));
  // DataDetails: reserved 2, LIDADDR, DrSLID, Method, reserved, AttributeID,
  // AttributeModifier, M_Key, reserved, DRNotice|DRPathTruncated|DRHopCount, return path.
  CHECK(std::vector<uint8_t>(b.begin() + 10, b.begin() + 34) ==
        test::from_hex("00 00 ff ff 00 12 02 00 00 15 00 00 00 07 01 02 03 04 05 06 07 08 00 85"));
  CHECK(std::vector<uint8_t>(b.begin() + 34, b.begin() + 64) ==
        test::from_hex("c0 c1 c2 c3 c4 c5 c6 c7 c8 c9 ca cb cc cd ce cf"
                       "d0 d1 d2 d3 d4 d5 d6 d7 d8 d9 da db dc dd"));
  auto d = Notice::decode(b);
  REQUIRE(d);
  CHECK(*d == n);
  REQUIRE(d->trap256());
  CHECK(*d->trap256() == t);
  CHECK(!d->trap128());
  CHECK(!d->trap144());
  CHECK(d->to_string().find("TrapNumber: 256 (BadM_Key)\n") != std::string::npos);
  CHECK(d->to_string().find("M_Key: 0x0102030405060708\n") != std::string::npos);
}

TEST_CASE("trap 256: byte 23 packs DRNotice, DRPathTruncated and a 6-bit hop count") {
  Trap256 t;
  t.lid = Lid(0x0042);  // a LID-routed requester: no DR fields
  t.method = method::get;
  t.m_key = 0xFFFFFFFFFFFFFFFFULL;
  Notice n = Notice::make_trap256(Lid(1), producer_type::ca, t);
  CHECK(n.data_details[23] == 0x00);
  CHECK(n.data_details[3] == 0x42);
  REQUIRE(n.trap256());
  CHECK(*n.trap256() == t);

  t.dr_notice = true;
  t.dr_path_truncated = true;
  t.dr_hop_count = 63;
  n = Notice::make_trap256(Lid(1), producer_type::ca, t);
  CHECK(n.data_details[23] == 0xFF);
  REQUIRE(n.trap256());
  CHECK(*n.trap256() == t);

  t.dr_notice = false;
  t.dr_hop_count = 0x2A;
  n = Notice::make_trap256(Lid(1), producer_type::ca, t);
  CHECK(n.data_details[23] == 0x6A);
  REQUIRE(n.trap256());
  CHECK(*n.trap256() == t);

  // Not trap 256: another trap, or a vendor notice with DeviceID 256.
  n.trap_or_device_id = trap::bad_p_key;
  CHECK(!n.trap256());
  n.trap_or_device_id = trap::bad_m_key;
  n.is_generic = false;
  CHECK(!n.trap256());
  CHECK(!Notice::make_trap128(Lid(6), Lid(6)).trap256());
}

TEST_CASE("traps 129-131 and 64-67: typed views") {
  Notice n;
  n.is_generic = true;
  n.trap_or_device_id = trap::buffer_overrun_threshold;
  n.data_details[2] = 0x00;
  n.data_details[3] = 0x2a;
  n.data_details[4] = 17;
  REQUIRE(n.trap129to131());
  CHECK(n.trap129to131()->lid == Lid(42));
  CHECK(n.trap129to131()->port == PortNum(17));

  n.trap_or_device_id = trap::gid_out_of_service;
  CHECK(!n.trap129to131());
  for (size_t i = 0; i < 16; ++i) n.data_details[6 + i] = static_cast<uint8_t>(0xA0 + i);
  REQUIRE(n.trap_gid());
  CHECK(n.trap_gid()->gid[0] == 0xA0);
  CHECK(n.trap_gid()->gid[15] == 0xAF);

  // A vendor notice whose DeviceID happens to be 128 is not trap 128.
  n.is_generic = false;
  n.trap_or_device_id = 128;
  CHECK(!n.trap128());
  CHECK(!n.is_trap(128));
  CHECK(n.to_string().find("DeviceID: 0x0080") != std::string::npos);
}

TEST_CASE("trap_name knows the generic SM traps") {
  CHECK(trap_name(64) == "GIDInService");
  CHECK(trap_name(65) == "GIDOutOfService");
  CHECK(trap_name(128) == "LinkStateChange");
  CHECK(trap_name(129) == "LinkIntegrityThreshold");
  CHECK(trap_name(130) == "BufferOverrunThreshold");
  CHECK(trap_name(131) == "FlowControlUpdateWatchdog");
  CHECK(trap_name(144) == "LocalChanges");
  CHECK(trap_name(145) == "SystemImageGUIDChanged");
  CHECK(trap_name(256) == "BadM_Key");
  CHECK(trap_name(257) == "BadP_Key");
  CHECK(trap_name(258) == "BadQ_Key");
  CHECK(trap_name(259) == "BadP_KeySwitchExternalPort");
  CHECK(trap_name(1) == "Unknown");
}

// Both MADs below were received from ibsim 0.10 (ft2-r8.net, after an OpenSM sweep) by a
// throwaway libibumad client registered for class 0x01 on H00000 (LID 1, the SM LID):
//  - trap 144 from H00000 itself when the client opened the issm device (IsSM set);
//  - trap 128 from switch S1_003 (LID 6) after the ibsim console command Unlink "S1_003"[1].
// Bytes 232-243 of the first are junk ibsim left in the (unused) LID-routed SMP reserved area.
namespace {
constexpr std::string_view kIbsimTrap144 = R"(
    01 01 01 05 00 00 00 00 00 00 00 00 00 00 00 00
    00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    84 00 00 01 00 90 00 01 00 00 00 00 00 01 00 00
    00 50 c0 4a 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 25 00 00 00 00 00 00 00
    00 00 ef f6 07 00 00 00 00 00 00 00 00 00 00 00)";
constexpr std::string_view kIbsimTrap128 = R"(
    01 01 01 05 00 00 00 00 00 00 00 00 00 00 00 00
    00 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    81 00 00 02 00 80 00 06 00 00 00 06 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    00 00 00 00 00 00 00 00 01 02 02 00 00 00 00 00
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00)";
}  // namespace

TEST_CASE("golden ibsim: trap 144 from CA H00000 when its IsSM bit came on") {
  const auto mad = test::from_hex(kIbsimTrap144);
  REQUIRE(mad.size() == kMadSize);
  auto s = decode_smp(mad);
  REQUIRE(s);
  CHECK(s->mgmt_class == mgmt_class::subn_lid_routed);
  CHECK(s->method == method::trap);
  auto n = decode_attr<Notice>(*s);
  REQUIRE(n);
  CHECK(n->is_generic);
  CHECK(n->type == notice_type::info);
  CHECK(n->producer_or_vendor == producer_type::ca);
  CHECK(n->trap_or_device_id == trap::local_changes);
  CHECK(n->issuer_lid == Lid(1));
  CHECK(!n->toggle);
  CHECK(n->count == 0);
  auto t = n->trap144();
  REQUIRE(t);
  CHECK(t->lid == Lid(1));
  CHECK(!t->other_local_changes);
  CHECK(t->capability_mask == 0x0050c04a);  // the CA's 0x50c048 (golden PortInfo) + IsSM
  CHECK((t->capability_mask & port_cap::is_sm) != 0);
  CHECK(t->change_flags == 0);
  CHECK(t->capability_mask2 == 0);
  // What we would send for the same event is byte-identical in the SMP data.
  Trap144 same{Lid(1), false, 0x0050c04a, 0, 0};
  CHECK(encode_attr(Notice::make_trap144(Lid(1), producer_type::ca, same)) == s->data);
}

TEST_CASE("golden ibsim: trap 128 from switch S1_003 after Unlink") {
  auto s = decode_smp(test::from_hex(kIbsimTrap128));
  REQUIRE(s);
  CHECK(s->method == method::trap);
  auto n = decode_attr<Notice>(*s);
  REQUIRE(n);
  CHECK(n->type == notice_type::urgent);
  CHECK(n->producer_or_vendor == producer_type::sw);
  CHECK(n->issuer_lid == Lid(6));
  REQUIRE(n->trap128());
  CHECK(n->trap128()->lid == Lid(6));
  CHECK(encode_attr(Notice::make_trap128(Lid(6), Lid(6))) == s->data);
}
