// Checks shared by the generator tests (doctest assertions inside).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "mad/error.h"
#include "sim/netfile.h"
#include "sim/spec.h"

namespace sim_test {

inline sim::FabricSpec ok(mad::Result<sim::FabricSpec> r) {
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return std::move(*r);
}

inline void check_round_trip(const sim::FabricSpec& spec) {
  auto again = sim::parse_netfile(sim::write_netfile(spec), "generated");
  REQUIRE_MESSAGE(again, (again ? "" : again.error().message));
  CHECK(*again == spec);
}

// Cables per switch to other switches; checks that every port is used at most once.
inline std::vector<size_t> switch_degrees(const sim::FabricSpec& spec) {
  std::vector<size_t> deg(spec.nodes.size(), 0);
  std::set<std::pair<uint32_t, uint8_t>> used;
  for (const sim::SpecLink& l : spec.links) {
    CHECK(used.insert({l.a, l.port_a}).second);
    CHECK(used.insert({l.b, l.port_b}).second);
    CHECK(l.port_a >= 1);
    CHECK(l.port_a <= spec.nodes[l.a].num_ports);
    CHECK(l.port_b <= spec.nodes[l.b].num_ports);
    if (spec.nodes[l.a].type == mad::NodeType::sw && spec.nodes[l.b].type == mad::NodeType::sw) {
      ++deg[l.a];
      ++deg[l.b];
    }
  }
  return deg;
}

}  // namespace sim_test
