// What changed between two sweeps' topologies, in words an operator can act on: nodes that
// left or came (by description and GUID), cables that went down or came up (both ends named:
// description, GUID, port) and cables whose rate changed ("4xHDR", not PortInfo codes).
#pragma once

#include <string>
#include <vector>

#include "fabric/topology.h"

namespace sm {

struct TopologyChange {
  enum class Kind { node_gone, node_new, link_down, link_up, link_rate };
  Kind kind;
  std::string text;
};

// `before` and `after` in GUID order (as Topology keeps its nodes): one pass over both.
std::vector<TopologyChange> topology_changes(const fabric::Topology& before, const fabric::Topology& after);

}  // namespace sm
