// What the SM knows of the fabric between sweeps, keyed by node GUID: every attribute it read
// (NodeInfo, NodeDescription, SwitchInfo, PortInfo per port) and every cable. Discovery fills
// it (in full on a heavy sweep, in part when a trap or a light sweep says something changed),
// the programmer records what it wrote, and snapshot() turns it into the immutable Topology
// that LIDs and routing work on. Records are shared copy-on-write with the subnets a sweep
// publishes (subnet.h): change one only through edit().
#pragma once

#include <string>
#include <vector>

#include "mad/attributes.h"
#include "sm/cow_map.h"
#include "sm/types.h"

namespace sm {

struct PortRec {
  bool have_info = false;
  mad::PortInfo info;
  Guid guid;          // NodeInfo.PortGUID when an SMP came in by this port
  Guid peer;          // node at the other end, when known
  uint8_t peer_port = 0;
  // PortInfo fields this port answered a Set without taking (some agents ignore
  // SubnetTimeOut, MasterSMSL, NeighborMTU, ...): not compared again, or they would be
  // re-sent on every sweep. Bits: see the port plan's field list (program/port_plan.h).
  uint32_t ignored = 0;
  bool linked() const { return !peer.is_zero(); }
};

struct NodeRec {
  mad::NodeInfo info;
  std::string description;
  mad::SwitchInfo sw;
  DrPath path;        // a route that reaches it (canonical after snapshot())
  std::vector<PortRec> ports;
  bool duplicate = false;
  bool is_switch() const { return info.node_type == mad::NodeType::sw; }
};

class FabricModel {
 public:
  void clear();
  // Read-only; the pointer holds until the next edit() of that node.
  const NodeRec* find(Guid g) const { return nodes_.find(g); }
  // The record to change (nullptr when absent); a published subnet keeps its own copy.
  NodeRec* edit(Guid g) { return nodes_.edit(g); }
  // The record as it is now, for a published subnet (null when absent).
  std::shared_ptr<const NodeRec> share(Guid g) const { return nodes_.share(g); }
  // Adds a node seen for the first time; returns nullptr if the GUID is already there.
  NodeRec* add(const mad::NodeInfo& ni, const DrPath& path);
  // A node's whole record, as an earlier model had it (walk_holes.h); replaces any there.
  void adopt(Guid g, NodeRec rec) { nodes_.put(g, std::move(rec)); }
  // Records a cable; false (and nothing changed) when either port is cabled elsewhere.
  bool link(Guid a, uint8_t pa, Guid b, uint8_t pb);
  // Forgets the cable at a port (both ends).
  void unlink(Guid node, uint8_t port);
  // The PortInfo fields each port was found to ignore (PortRec::ignored), from an earlier model
  // of the same fabric: a full walk forgets the model, not what the Sets taught. The same
  // agent, met again, ignores the same fields; without this every heavy sweep sent them again.
  void keep_ignored(const FabricModel& before);
  // Room for n nodes: a full walk of a known fabric grows its table without rehashing.
  void reserve(size_t n) { nodes_.reserve(n); }
  // Drops every node the SM can no longer reach through live cables; returns them.
  std::vector<Guid> prune_unreachable();
  // Gives every reachable node its shortest, port-by-port smallest route over the cables known
  // now (as snapshot() does, without building a Topology).
  void recompute_paths();
  // A node's route, changed only where it differs.
  void set_path(Guid g, const DrPath& path);
  void set_sm(Guid node, uint8_t port) {
    sm_node_ = node;
    sm_port_ = port;
  }
  Guid sm_node() const { return sm_node_; }
  uint8_t sm_port() const { return sm_port_; }
  size_t size() const { return nodes_.size(); }
  // The node that holds a LID (CA port or switch port 0), from the last attributes read.
  Guid node_by_lid(Lid lid) const;
  // The switch that holds a LID at port 0, looked for among `walked`'s switches first (a few
  // thousand, where node_by_lid() passes over every node: 15 ms at 43k, per trap 128); then,
  // for a switch the walk did not know, as node_by_lid(). Zero when no switch holds it.
  Guid switch_by_lid(Lid lid, const Topology* walked) const;

  // The Topology of what is known now (nodes sorted by GUID, canonical paths); the canonical
  // paths are copied back so later partial walks use them. The full attributes stay here.
  Topology snapshot();

 private:
  CowMap<Guid, NodeRec> nodes_;
  Guid sm_node_;
  uint8_t sm_port_ = 0;
};

}  // namespace sm
