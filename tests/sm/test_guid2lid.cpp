// OpenSM's guid2lid file: what OpenSM writes is read; anything else is refused with its line.
#include <doctest/doctest.h>

#include "sm/guid2lid.h"

namespace {

mad::Guid g(uint64_t v) { return mad::Guid(v); }

std::string error_of(std::string_view text) {
  auto r = sm::parse_guid2lid(text, "guid2lid");
  REQUIRE_FALSE(r);
  return r.error().message;
}

}  // namespace

TEST_CASE("guid2lid: OpenSM's lines, comments, LMC ranges") {
  auto r = sm::parse_guid2lid("# comment\n0x0002c90300000001 0x0001 0x0001\n\n"
                              "0x0002c90300000002 0x0004 0x0007  # LMC 2\n3 12 12\r\n",
                              "guid2lid");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  CHECK(r->size() == 3);
  CHECK(r->at(g(0x0002c90300000001)) == sm::LidEntry{mad::Lid(1), 0});
  CHECK(r->at(g(0x0002c90300000002)) == sm::LidEntry{mad::Lid(4), 2});
  CHECK(r->at(g(3)) == sm::LidEntry{mad::Lid(12), 0});
  auto empty = sm::parse_guid2lid("", "guid2lid");
  REQUIRE(empty);
  CHECK(empty->empty());
}

TEST_CASE("guid2lid: a file that is not OpenSM's cache is refused with its line") {
  CHECK(error_of("0x1 0x1\n") == "guid2lid:1: '0x1 0x1' is not 'GUID MIN_LID MAX_LID'");
  CHECK(error_of("\n0x0 0x1 0x1\n") == "guid2lid:2: '0x0' is not a port GUID");
  CHECK(error_of("0xzz 0x1 0x1\n").starts_with("guid2lid:1: '0xzz' is not a port GUID"));
  CHECK(error_of("0x1 0 0\n") == "guid2lid:1: '0' '0' is not a range of unicast LIDs");
  CHECK(error_of("0x1 0xc000 0xc000\n").starts_with("guid2lid:1:"));
  CHECK(error_of("0x1 5 4\n").starts_with("guid2lid:1:"));
  CHECK(error_of("0x1 5 6\n") == "guid2lid:1: LIDs 5..6 are not 2^LMC LIDs aligned to their count");
  CHECK(error_of("0x1 4 6\n") == "guid2lid:1: LIDs 4..6 are not 2^LMC LIDs aligned to their count");
  CHECK(error_of("0x1 1 1\n0x1 2 2\n") == "guid2lid:2: port 0x0000000000000001 is given twice (first on line 1)");
  CHECK(error_of("0x1 4 7\n0x2 6 6\n") == "guid2lid:2: LIDs 6..6 overlap line 1");
  CHECK(error_of("0x1 6 6\n0x2 4 7\n") == "guid2lid:2: LIDs 4..7 overlap line 1");
}

TEST_CASE("guid2lid: imported entries fill in only what the store does not remember") {
  sm::LidMap remembered{{g(1), {mad::Lid(10), 0}}};
  const sm::LidMap imported{{g(1), {mad::Lid(20), 0}}, {g(2), {mad::Lid(21), 0}}};
  CHECK(sm::merge_imported_lids(remembered, imported) == 1);
  CHECK(remembered.at(g(1)).lid == mad::Lid(10));
  CHECK(remembered.at(g(2)).lid == mad::Lid(21));
}
