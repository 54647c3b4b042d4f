// SLs and SL-to-VL tables read elsewhere (sim/sl_dump.h): the text the bench writes from
// saquery PR and smpquery sl2vl parses to the records, and a bad line is refused with its
// number. (Their import onto a fabric: tests/service/test_vl_layers.cpp.)
#include <doctest/doctest.h>

#include "sim/sl_dump.h"

TEST_CASE("path and sl2vl lines parse, decimal or hex, comments and blank lines skipped") {
  const std::string text =
      "# from saquery PR\n"
      "path 1 0x21 3\n"
      "\n"
      "path 0x0002 7 0  # SL 0\n"
      "sl2vl 0x0000000000200000 0 5 0 1 2 3 15 15 15 15 15 15 15 15 15 15 15 15\n";
  auto d = sim::parse_sl_dump(text, "t");
  REQUIRE(d);
  REQUIRE(d->paths.size() == 2);
  CHECK(d->paths[0].slid == 1);
  CHECK(d->paths[0].dlid == 0x21);
  CHECK(d->paths[0].sl == 3);
  CHECK(d->paths[0].line == 2);
  CHECK(d->paths[1].slid == 2);
  CHECK(d->paths[1].sl == 0);
  REQUIRE(d->sl2vl.size() == 1);
  CHECK(d->sl2vl[0].sw == mad::Guid(0x200000));
  CHECK(d->sl2vl[0].in == 0);
  CHECK(d->sl2vl[0].out == 5);
  CHECK(d->sl2vl[0].vl[3] == 3);
  CHECK(d->sl2vl[0].vl[4] == 15);
  CHECK(d->sl2vl[0].line == 5);
  auto empty = sim::parse_sl_dump("", "t");
  REQUIRE(empty);
  CHECK(empty->paths.empty());
}

TEST_CASE("a bad SL line is refused with its line number") {
  auto err = [](const std::string& text) {
    auto d = sim::parse_sl_dump(text, "s.txt");
    REQUIRE_FALSE(d);
    CHECK(d.error().code == mad::Errc::parse);
    return d.error().message;
  };
  const std::string vls16 = " 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15";
  CHECK(err("path 1 2 3\npath 1 2\n").starts_with("s.txt:2: path SLID DLID SL"));
  CHECK(err("path 1 2 16\n").starts_with("s.txt:1: path SLID DLID SL"));
  CHECK(err("path 1 0xc000 1\n").starts_with("s.txt:1: path SLID DLID SL"));
  CHECK(err("path 0 2 1\n").starts_with("s.txt:1: path SLID DLID SL: LID 0"));
  CHECK(err("path 1 2 1 9\n") == "s.txt:1: more fields than the record has");
  CHECK(err("sl2vl 0x10 1 2" + vls16 + " 3\n") == "s.txt:1: more fields than the record has");
  CHECK(err("sl2vl 0x10 1 2 0 1\n").starts_with("s.txt:1: sl2vl SWITCH_GUID"));
  CHECK(err("sl2vl 0x10 1 2 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16\n").starts_with("s.txt:1: sl2vl SWITCH_GUID"));
  CHECK(err("sl2vl 0x10 255 2" + vls16 + "\n").starts_with("s.txt:1: sl2vl SWITCH_GUID"));
  CHECK(err("\nvl 1 2 3\n").starts_with("s.txt:2: \"vl\": a line is"));
}
