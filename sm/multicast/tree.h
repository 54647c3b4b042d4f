// One spanning tree per multicast group over the switches that connect its members, and
// the MFT port masks it gives each switch on it.
//
// The root is the switch on which the members' switches are closest together (smallest
// largest hop count to any of them, then smallest sum, then lowest GUID: deterministic;
// measured from at most 16 member switches spread evenly in NodeId order). A
// BFS from the root over switch-to-switch links, taking neighbours in (NodeId, port) order,
// gives every switch one parent link; the tree is the union of the member switches' paths to
// the root, so it has no cycle by construction (one link per parent, even with parallel
// cables). A switch forwards a packet on every masked port but the one it came in by, so a
// mask holds the switch's tree links and its receiving members' ports (send-only members
// are reached for sending, not given packets).
#pragma once

#include <bitset>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "sm/multicast/groups.h"
#include "sm/types.h"

namespace sm::multicast {

using PortMask = std::bitset<256>;  // bit p: port p (0 = the switch's own port)

struct GroupTree {
  NodeId root = kNoNode;
  std::vector<std::pair<NodeId, PortMask>> switches;  // by NodeId, only switches on the tree
  size_t members_found = 0;    // members whose port is in the topology
  size_t members_missing = 0;  // members not in it (gone, or not yet found)
  size_t members_cut_off = 0;  // members whose switch no path reaches from the root
};

// The switches and their switch-to-switch links, compact: BFS over it touches no CA port and
// no vector the size of the whole fabric (a 3-level radix-54 tree: 3,645 switches of 43,011
// nodes). Built once per topology.
struct SwitchGraph {
  struct Edge {
    uint32_t peer;  // switch index
    uint8_t port, peer_port;
  };
  std::vector<NodeId> nodes;     // switch index -> NodeId
  std::vector<uint32_t> index;   // NodeId -> switch index (UINT32_MAX: not a switch)
  std::vector<uint32_t> first;   // edges of switch i: [first[i], first[i + 1])
  std::vector<Edge> edges;
  static SwitchGraph of(const Topology& topo);
};

GroupTree build_tree(const Topology& topo, const SwitchGraph& graph, const Group& group);
GroupTree build_tree(const Topology& topo, const Group& group);  // builds the graph first

// The trees of the last plan, reused while neither the topology nor the group's members
// changed: a join or leave rebuilds one tree, not every group's.
class TreeCache {
 public:
  const GroupTree& get(const Topology& topo, const Group& group);
  // The topology is another one (a sweep read the fabric): every tree is stale.
  void clear() {
    trees_.clear();
    graph_.reset();
  }
  // Forgets the groups that no longer exist.
  void keep_only(const Registry& groups);

 private:
  struct Entry {
    std::map<mad::Gid, uint8_t> members;
    GroupTree tree;
  };
  std::map<mad::Gid, Entry> trees_;
  std::optional<SwitchGraph> graph_;
};

}  // namespace sm::multicast
