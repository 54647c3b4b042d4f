// The simulated fabric as it is now, as the fabric model: its present nodes with their live
// links, port states, LIDs and link widths and speeds, and each switch's LFT up to its
// LinearFDBTop (what lies beyond is no route). For the measurements that run over
// fabric::Topology (routing metrics, traffic).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fabric/topology.h"
#include "sim/fabric.h"

namespace sim {

struct AsTopology {
  fabric::Topology topo;
  std::vector<NodeIdx> sim_node;  // by NodeId
  std::vector<std::span<const uint8_t>> lfts;  // by NodeId: borrowed from the fabric's switches
};

// Node ids go by GUID, so the leaf order is the switches' GUID order: for net files and the
// generators (GUIDs assigned in file order unless a file sets them) that is their file order.
AsTopology as_topology(const SimFabric& f);

}  // namespace sim
