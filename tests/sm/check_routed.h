// The check every scenario ends with: every pair routed on the simulated switches' own tables,
// every port Active, and (unless the engine may deadlock) an acyclic channel dependency graph.
#pragma once

#include <doctest/doctest.h>

#include "sim/metrics.h"
#include "tests/sm/harness.h"

namespace smtest {

inline void check_routed(Run& r, bool deadlock_free = true) {
  const auto v = r.verify();
  CHECK(v.all_routed());
  CHECK(v.ports_not_active == 0);
  for (const auto& s : v.samples) MESSAGE(s);
  if (deadlock_free) CHECK(sim::measure_routing(*r.fabric).cdg_acyclic);
}

}  // namespace smtest
