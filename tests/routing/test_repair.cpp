// Route repair after failures, for every engine with a repair rule (Engine::repair_rule()):
// every pair still delivered, still deadlock-free where the engine promises it, and fewer
// entries changed than a full recomputation changes. Engines without a rule are refused.
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

// The engines that can repair, and those that cannot.
std::vector<std::string> engines(bool with_rule) {
  std::vector<std::string> out;
  for (auto name : routing::engine_names())
    if ((engine(name)->repair_rule() != routing::RepairRule::none) == with_rule) out.emplace_back(name);
  return out;
}

}  // namespace

TEST_CASE("repair after a failed link: delivered, legal, and smaller than a full re-route") {
  struct Cut {
    const char* file;
    std::vector<std::pair<std::string, uint8_t>> down;
  };
  std::vector<Cut> cuts = {
      {"ft3-r8.net", {{"S1_00_00", 5}}},
      {"ft3-r8.net", {{"S2_01_02", 6}}},
      {"ft3-r16-degraded5.net", {{"S1_00_01", 11}}},
  };
  if (!RTEST_SANITIZED) {  // each ft3-r16 case costs seconds per engine under ASan
    cuts.push_back({"ft3-r16.net", {{"S1_03_04", 9}}});
    cuts.push_back({"ft3-r16.net", {{"S2_05_01", 12}, {"S1_07_07", 10}}});
  }
  const auto names = engines(true);
  REQUIRE_FALSE(names.empty());
  for (const Cut& c : cuts) {
    const fabric::Topology before = to_topology(shared(c.file));
    const fabric::Topology now = to_topology(shared(c.file), {.down = c.down});
    for (const std::string& name : names) {
      INFO(std::string(c.file) << " " << name << " " << c.down.front().first);
      const auto old = route(name, before);
      auto r = routing::repair_routes(before, old, now, name, {});
      REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
      CHECK(r->entries > 0);
      const auto und = undelivered(now, r->tables);
      CHECK(und.empty());
      for (const auto& u : und) MESSAGE(u);
      if (engine(name)->deadlock_free()) CHECK(deadlock_free(now, r->tables));
      const auto full = route(name, now);
      const size_t by_repair = changed(before, old, now, r->tables);
      const size_t by_full = changed(before, old, now, full);
      MESSAGE(std::string(c.file) << " " << name << ": repair changed " << by_repair << " entries, full re-route " << by_full);
      CHECK(by_repair == r->entries);
      CHECK(by_repair <= by_full);
    }
  }
}

TEST_CASE("repair refuses what it cannot do, so the SM routes in full") {
  const fabric::Topology less = to_topology(shared("ft3-r8.net"), {.down = {{"S1_00_00", 5}}});
  const fabric::Topology more = to_topology(shared("ft3-r8.net"));
  // A CA whose cable comes up adds a destination the old tables never routed.
  const fabric::Topology without_ca = to_topology(shared("ft3-r8.net"), {.down = {{"H00005", 1}}});
  for (const std::string& name : engines(true)) {
    CAPTURE(name);
    auto added = routing::repair_routes(less, route(name, less), more, name, {});
    REQUIRE_FALSE(added);
    CHECK(added.error().message.find("added") != std::string::npos);
    auto ca = routing::repair_routes(without_ca, route(name, without_ca), more, name, {});
    REQUIRE_FALSE(ca);
    CHECK(ca.error().message.find("added") != std::string::npos);
  }
  for (const std::string& name : engines(false)) {
    CAPTURE(name);
    auto full = engine(name)->compute(more, {});
    if (!full) continue;  // no fat tree engine (dor): test_dor.cpp asks it on a torus
    auto none = routing::repair_routes(more, *full, less, name, {});
    REQUIRE_FALSE(none);
    CHECK(none.error().message == "no repair rules for engine '" + name + "'");
  }
  CHECK_FALSE(routing::repair_routes(more, route("minhop", more), less, "no-such-engine", {}));
}

TEST_CASE("an unchanged topology needs no repair") {
  const fabric::Topology t = to_topology(shared("ft3-r8.net"));
  for (const std::string& name : engines(true)) {
    CAPTURE(name);
    const auto old = route(name, t);
    auto r = routing::repair_routes(t, old, t, name, {});
    REQUIRE(r);
    CHECK(r->entries == 0);
    CHECK(changed(t, old, t, r->tables) == 0);
  }
}
