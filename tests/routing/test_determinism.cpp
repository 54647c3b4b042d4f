// Same fabric, same tables: whatever order the nodes were found in, whatever the thread count;
// for every engine of the registry, and deadlock-free where the engine promises it.
#include <doctest/doctest.h>

#include "checks.h"
#include "helpers.h"
#include "routing/engine.h"
#include "sim/generators.h"

using namespace rtest;

TEST_SUITE("unit") {

TEST_CASE("determinism: discovery order and thread count do not change the tables") {
  auto tree = sim::make_fat_tree(3, 8);
  REQUIRE(tree.has_value());
  REQUIRE(sim::drop_switch_links(*tree, 0.1, 5).has_value());
  auto torus = sim::make_torus({.dims = {4, 4}, .cas_per_switch = 2});
  REQUIRE(torus.has_value());
  for (const sim::FabricSpec* spec : {&*tree, &*torus}) {
    // Under ASan (-O0, 20 times slower): LMC 0 only, and the reversed order at 3 threads alone.
    for (uint8_t lmc : {uint8_t{0}, uint8_t{1}}) {
      if (RTEST_SANITIZED && lmc != 0) continue;
      const fabric::Topology a = to_topology(*spec, {.lmc = lmc});
      const fabric::Topology b = to_topology(*spec, {.lmc = lmc, .reverse = true});
      for (auto name : routing::engine_names()) {
        CAPTURE(name);
        CAPTURE(int{lmc});
        routing::RoutingOptions one, two, three;
        one.threads = 1;
        two.threads = 2;
        three.threads = 3;
        auto engine = routing::make_engine(name);
        REQUIRE(engine.has_value());
        const auto ref = (*engine)->compute(a, one);
        // An error (ftree on a torus) must repeat too.
        const auto same = [&](const mad::Result<routing::RoutingTables>& r) {
          if (r.has_value() != ref.has_value()) return false;
          return r ? *r == *ref : r.error().message == ref.error().message;
        };
        if (!RTEST_SANITIZED) {
          CHECK(same((*engine)->compute(b, one)));
          CHECK(same((*engine)->compute(a, two)));
        }
        CHECK(same((*engine)->compute(b, three)));
        // What an engine routes, it routes deadlock-free where it promises to.
        if (ref && (*engine)->deadlock_free()) CHECK(deadlock_free(a, *ref));
      }
    }
  }
}

}  // TEST_SUITE
