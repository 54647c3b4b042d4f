// Net-file reader and writer: the reference files, ibsim's GUID and link rules, the format's
// variants, includes, and write/parse round trips.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "sim/netfile.h"
#include "tests/sim/netfile_test_util.h"

using namespace sim;
using sim_test::find_node;
using sim_test::link_of;
using sim_test::slurp;

namespace {

struct Expect {
  const char* file;
  size_t switches, cas, links;
};

// The routing metrics order CAs by their switches' GUIDs (fabric/metrics.h); for the reports
// of sim/metrics.h to keep the file's leaf order, GUIDs must ascend in file order.
bool switch_guids_ascend(const FabricSpec& spec) {
  mad::Guid last;
  for (const SpecNode& n : spec.nodes) {
    if (n.type != mad::NodeType::sw) continue;
    if (!(last < n.node_guid)) return false;
    last = n.node_guid;
  }
  return true;
}

}  // namespace

TEST_CASE("the shared topologies load with their counts and are written back byte for byte") {
  const Expect files[] = {{"ft2-r8.net", 12, 32, 64},
                          {"ft3-r8.net", 80, 128, 384},
                          {"ft3-r16.net", 320, 1024, 3072},
                          {"ft3-r16-degraded5.net", 320, 1024, 2970}};
  for (const Expect& e : files) {
    std::string path = std::string(FABRICSM_TOPO_DIR) + "/" + e.file;
    CAPTURE(path);
    auto spec = load_netfile(path);
    REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
    SpecCounts c = count_spec(*spec);
    CHECK(c.switches == e.switches);
    CHECK(c.cas == e.cas);
    CHECK(c.routers == 0);
    CHECK(c.links == e.links);
    CHECK(c.components == 1);
    CHECK(spec->nodes.front().type == mad::NodeType::ca);  // ibsim attaches its client there
    CHECK(switch_guids_ascend(*spec));
    CHECK(write_netfile(*spec) == slurp(path));
  }
}

TEST_CASE("the ibsim example files load") {
  const Expect files[] = {{"net", 2, 2, 4},
                          {"net.1", 1, 2, 2},
                          {"net.2sw2path", 2, 2, 4},
                          {"net.2sw2path4hca", 2, 4, 6},
                          {"net.2sw2path4hca2port", 2, 2, 6}};
  for (const Expect& e : files) {
    std::string path = std::string(FABRICSM_IBSIM_EXAMPLES) + "/" + e.file;
    CAPTURE(path);
    auto spec = load_netfile(path);
    REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
    SpecCounts c = count_spec(*spec);
    CHECK(c.switches == e.switches);
    CHECK(c.cas == e.cas);
    CHECK(c.links == e.links);
    CHECK(switch_guids_ascend(*spec));
    auto again = parse_netfile(write_netfile(*spec));
    REQUIRE(again);
    CHECK(*again == *spec);
  }
}

// The GUIDs below are what ibsim 0.10 gave this file (read back with ibnetdiscover).
TEST_CASE("GUIDs, system GUIDs, vendor and device IDs follow ibsim's rules") {
  const char* text = R"(Hca	2 "H1"
[1]	"S1"[1]
[2]	"S1"[2]

Switch	8 "S1"
[1]	"H1"[1]
[2]	"H1"[2]
[3]	"S2"[3]	w=12
[4]	"H2"[1]	# lid 0 4xEDR
[5]	"R1"[1]
[6]	"H3"[1]

switchguid=0x1000
Switch	8 "S2"
[3]	"S1"[3]	w=12
[4]	"H4"[1]

Hca	1 "H2"
[1]	"S1"[4]	# "S1" lid 0 4xEDR

caguid=0x500
sysimgguid=0x777
vendid=0x2c9
devid=0xb924
Ca	2 "H3"	# "some host HCA-1"
[1]	"S1"[6]

caguid+0x10
Ca	1 "H4"
[1]	"S2"[4]

rtguid=0x9000
Rt	1 "R1"
[1]	"S1"[5]
)";
  auto spec = parse_netfile(text, "guids.net");
  REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
  struct Want {
    const char* name;
    uint64_t guid, sys;
    uint32_t vendor;
    uint16_t device;
  };
  const Want want[] = {{"H1", 0x100000, 0x100000, 0, 0},
                       {"S1", 0x200000, 0x200000, 0, 0},
                       {"S2", 0x1000, 0x1000, 0, 0},
                       {"H2", 0x100003, 0x100003, 0, 0},  // after H1's 2 ports + 1
                       {"H3", 0x500, 0x777, 0x2c9, 0xb924},
                       {"H4", 0x510, 0x510, 0, 0xb924},   // base 0x500 + 0x10; devid sticks
                       {"R1", 0x9000, 0x9000, 0, 0xb924}};
  for (const Want& w : want) {
    CAPTURE(w.name);
    const SpecNode* n = find_node(*spec, w.name);
    REQUIRE(n);
    CHECK(n->node_guid.value() == w.guid);
    CHECK(n->system_guid.value() == w.sys);
    CHECK(n->vendor_id == w.vendor);
    CHECK(n->device_id == w.device);
  }
  CHECK(find_node(*spec, "H3")->description == "some host HCA-1");
  CHECK(find_node(*spec, "R1")->type == mad::NodeType::router);
  CHECK(spec->links.size() == 7);
  const SpecLink* wide = link_of(*spec, "S1", 3);
  REQUIRE(wide);
  CHECK(wide->width == width::x12);
  const SpecLink* edr = link_of(*spec, "S1", 4);
  REQUIRE(edr);
  CHECK(edr->speed_ext == speed::edr);
  CHECK(link_of(*spec, "H1", 1)->speed == speed::qdr);  // no tail: our default, 4x QDR
  // The writer reproduces every GUID with as few directives as it needs.
  std::string out = write_netfile(*spec);
  CHECK(out.find("switchguid=0x1000\n") != std::string::npos);
  CHECK(out.find("caguid=0x510") != std::string::npos);
  auto again = parse_netfile(out);
  REQUIRE(again);
  CHECK(*again == *spec);
}

TEST_CASE("the GUID counters default to assign_guids' values") {
  auto spec = parse_netfile("Switch 4 \"S\"\n[1] \"H\"[1]\n\nHca 2 \"H\"\n\nHca 1 \"J\"\n\nSwitch 2 \"T\"\n");
  REQUIRE(spec);
  FabricSpec zeroed = *spec;
  for (SpecNode& n : zeroed.nodes) n.node_guid = n.system_guid = mad::Guid();
  assign_guids(zeroed);
  CHECK(zeroed == *spec);
  CHECK(find_node(*spec, "J")->node_guid.value() == 0x100003);
  CHECK(find_node(*spec, "T")->node_guid.value() == 0x200001);
}

// Captured from ibnetdiscover (infiniband-diags 44) on ibsim with the file above.
TEST_CASE("ibnetdiscover output loads with its GUIDs and link attributes") {
  const char* text = R"(#
# Topology file: generated on Sun Nov 29 20:09:38 2026
#
# Initiated from node 0000000000100000 port 0000000000100001

vendid=0x0
devid=0x0
sysimgguid=0x1000
switchguid=0x1000(1000)
Switch	8 "S-0000000000001000"		# "S2" base port 0 lid 0 lmc 0
[3]	"S-0000000000200000"[3]		# "S1" lid 0 12xSDR
[4]	"H-0000000000000510"[1](511) 		# "H4" lid 0 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x200000
switchguid=0x200000(200000)
Switch	8 "S-0000000000200000"		# "S1" base port 0 lid 0 lmc 0
[1]	"H-0000000000100000"[1](100001) 		# "H1" lid 0 4xSDR
[2]	"H-0000000000100000"[2](100002) 		# "H1" lid 0 4xSDR
[3]	"S-0000000000001000"[3]		# "S2" lid 0 12xSDR
[4]	"H-0000000000100003"[1](100004) 		# "H2" lid 0 4xEDR
[6]	"H-0000000000000500"[1](501) 		# "some host HCA-1" lid 0 4xSDR

vendid=0x0
devid=0xb924
sysimgguid=0x510
caguid=0x510
Ca	1 "H-0000000000000510"		# "H4"
[1](511) 	"S-0000000000001000"[4]		# lid 0 lmc 0 "S2" lid 0 4xSDR

vendid=0x2c9
devid=0xb924
sysimgguid=0x777
caguid=0x500
Ca	2 "H-0000000000000500"		# "some host HCA-1"
[1](501) 	"S-0000000000200000"[6]		# lid 0 lmc 0 "S1" lid 0 4xSDR

vendid=0x0
devid=0x0
sysimgguid=0x100003
caguid=0x100003
Ca	1 "H-0000000000100003"		# "H2"
[1](100004) 	"S-0000000000200000"[4]		# lid 0 lmc 0 "S1" lid 0 4xEDR

vendid=0x0
devid=0x0
sysimgguid=0x100000
caguid=0x100000
Ca	2 "H-0000000000100000"		# "H1"
[1](100001) 	"S-0000000000200000"[1]		# lid 0 lmc 0 "S1" lid 0 4xSDR
[2](100002) 	"S-0000000000200000"[2]		# lid 0 lmc 0 "S1" lid 0 4xSDR
)";
  auto spec = parse_netfile(text, "ibnetdiscover.out");
  REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
  SpecCounts c = count_spec(*spec);
  CHECK(c.switches == 2);
  CHECK(c.cas == 4);
  CHECK(c.links == 6);
  const SpecNode* h3 = find_node(*spec, "H-0000000000000500");
  REQUIRE(h3);
  CHECK(h3->node_guid.value() == 0x500);
  CHECK(h3->system_guid.value() == 0x777);
  CHECK(h3->vendor_id == 0x2c9);
  CHECK(h3->device_id == 0xb924);
  CHECK(h3->description == "some host HCA-1");
  CHECK(find_node(*spec, "S-0000000000001000")->description == "S2");
  CHECK(find_node(*spec, "H-0000000000000510")->node_guid.value() == 0x510);
  const SpecLink* l = link_of(*spec, "S-0000000000001000", 3);
  REQUIRE(l);
  CHECK(l->width == width::x12);
  CHECK(l->speed == speed::sdr);
  CHECK(link_of(*spec, "S-0000000000200000", 4)->speed_ext == speed::edr);
  auto again = parse_netfile(write_netfile(*spec));
  REQUIRE(again);
  CHECK(*again == *spec);
}

TEST_CASE("link width and speed come from both ends' tails, options and directives") {
  auto one = [](std::string tail_a, std::string tail_b, std::string pre = "") {
    std::string text = pre + "Switch 2 \"A\"\n[1] \"B\"[1] " + tail_a + "\n\nSwitch 2 \"B\"\n[1] \"A\"[1] " +
                       tail_b + "\n";
    auto spec = parse_netfile(text, "t");
    REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
    REQUIRE(spec->links.size() == 1);
    return spec->links[0];
  };
  struct Case {
    const char* tail;
    uint8_t w, s, e;
  } cases[] = {{"# lid 0 1xSDR", width::x1, speed::sdr, 0},
               {"# lid 0 2xDDR", width::x2, speed::ddr, 0},
               {"# lid 0 4xQDR", width::x4, speed::qdr, 0},
               {"# lid 0 8xFDR", width::x8, speed::qdr, speed::fdr},
               {"# lid 0 12xEDR", width::x12, speed::qdr, speed::edr},
               {"# lid 0 4xHDR", width::x4, speed::qdr, speed::hdr},
               {"# lid 0 4xNDR", width::x4, speed::qdr, speed::ndr},
               {"# lid 0 4xFDR10", width::x4, speed::qdr, 0},
               {"# \"x lid 3\" lid 7 4xEDR (Spine 1 Chip 2)", width::x4, speed::qdr, speed::edr},
               {"", width::x4, speed::qdr, 0},
               {"w=1 s=1", width::x1, speed::sdr, 0},
               {"s=0 e=4", width::x4, speed::qdr, speed::hdr},
               {"s=1 e=4", width::x4, speed::sdr, speed::hdr}};
  for (const Case& c : cases) {
    CAPTURE(c.tail);
    SpecLink l = one(c.tail, c.tail);
    CHECK(l.width == c.w);
    CHECK(l.speed == c.s);
    CHECK(l.speed_ext == c.e);
  }
  // One end 12x, the other the default 4x: 4x. One end HDR, the other none: QDR.
  SpecLink mixed = one("# lid 0 12xHDR", "");
  CHECK(mixed.width == width::x4);
  CHECK(mixed.speed_ext == speed::ext_none);
  // Directives set what the nodes after them enable, as PortInfo masks (width=4 is 8x).
  SpecLink d = one("", "", "width=4\nspeed=3\nextspeed=2\n");
  CHECK(d.width == width::x8);
  CHECK(d.speed == speed::ddr);
  CHECK(d.speed_ext == speed::edr);
  // A QDR tail keeps the extended speeds extspeed= enabled (ibsim does the same).
  CHECK(one("# lid 0 4xQDR", "# lid 0 4xQDR", "extspeed=4\n").speed_ext == speed::hdr);
}

TEST_CASE("router lines take w=/s=/e= options but not tails, as in ibsim") {
  auto spec = parse_netfile(
      "rtguid=0x9000\nRt 2 \"R\"\n[1] \"S\"[1] # lid 0 1xSDR\n[2] \"S\"[2] w=1 s=1\n\n"
      "Switch 4 \"S\"\n[1] \"R\"[1] # lid 0 4xHDR\n[2] \"R\"[2] # lid 0 1xSDR\n[3] \"R2\"[1] # lid 0 4xHDR\n\n"
      "Rt 1 \"R2\"\n[1] \"S\"[3] s=4 e=4\n",
      "rt");
  REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
  const SpecLink* tail = link_of(*spec, "R", 1);  // R's 1xSDR ignored: 4x, QDR, no ext
  CHECK(tail->width == width::x4);
  CHECK(tail->speed == speed::qdr);
  CHECK(tail->speed_ext == speed::ext_none);
  const SpecLink* opt = link_of(*spec, "R", 2);
  CHECK(opt->width == width::x1);
  CHECK(opt->speed == speed::sdr);
  CHECK(link_of(*spec, "R2", 1)->speed_ext == speed::hdr);
  CHECK(find_node(*spec, "R2")->node_guid.value() == 0x9003);  // 0x9000 + 2 ports + 1
  // The writer gives router ends options (ibsim reads those) and keeps the tail to read.
  std::string out = write_netfile(*spec);
  CHECK(out.find("[2]\t\"S\"[2]\tw=1 s=1 e=0\t# lid 0 1xSDR\n") != std::string::npos);
  auto again = parse_netfile(out);
  REQUIRE(again);
  CHECK(*again == *spec);
}

TEST_CASE("count_spec counts subnets: CAs and routers do not join switches") {
  // H is cabled to two switches that nothing else joins: two subnets, as an SM sees them.
  auto two = parse_netfile("Hca 2 \"H\"\n[1] \"A\"[1]\n[2] \"B\"[1]\n\nSwitch 2 \"A\"\n\nSwitch 2 \"B\"\n");
  REQUIRE(two);
  CHECK(count_spec(*two).components == 2);
  auto joined = parse_netfile("Hca 2 \"H\"\n[1] \"A\"[1]\n[2] \"B\"[1]\n\nSwitch 2 \"A\"\n[2] \"B\"[2]\n\nSwitch 2 \"B\"\n\nHca 1 \"alone\"\n");
  REQUIRE(joined);
  SpecCounts c = count_spec(*joined);
  CHECK(c.components == 2);  // A-B with H, and the uncabled CA
  CHECK(c.switch_links == 1);
  auto back_to_back = parse_netfile("Hca 1 \"X\"\n[1] \"Y\"[1]\n\nHca 1 \"Y\"\n");
  REQUIRE(back_to_back);
  CHECK(count_spec(*back_to_back).components == 1);
}

TEST_CASE("format variants ibsim accepts") {
  // One-sided links, both-sided links once, fewer port lines than ports, the default remote
  // port 1, a repeated identical line, comments inside a record, CRLF, leading blanks, ext
  // ports and port GUIDs, unknown lines, do lines.
  const char* text =
      "# a comment\r\n"
      "Chassis 1 (something ibnetdiscover -g prints)\r\n"
      "do Dump\r\n"
      "pdebug=0\r\n"
      "Switch\t8 \"S1\"\t# \"core switch\" enhanced port 0 lid 3 lmc 0\r\n"
      "[1]\t\"H1\"\r\n"
      "# a comment inside the record\r\n"
      "  [2][ext 7](200000)\t\"S2\"[2][ext 9](abc)\t# \"S2\" lid 0 4xHDR\r\n"
      "[2]\t\"S2\"[2]\r\n"
      "\r\n"
      "Switch 8 \"S2\" # plain description lid 4\n"
      "[2] \"S1\"[2]\n"
      "[5] \"H2\"[1]\n"
      "\n"
      "  Hca 1 \"H1\"\n"
      "\n"
      "Hca 2 \"H2\"\n";
  auto spec = parse_netfile(text, "variants");
  REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
  SpecCounts c = count_spec(*spec);
  CHECK(c.switches == 2);
  CHECK(c.cas == 2);
  CHECK(c.links == 3);
  CHECK(c.components == 1);
  CHECK(find_node(*spec, "S1")->description == "core switch");
  CHECK(find_node(*spec, "S2")->description == "plain description");
  const SpecLink* h1 = link_of(*spec, "H1", 1);
  REQUIRE(h1);  // listed only by S1, without a remote port: H1 port 1
  CHECK(link_of(*spec, "H2", 1) != nullptr);
  const SpecLink* s = link_of(*spec, "S1", 2);
  REQUIRE(s);
  CHECK(s->speed_ext == speed::ext_none);  // HDR on one end only
  auto again = parse_netfile(write_netfile(*spec));
  REQUIRE(again);
  CHECK(*again == *spec);
}

TEST_CASE("links are in net-file order whatever order the file lists them in") {
  auto spec = parse_netfile(
      "Switch 4 \"B\"\n[3] \"A\"[2]\n[1] \"A\"[1]\n\nSwitch 4 \"A\"\n[2] \"B\"[3]\n", "order");
  REQUIRE(spec);
  REQUIRE(spec->links.size() == 2);
  CHECK(spec->links[0].a == 0);
  CHECK(spec->links[0].port_a == 1);
  CHECK(spec->links[1].port_a == 3);
  auto again = parse_netfile(write_netfile(*spec));
  REQUIRE(again);
  CHECK(*again == *spec);
}

TEST_CASE("descriptions with quotes and nodes without cables round trip") {
  FabricSpec spec;
  SpecNode a;
  a.type = mad::NodeType::sw;
  a.name = "A";
  a.num_ports = 3;
  a.description = "it's \"quoted\"";
  SpecNode b;
  b.name = "B";
  b.num_ports = 1;
  spec.nodes = {a, b};
  SpecLink l{0, 2, 1, 1};
  l.speed = speed::sdr;
  l.speed_ext = speed::hdr;  // only options can say this
  spec.links = {l};
  assign_guids(spec);
  auto again = parse_netfile(write_netfile(spec));
  REQUIRE_MESSAGE(again, (again ? "" : again.error().message));
  CHECK(again->nodes[0].description == "it's 'quoted'");
  again->nodes[0].description = spec.nodes[0].description;
  CHECK(*again == spec);
}

TEST_CASE("include reads files relative to the including file") {
  sim_test::TempDir dir;
  std::filesystem::create_directories(dir.path / "sub" / "deeper");
  dir.write("main.net", "Hca 1 \"H1\"\n[1] \"S1\"[1]\n\ninclude sub/switches.net\n\nHca 1 \"H2\"\n[1] \"S1\"[2]\n");
  dir.write("sub/switches.net", "switchguid=0x1234\ninclude \"deeper/s2.net\"\n");
  dir.write("sub/deeper/s2.net", "Switch 4 \"S1\"\n[1] \"H1\"[1]\n");
  auto spec = load_netfile((dir.path / "main.net").string());
  REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
  CHECK(spec->nodes.size() == 3);
  CHECK(spec->links.size() == 2);
  CHECK(find_node(*spec, "S1")->node_guid.value() == 0x1234);
  CHECK(spec->nodes[2].name == "H2");
}

// Inputs that once broke a property fuzz_netfile checks: parse -> write -> parse is the same.
TEST_CASE("inputs the fuzzer found round trip") {
  const std::string inputs[] = {
      // An unterminated quoted description with a '\r' in the middle of the line: the writer
      // used to turn the '\r' into a space.
      std::string("Switch\t4 \"S1\"\t# \"de\xff\xff 0 12xDN\rR\n\r\nspeed=1\nextspeed=0\n"
                  "Hca 2 \"H2\"\n[1] \"S1\"[2] # li\x9c\xdf\xcf\xe6" "1xSDR\n"),
  };
  for (const std::string& in : inputs) {
    auto spec = parse_netfile(in, "fuzz");
    REQUIRE_MESSAGE(spec, (spec ? "" : spec.error().message));
    auto again = parse_netfile(write_netfile(*spec), "again");
    REQUIRE_MESSAGE(again, (again ? "" : again.error().message));
    CHECK(*again == *spec);
  }
}
