// The fabric model: an immutable snapshot of what a sweep discovered (nodes, ports, links,
// LIDs). Routing engines read it; the SM and the store hand it around. Below both sm/ and
// routing/: it includes only mad/ types.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mad/types.h"

namespace fabric {

using mad::DrPath;
using mad::Guid;
using mad::Lid;
using mad::NodeType;
using mad::PortNum;
using mad::PortState;

// Index of a node in a Topology. Node ids are dense (0..node_count-1) and ordered by node
// GUID, so the same fabric always gives the same ids whatever order discovery ran in.
using NodeId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

struct Port {
  PortNum num;
  Guid guid;                     // port GUID (a switch's ports all carry the port-0 GUID)
  Lid lid;                       // base LID: CA ports and switch port 0; 0 = none
  uint8_t lmc = 0;
  PortState state = PortState::down;
  mad::PhysState phys = mad::PhysState::no_change;
  uint8_t width_active = 0;      // PortInfo encodings (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, ...)
  uint8_t speed_active = 0;      // PortInfo LinkSpeedActive
  uint8_t speed_ext_active = 0;  // PortInfo LinkSpeedExtActive
  uint8_t mtu_cap = 0;           // IBA MTU encoding (4 = 2048, 5 = 4096)
  uint8_t vl_cap = 0;
  Lid sm_lid;                    // MasterSMLID as read
  NodeId peer = kNoNode;         // the node at the other end of the cable
  PortNum peer_port;

  bool linked() const { return peer != kNoNode; }
};

struct SwitchData {
  uint16_t lft_cap = 0;      // LinearFDBCap
  uint16_t lft_top = 0;      // LinearFDBTop as read
  uint16_t mft_cap = 0;      // MulticastFDBCap
  uint16_t lids_per_port = 0;
  uint8_t life_time = 0;
  bool enhanced_port0 = false;
  bool port_state_change = false;
};

struct Node {
  Guid guid;
  Guid system_guid;
  NodeType type = NodeType::ca;
  uint8_t num_ports = 0;         // physical ports (port 0 not counted)
  uint16_t device_id = 0;
  uint32_t vendor_id = 0;
  uint32_t revision = 0;
  std::string description;
  DrPath path;                   // canonical directed route from the SM's port (set by build())
  SwitchData sw;                 // switches only
  uint32_t first_port = 0;       // index of port 0 in Topology's port array

  bool is_switch() const { return type == NodeType::sw; }
};

class TopologyBuilder;

class Topology {
 public:
  Topology() = default;

  size_t node_count() const { return nodes_.size(); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  std::span<const Node> nodes() const { return nodes_; }
  // Ports 0..num_ports of a node (a CA's port 0 exists but is never linked).
  std::span<const Port> ports(NodeId id) const {
    return {ports_.data() + nodes_[id].first_port, static_cast<size_t>(nodes_[id].num_ports) + 1};
  }
  const Port& port(NodeId id, PortNum p) const { return ports_[nodes_[id].first_port + p.value()]; }
  std::optional<NodeId> find(Guid node_guid) const;
  // The node that owns a port GUID (a CA port or a switch's port 0).
  std::optional<NodeId> find_port(Guid port_guid) const;

  // Switches and CAs, each in NodeId order.
  std::span<const NodeId> switches() const { return switches_; }
  std::span<const NodeId> cas() const { return cas_; }
  size_t link_count() const { return links_; }

  NodeId sm_node() const { return sm_node_; }
  PortNum sm_port() const { return sm_port_; }
  // The directed route that reaches a given port of a node: a switch's path, or for a CA port
  // the path of the switch at its other end plus that switch's port (CAs do not forward).
  DrPath path_to_port(NodeId id, PortNum port) const;
  // A second directed route to that port that shares no cable and no switch with
  // path_to_port()'s beyond the ones it cannot avoid (the SM's own and the target's), so that
  // one cut cable or rebooting switch cannot silence both; nullopt when the fabric has none.
  std::optional<DrPath> second_path_to_port(NodeId id, PortNum port) const;

  // The highest base LID + 2^LMC - 1 of any port: the LFTs must reach this far.
  Lid max_lid() const;
  // A copy with new LIDs on the given ports (node, port, base LID, LMC); from an rvalue, the
  // same topology with them (no copy).
  struct LidSet {
    NodeId node;
    PortNum port;
    Lid lid;
    uint8_t lmc;
  };
  Topology with_lids(std::span<const LidSet> lids) const&;
  Topology with_lids(std::span<const LidSet> lids) &&;
  // A copy without the cables at these ports (either end names a cable; unknown ports are
  // ignored), for routing around cables taken out of service. Node ids stay the same.
  Topology without_cables(std::span<const std::pair<Guid, PortNum>> ends) const;

 private:
  friend class TopologyBuilder;
  void index();
  void assign_paths();

  std::vector<Node> nodes_;
  std::vector<Port> ports_;
  std::vector<NodeId> switches_, cas_;
  // Nodes are in GUID order, so find() is a binary search; port GUIDs are kept sorted (no
  // hash maps: a snapshot or copy of the largest fabric would spend milliseconds on them).
  std::vector<std::pair<Guid, NodeId>> by_port_guid_;
  NodeId sm_node_ = kNoNode;
  PortNum sm_port_;
  size_t links_ = 0;
};

// Builds a Topology from nodes and links added in any order; build() sorts nodes by GUID so
// that the result does not depend on that order, and checks that every link is consistent.
class TopologyBuilder {
 public:
  // Adds a node with ports 0..node.num_ports, all unlinked; `ports` (optional) gives their
  // attributes, indexed by port number. Returns false if the GUID is already there.
  bool add_node(Node node, std::vector<Port> ports = {});
  // Cables two ports together. Both nodes must have been added. Returns false when a port
  // is out of range or already cabled to something else.
  bool add_link(Guid a, PortNum pa, Guid b, PortNum pb);
  Port* port(Guid node_guid, PortNum p);
  Node* node(Guid node_guid);
  void set_sm(Guid node_guid, PortNum port);
  Topology build() &&;
  // For a caller that has it all already (FabricModel::snapshot): nodes in ascending GUID
  // order with first_port set, and their ports 0..num_ports in one array, cables given both
  // ways by NodeId and port. No lookups, no sorting, no checks beyond that.
  static Topology from_sorted(std::vector<Node> nodes, std::vector<Port> ports, Guid sm_node, PortNum sm_port);

 private:
  struct Pending {
    Node node;
    std::vector<Port> ports;
    std::vector<uint32_t> peer;  // by port number: the peer's index in nodes_, or kNone
  };
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<Pending> nodes_;
  std::unordered_map<Guid, size_t> index_;
  Guid sm_guid_;
  PortNum sm_port_;
};

}  // namespace fabric
