// QoS options: the table texts (strict, with the reason), inheritance class -> general ->
// OpenSM's default, and VLs masked by OperationalVLs as OpenSM masks them.
#include <doctest/doctest.h>

#include "sm/program/qos_config.h"

TEST_CASE("qos config: VL arbitration and SL-to-VL texts") {
  auto a = sm::parse_vlarb(" 0:4, 1:0 ,14:255");
  REQUIRE(a);
  REQUIRE(a->size() == 3);
  CHECK((*a)[0] == mad::VlArbEntry{0, 4});
  CHECK((*a)[2] == mad::VlArbEntry{14, 255});
  for (const char* bad : {"0:4,1", "15:1", "0:256", "x:1", "0:4,,1:2", "-1:3"}) {
    auto r = sm::parse_vlarb(bad);
    CHECK_MESSAGE(!r, bad);
  }
  std::string many;
  for (int i = 0; i < 65; ++i) many += (i ? "," : "") + std::string("1:1");
  auto m = sm::parse_vlarb(many);
  REQUIRE(!m);
  CHECK(m.error().message.find("64") != std::string::npos);

  auto s = sm::parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
  REQUIRE(s);
  CHECK((*s)[15] == 15);
  auto short_ = sm::parse_sl2vl("0,1,2");
  REQUIRE(!short_);
  CHECK(short_.error().message.find("16") != std::string::npos);
  CHECK(!sm::parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16"));
  CHECK(!sm::parse_sl2vl("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0"));
}

TEST_CASE("qos config: a class inherits the general options, which inherit OpenSM's defaults") {
  sm::QosOptions o;
  o.enabled = true;
  const sm::QosTables d = sm::resolve_qos(o, sm::QosClass::ca);
  CHECK(d.max_vls == 15);
  CHECK(d.high_limit == 0);
  CHECK(d.sl2vl == std::array<uint8_t, 16>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7});
  CHECK(d.vlarb_high[0] == mad::VlArbEntry{0, 4});
  CHECK(d.vlarb_high[1] == mad::VlArbEntry{1, 0});
  CHECK(d.vlarb_low[0] == mad::VlArbEntry{0, 0});
  CHECK(d.vlarb_low[14] == mad::VlArbEntry{14, 4});
  CHECK(d.vlarb_low[15] == mad::VlArbEntry{0, 0});  // past the list: weight 0, skipped

  o.general.max_vls = 4;
  o.general.sl2vl = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
  o.swe.high_limit = 7;
  o.swe.sl2vl = "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2";
  const sm::QosTables ca = sm::resolve_qos(o, sm::QosClass::ca);
  const sm::QosTables swe = sm::resolve_qos(o, sm::QosClass::swe);
  CHECK(ca.max_vls == 4);
  CHECK(ca.high_limit == 0);
  CHECK(ca.sl2vl[3] == 1);
  CHECK(swe.max_vls == 4);
  CHECK(swe.high_limit == 7);
  CHECK(swe.sl2vl[3] == 2);
  CHECK(sm::check_qos(o));
  o.sw0.vlarb_low = "0:1,20:1";
  CHECK(!sm::check_qos(o));
}

TEST_CASE("qos config: OperationalVLs for a VL budget, and VLs masked by it") {
  CHECK(sm::op_vls_for(1) == 1);
  CHECK(sm::op_vls_for(2) == 2);
  CHECK(sm::op_vls_for(3) == 2);
  CHECK(sm::op_vls_for(4) == 3);
  CHECK(sm::op_vls_for(8) == 4);
  CHECK(sm::op_vls_for(14) == 4);
  CHECK(sm::op_vls_for(15) == 5);
  CHECK(sm::vl_within(5, 3) == 1);   // VL0-3: 5 & 3
  CHECK(sm::vl_within(7, 4) == 7);
  CHECK(sm::vl_within(9, 4) == 1);
  CHECK(sm::vl_within(14, 5) == 14);
  CHECK(sm::vl_within(6, 1) == 0);
  CHECK(sm::vl_within(15, 1) == 15);  // drop stays drop
}
