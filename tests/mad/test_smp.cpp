#include <doctest/doctest.h>

#include "mad/smp.h"

using namespace mad;

TEST_CASE("DR SMP golden bytes: NodeInfo Get along 0,1,3") {
  DrPath path;
  path.push(PortNum(1));
  path.push(PortNum(3));
  Smp s = make_dr_smp(method::get, attr::node_info, 0, path);
  s.tid = 0x0000000100000007ULL;
  MadBytes b = encode_smp(s);
  // Common header (IBA 13.4.2) then the DR SMP fields (IBA 14.2.1.2).
  CHECK(b[0] == 0x01);  // BaseVersion
  CHECK(b[1] == 0x81);  // MgmtClass: directed route
  CHECK(b[2] == 0x01);  // ClassVersion
  CHECK(b[3] == 0x01);  // Method: Get
  CHECK(b[4] == 0x00);  // D bit 0, status 0
  CHECK(b[5] == 0x00);
  CHECK(b[6] == 0x00);  // hop pointer
  CHECK(b[7] == 0x02);  // hop count
  CHECK(b[12] == 0x00);
  CHECK(b[15] == 0x07);  // TID low byte
  CHECK(b[11] == 0x01);
  CHECK(b[16] == 0x00);
  CHECK(b[17] == 0x11);  // AttributeID NodeInfo
  CHECK(b[32] == 0xFF);  // DrSLID permissive
  CHECK(b[33] == 0xFF);
  CHECK(b[34] == 0xFF);  // DrDLID permissive
  CHECK(b[35] == 0xFF);
  CHECK(b[128] == 0x00);  // InitialPath[0] unused
  CHECK(b[129] == 0x01);
  CHECK(b[130] == 0x03);
  CHECK(b[131] == 0x00);
}

TEST_CASE("SMP round trip keeps every field, DR and LID-routed") {
  Smp s = make_dr_smp(method::set, attr::port_info, 7, DrPath().extended(PortNum(2)));
  s.direction = true;
  s.status = status::invalid_field;
  s.hop_ptr = 1;
  s.tid = 0x1122334455667788ULL;
  s.mkey = 0xCAFEBABE00000001ULL;
  s.dr_slid = Lid(3);
  s.data[0] = 0x42;
  s.data[63] = 0x24;
  s.return_path[1] = 9;
  auto d = decode_smp(encode_smp(s));
  REQUIRE(d);
  CHECK(*d == s);

  Smp l = make_lid_smp(method::get, attr::sm_info, 0);
  l.status = 0x8001;  // LID-routed: bit 15 is plain status
  l.tid = 5;
  auto dl = decode_smp(encode_smp(l));
  REQUIRE(dl);
  CHECK(*dl == l);
}

TEST_CASE("SMP decoding refuses what is not an SMP") {
  MadBytes b = encode_smp(make_dr_smp(method::get, attr::node_info, 0, DrPath()));
  CHECK(decode_smp(std::span(b).first(255)).error().code == Errc::truncated);
  CHECK(decode_smp(std::span<const uint8_t>()).error().code == Errc::truncated);
  MadBytes other = b;
  other[1] = 0x03;  // SA class
  CHECK(decode_smp(other).error().code == Errc::invalid);
  MadBytes hops = b;
  hops[7] = 64;
  CHECK(decode_smp(hops).error().code == Errc::invalid);
  MadBytes ver = b;
  ver[0] = 2;
  CHECK(decode_smp(ver).error().code == Errc::invalid);
}

TEST_CASE("DrPath order: shorter first, then by port") {
  DrPath a, b;
  a.push(PortNum(2));
  b.push(PortNum(1));
  b.push(PortNum(1));
  CHECK(a < b);
  DrPath c;
  c.push(PortNum(1));
  CHECK(c < a);
  CHECK(c.str() == "0,1");
  CHECK(DrPath().str() == "0");
  DrPath full;
  for (int i = 0; i < DrPath::kMaxHops; ++i) CHECK(full.push(PortNum(1)));
  CHECK_FALSE(full.push(PortNum(1)));
  CHECK(full.hops() == 63);
}

TEST_CASE("status descriptions name the IBA codes") {
  CHECK(status::describe(0) == "ok");
  CHECK(status::describe(status::invalid_field) == "0x001c (invalid attribute or modifier value)");
  CHECK(status::describe(status::unsupported_method_attr).find("combination") != std::string::npos);
}
