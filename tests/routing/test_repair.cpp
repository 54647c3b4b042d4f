// Route repair after failures: every pair still delivered, still deadlock-free for up*/down*
// engines, and fewer entries changed than a full recomputation changes.
#include <doctest/doctest.h>

#include "routing/repair.h"
#include "tests/routing/checks.h"
#include "tests/routing/helpers.h"

using namespace rtest;

namespace {

size_t changed(const fabric::Topology& before, const routing::RoutingTables& a, const fabric::Topology& now,
               const routing::RoutingTables& b) {
  size_t n = 0;
  for (fabric::NodeId s : now.switches()) {
    const auto x = a.lft(*before.find(now.node(s).guid));
    const auto y = b.lft(s);
    for (size_t l = 1; l < y.size() && l < x.size(); ++l) n += x[l] != y[l];
  }
  return n;
}

}  // namespace

TEST_CASE("repair after a failed link: delivered, legal, and smaller than a full re-route") {
  struct Case {
    const char* file;
    const char* engine;
    std::vector<std::pair<std::string, uint8_t>> down;
  };
  const Case cases[] = {
      {"ft3-r8.net", "ftree", {{"S1_00_00", 5}}},
      {"ft3-r8.net", "ftree", {{"S2_01_02", 6}}},
      {"ft3-r8.net", "updn", {{"S1_00_00", 5}}},
      {"ft3-r8.net", "minhop", {{"S2_01_02", 6}}},
      {"ft3-r16.net", "ftree", {{"S1_03_04", 9}}},
      {"ft3-r16.net", "ftree", {{"S2_05_01", 12}, {"S1_07_07", 10}}},
      {"ft3-r16-degraded5.net", "ftree", {{"S1_00_01", 11}}},
  };
  for (const Case& c : cases) {
    INFO(std::string(c.file) << " " << c.engine << " " << c.down.front().first);
    const fabric::Topology before = to_topology(shared(c.file));
    const auto old = route(c.engine, before);
    const fabric::Topology now = to_topology(shared(c.file), {.down = c.down});
    auto r = routing::repair_routes(before, old, now, c.engine, {});
    REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
    CHECK(r->entries > 0);
    const auto und = undelivered(now, r->tables);
    CHECK(und.empty());
    for (const auto& u : und) MESSAGE(u);
    if (std::string(c.engine) != "minhop") CHECK(cdg_acyclic(now, r->tables));
    const auto full = route(c.engine, now);
    const size_t by_repair = changed(before, old, now, r->tables);
    const size_t by_full = changed(before, old, now, full);
    MESSAGE(std::string(c.file) << " " << c.engine << ": repair changed " << by_repair << " entries, full re-route " << by_full);
    CHECK(by_repair == r->entries);
    CHECK(by_repair <= by_full);
  }
}

TEST_CASE("repair refuses what it cannot do, so the SM routes in full") {
  const fabric::Topology less = to_topology(shared("ft3-r8.net"), {.down = {{"S1_00_00", 5}}});
  const fabric::Topology more = to_topology(shared("ft3-r8.net"));
  const auto old = route("ftree", less);
  auto added = routing::repair_routes(less, old, more, "ftree", {});
  REQUIRE_FALSE(added);
  CHECK(added.error().message.find("added") != std::string::npos);
  auto unknown = routing::repair_routes(more, route("ftree", more), less, "adaptive-hint", {});
  CHECK_FALSE(unknown);
  // A CA whose cable comes up adds a destination the old tables never routed.
  const fabric::Topology without_ca = to_topology(shared("ft3-r8.net"), {.down = {{"H00005", 1}}});
  auto ca = routing::repair_routes(without_ca, route("ftree", without_ca), more, "ftree", {});
  REQUIRE_FALSE(ca);
  CHECK(ca.error().message.find("added") != std::string::npos);
}

TEST_CASE("an unchanged topology needs no repair") {
  const fabric::Topology t = to_topology(shared("ft3-r8.net"));
  const auto old = route("ftree", t);
  auto r = routing::repair_routes(t, old, t, "ftree", {});
  REQUIRE(r);
  CHECK(r->entries == 0);
  CHECK(changed(t, old, t, r->tables) == 0);
}
