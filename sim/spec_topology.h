// A fabric spec as an SM would see it once the subnet is up, without running one: every
// cabled port Active, LIDs handed out in NodeId order (CA ports aligned to 2^LMC), GUIDs as
// ibsim gives them. For routing research and tests that call engines directly.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fabric/topology.h"
#include "mad/error.h"
#include "sim/spec.h"

namespace sim {

struct TopologyOptions {
  uint8_t lmc = 0;       // on every CA port
  bool reverse = false;  // add nodes and links in reverse order (the result must not change)
  // Ports left Down / in Init (the cable stays): (node name, port).
  std::vector<std::pair<std::string, uint8_t>> down, init;
};

mad::Result<fabric::Topology> topology_of(FabricSpec spec, const TopologyOptions& opts = {});

}  // namespace sim
