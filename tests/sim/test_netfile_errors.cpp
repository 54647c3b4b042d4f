// Every way a net file is refused: Errc::parse and "file:line: what is wrong", no spec.
#include <doctest/doctest.h>

#include <string>

#include "sim/netfile.h"
#include "tests/sim/netfile_test_util.h"

using namespace sim;

namespace {

struct Bad {
  const char* text;
  int line;
  const char* says;
};

// "Hca 1 \"H\"" and friends, so each case shows only what is wrong.
const std::string kH = "\n\nHca 1 \"H\"\n";

void check_refused(const std::string& text, int line, const std::string& says,
                   const NetfileOptions& opt = {}) {
  CAPTURE(text);
  auto spec = parse_netfile(text, "e.net", opt);
  REQUIRE_FALSE(spec);
  CHECK(spec.error().code == mad::Errc::parse);
  const std::string& msg = spec.error().message;
  CAPTURE(msg);
  CHECK(msg.rfind("e.net:" + std::to_string(line) + ": ", 0) == 0);
  CHECK(msg.find(says) != std::string::npos);
}

}  // namespace

TEST_CASE("cabling errors") {
  const Bad cases[] = {
      {"Switch 2 \"S\"\n[1] \"X\"[1]\n", 2, "unknown node \"X\""},
      {"Switch 2 \"S\"\n[0] \"H\"[1]\n", 2, "port 0 cannot be cabled"},
      {"Switch 2 \"S\"\n[3] \"H\"[1]\n", 2, "port 3 beyond the 2 ports of \"S\""},
      {"Switch 2 \"S\"\n[1] \"H\"[2]\n\nHca 1 \"H\"\n", 2, "remote port 2 beyond the 1 ports of \"H\""},
      {"Switch 2 \"S\"\n[1] \"H\"[0]\n", 2, "bad remote port 0"},
      {"Switch 2 \"S\"\n[1] \"H\"[1]\n[1] \"J\"[1]\n\nHca 1 \"H\"\n\nHca 1 \"J\"\n", 3,
       "port 1 of \"S\" cabled twice: to \"J\"[1] here and to \"H\"[1] at e.net:2"},
      {"Switch 2 \"S\"\n[1] \"H\"[1]\n[2] \"H\"[1]\n\nHca 1 \"H\"\n", 3,
       "port 1 of \"H\" cabled twice: \"S\"[1] -> \"H\"[1] at e.net:2 already uses it"},
      {"Switch 2 \"S\"\n[1] \"H\"[1]\n\nHca 1 \"H\"\n[1] \"S\"[2]\n", 2,
       "\"S\"[1] -> \"H\"[1] disagrees with the other end: \"H\"[1] -> \"S\"[2] at e.net:5"},
      {"Switch 2 \"A\"\n[1] \"A\"[1]\n", 2, "port 1 of \"A\" cabled to itself"},
      {"Switch 2 \"A\"\n[1] \"B\"[1] w=1\n\nSwitch 2 \"B\"\n[1] \"A\"[1] w=2\n", 2,
       "enable no common link width"},
      {"Switch 2 \"A\"\n[1] \"B\"[1] s=1\n\nSwitch 2 \"B\"\n[1] \"A\"[1] s=2\n", 2,
       "enable no common link speed"},
      {"Hca 1 \"H\"\n\n[1] \"S\"[1]\n", 3, "port line outside a node record"},
  };
  for (const Bad& b : cases) check_refused(b.text, b.line, b.says);
}

TEST_CASE("node errors") {
  const Bad cases[] = {
      {"Hca 1 \"H\"\n\nHca 2 \"H\"\n", 3, "duplicate node id \"H\" (first declared at e.net:1)"},
      {"Hca 1 \"\"\n", 1, "empty node id"},
      {"Hca 1 \"a#b\"\n", 1, "'#' and '@' are reserved"},
      {"Rt 1 \"R\"\n", 1, "would get node GUID 0"},
      {"switchguid=0x5\nSwitch 2 \"A\"\n\nswitchguid=0x5\nSwitch 2 \"B\"\n", 5,
       "node GUID 0x5 of \"B\" is already \"A\"'s"},
      {"caguid=0x200000\nHca 1 \"H\"\n\nSwitch 2 \"S\"\n", 4, "is already \"H\"'s"},
      {"module=\"m\"\n", 1, "modules"},
      {"Switch 2 \"S\"\n@[1] \"alias\"\n", 2, "aliases"},
      {"", 1, "no nodes"},
      {"# only a comment\n\nvendid=0x2c9\n", 1, "no nodes"},
  };
  for (const Bad& b : cases) check_refused(b.text, b.line, b.says);
}

TEST_CASE("truncated and garbled lines") {
  const Bad cases[] = {
      {"Switch\n", 1, "expected a port count (1..254) after 'Switch'"},
      {"Hca x \"H\"\n", 1, "expected a port count"},
      {"Switch 8\n", 1, "expected a quoted node id"},
      {"Switch 8 S1\n", 1, "expected a quoted node id"},
      {"Switch 8 \"S1\n", 1, "unterminated node id"},
      {"Switch 8 \"S1\" junk\n", 1, "unexpected 'junk' after the node id"},
      {"Switch 0 \"S\"\n", 1, "bad port count 0"},
      {"Switch 300 \"S\"\n", 1, "bad port count 300"},
      {"Switch 99999999999999999999999 \"S\"\n", 1, "expected a port count"},
      {"Switch 2 \"S\"\n[x] \"H\"[1]\n", 2, "expected '[port]'"},
      {"Switch 2 \"S\"\n[1 \"H\"[1]\n", 2, "expected '[port]'"},
      {"Switch 2 \"S\"\n[\n", 2, "expected '[port]'"},
      {"Switch 2 \"S\"\n[99999999999999999999] \"H\"\n", 2, "expected '[port]'"},
      {"Switch 2 \"S\"\n[1](zz) \"H\"[1]\n", 2, "bad port line after '[port]'"},
      {"Switch 2 \"S\"\n[1][ext x] \"H\"[1]\n", 2, "bad port line after '[port]'"},
      {"Switch 2 \"S\"\n[1]\n", 2, "expected the quoted remote node id"},
      {"Switch 2 \"S\"\n[1] H[1]\n", 2, "expected the quoted remote node id"},
      {"Switch 2 \"S\"\n[1] \"H\n", 2, "unterminated remote node id"},
      {"Switch 2 \"S\"\n[1] \"\"[1]\n", 2, "empty remote node id"},
      {"Switch 2 \"S\"\n[1] \"H\"[x]\n", 2, "bad remote port"},
      {"Switch 2 \"S\"\n[1] \"H\"[1\n", 2, "bad remote port"},
      {"Switch 2 \"S\"\n[1] \"H\"[300]\n", 2, "bad remote port 300"},
      {"Switch 2 \"S\"\n[1] \"H\"[1](x)\n", 2, "bad port line after the remote port"},
      {"Switch 2 \"S\"\n[1] \"H\"[1] junk\n", 2, "unexpected 'junk' on a port line"},
      {"Switch 2 \"S\"\n[1] \"H\"[1] w=99\n", 2, "bad port option 'w=99'"},
      {"Switch 2 \"S\"\n[1] \"H\"[1] x=1\n", 2, "bad port option 'x=1'"},
      {"Switch 2 \"S\"\n[1] \"H\"[1] w=\n", 2, "unexpected 'w='"},
      {"Switch 2 \"S\"\n[1] \"H\"[1] # lid 0 3xQDR\n", 2, "unknown link width '3x'"},
      {"Switch 2 \"S\"\n[1] \"H\"[1] # lid 0 4xXDR\n", 2, "unknown link speed 'XDR'"},
      {"Hca 1 \"H\"\n123 junk\n", 2, "unrecognised line '123 junk'"},
  };
  for (const Bad& b : cases) check_refused(b.text, b.line, b.says);
}

TEST_CASE("bad numbers in directives") {
  const Bad cases[] = {
      {"switchguid=zz\n", 1, "bad value in 'switchguid=zz'"},
      {"switchguid=0x1g\n", 1, "bad value"},
      {"switchguid\n", 1, "bad value"},
      {"caguid 5\n", 1, "bad value"},
      {"rtguid=0x10000000000000000\n", 1, "bad value"},
      {"sysimgguid=-1\n", 1, "bad value"},
      {"vendid=0x1000000\n", 1, "vendid 0x1000000 out of range"},
      {"devid=0x10000\n", 1, "devid 0x10000 out of range"},
      {"devid+1\n", 1, "bad value"},
      {"width=0\n", 1, "width 0x0 out of range"},
      {"width=32\n", 1, "out of range"},
      {"speed=8\n", 1, "out of range"},
      {"extspeed=16\n", 1, "out of range"},
      {"Hca 1 \"H\"\nvendid=09\n", 2, "bad value"},  // 0 then 9: not octal
  };
  for (const Bad& b : cases) check_refused(b.text, b.line, b.says);
}

TEST_CASE("include errors name the file and line") {
  sim_test::TempDir dir;
  dir.write("loop_a.net", "Hca 1 \"H\"\n\ninclude loop_b.net\n");
  dir.write("loop_b.net", "\ninclude \"loop_a.net\"\n");
  dir.write("bad.net", "Hca 1 \"H1\"\n\ninclude broken.net\n");
  dir.write("broken.net", "\n\nSwitch 2 \"S\"\n[1] \"nowhere\"[1]\n");
  dir.write("missing.net", "Hca 1 \"H\"\ninclude no-such-file.net\n");
  dir.write("dir.net", "Hca 1 \"H\"\ninclude .\n");
  for (int i = 0; i < 10; ++i)
    dir.write("deep" + std::to_string(i) + ".net", "include deep" + std::to_string(i + 1) + ".net\n");
  dir.write("deep10.net", "Hca 1 \"H\"\n");
  auto at = [&](const char* f) { return (dir.path / f).string(); };

  auto loop = load_netfile(at("loop_a.net"));
  REQUIRE_FALSE(loop);
  CHECK(loop.error().code == mad::Errc::parse);
  CHECK(loop.error().message.rfind(at("loop_b.net") + ":2: include loop", 0) == 0);

  auto broken = load_netfile(at("bad.net"));
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message == at("broken.net") + ":4: unknown node \"nowhere\"");

  auto missing = load_netfile(at("missing.net"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.rfind(at("missing.net") + ":2: cannot include", 0) == 0);

  auto directory = load_netfile(at("dir.net"));
  REQUIRE_FALSE(directory);
  CHECK(directory.error().message.find("not a regular file") != std::string::npos);

  auto deep = load_netfile(at("deep0.net"));
  REQUIRE_FALSE(deep);
  CHECK(deep.error().message.rfind(at("deep8.net") + ":1: includes nested deeper than 8", 0) == 0);
  CHECK(load_netfile(at("deep2.net")));  // 8 levels are fine

  check_refused("Hca 1 \"H\"\ninclude x.net\n", 2, "include is not allowed here",
                NetfileOptions{.allow_include = false});
  check_refused("Hca 1 \"H\"\ninclude\n", 2, "include needs a file name");
  check_refused("Hca 1 \"H\"\ninclude \"x.net\n", 2, "unterminated include file name");

  auto none = load_netfile(at("no-such.net"));
  REQUIRE_FALSE(none);
  CHECK(none.error().code == mad::Errc::io);
}
