#include "sm/fabric_model.h"

#include <algorithm>

namespace sm {

void FabricModel::clear() {
  nodes_.clear();
  sm_node_ = Guid();
  sm_port_ = 0;
}

FabricModel::NodeRec* FabricModel::find(Guid g) {
  auto it = nodes_.find(g);
  return it == nodes_.end() ? nullptr : &it->second;
}

const FabricModel::NodeRec* FabricModel::find(Guid g) const {
  auto it = nodes_.find(g);
  return it == nodes_.end() ? nullptr : &it->second;
}

FabricModel::NodeRec* FabricModel::add(const mad::NodeInfo& ni, const DrPath& path) {
  auto [it, fresh] = nodes_.try_emplace(ni.node_guid);
  if (!fresh) return nullptr;
  it->second.info = ni;
  it->second.path = path;
  it->second.ports.resize(static_cast<size_t>(ni.num_ports) + 1);
  return &it->second;
}

bool FabricModel::link(Guid a, uint8_t pa, Guid b, uint8_t pb) {
  NodeRec* na = find(a);
  NodeRec* nb = find(b);
  if (!na || !nb || pa >= na->ports.size() || pb >= nb->ports.size()) return false;
  PortRec& x = na->ports[pa];
  PortRec& y = nb->ports[pb];
  auto clash = [](const PortRec& p, Guid want, uint8_t want_port) {
    return p.linked() && (p.peer != want || p.peer_port != want_port);
  };
  if (clash(x, b, pb) || clash(y, a, pa)) return false;
  x.peer = b;
  x.peer_port = pb;
  y.peer = a;
  y.peer_port = pa;
  return true;
}

void FabricModel::unlink(Guid g, uint8_t port) {
  NodeRec* n = find(g);
  if (!n || port >= n->ports.size() || !n->ports[port].linked()) return;
  PortRec& p = n->ports[port];
  if (NodeRec* peer = find(p.peer); peer && p.peer_port < peer->ports.size()) {
    PortRec& q = peer->ports[p.peer_port];
    if (q.peer == g && q.peer_port == port) q = PortRec{q.have_info, q.info, q.guid, Guid(), 0};
  }
  p.peer = Guid();
  p.peer_port = 0;
}

std::vector<Guid> FabricModel::prune_unreachable() {
  std::vector<Guid> gone;
  if (!find(sm_node_)) {
    for (auto& [g, n] : nodes_) gone.push_back(g);
    nodes_.clear();
    return gone;
  }
  std::unordered_map<Guid, bool> seen;
  std::vector<Guid> queue{sm_node_};
  seen.emplace(sm_node_, true);
  for (size_t h = 0; h < queue.size(); ++h) {
    const NodeRec& n = nodes_.at(queue[h]);
    // Only switches forward; the SM's own node only out of its SM port.
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const PortRec& pr = n.ports[p];
      if (!pr.linked()) continue;
      if (!n.is_switch() && !(queue[h] == sm_node_ && p == sm_port_)) continue;
      if (seen.emplace(pr.peer, true).second) queue.push_back(pr.peer);
    }
  }
  for (auto& [g, n] : nodes_)
    if (!seen.contains(g)) gone.push_back(g);
  std::sort(gone.begin(), gone.end());
  for (Guid g : gone) {
    NodeRec& n = nodes_.at(g);
    for (size_t p = 1; p < n.ports.size(); ++p) unlink(g, static_cast<uint8_t>(p));
  }
  for (Guid g : gone) nodes_.erase(g);
  return gone;
}

void FabricModel::recompute_paths() {
  if (!find(sm_node_)) return;
  std::unordered_map<Guid, bool> seen;
  std::vector<Guid> queue{sm_node_};
  seen.emplace(sm_node_, true);
  nodes_.at(sm_node_).path = DrPath();
  for (size_t h = 0; h < queue.size(); ++h) {
    const NodeRec& n = nodes_.at(queue[h]);
    if (n.path.full()) continue;
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const PortRec& pr = n.ports[p];
      if (!pr.linked() || seen.contains(pr.peer)) continue;
      if (!n.is_switch() && !(queue[h] == sm_node_ && p == sm_port_)) continue;
      seen.emplace(pr.peer, true);
      NodeRec& peer = nodes_.at(pr.peer);
      peer.path = n.path.extended(mad::PortNum(static_cast<uint8_t>(p)));
      if (peer.is_switch()) queue.push_back(pr.peer);
    }
  }
}

Guid FabricModel::node_by_lid(Lid lid) const {
  for (const auto& [g, n] : nodes_) {
    for (size_t p = n.is_switch() ? 0 : 1; p < (n.is_switch() ? 1 : n.ports.size()); ++p) {
      const mad::PortInfo& pi = n.ports[p].info;
      if (!n.ports[p].have_info || !pi.lid.is_unicast()) continue;
      if (lid.value() >= pi.lid.value() && lid.value() < pi.lid.value() + (1u << pi.lmc)) return g;
    }
  }
  return Guid();
}

Topology FabricModel::snapshot() {
  TopologyBuilder b;
  for (const auto& [g, n] : nodes_) {
    Node node;
    node.guid = n.info.node_guid;
    node.system_guid = n.info.system_image_guid;
    node.type = n.info.node_type;
    node.num_ports = n.info.num_ports;
    node.device_id = n.info.device_id;
    node.vendor_id = n.info.vendor_id;
    node.revision = n.info.revision;
    node.description = n.description;
    if (n.is_switch()) {
      node.sw.lft_cap = n.sw.linear_fdb_cap;
      node.sw.lft_top = n.sw.linear_fdb_top.value();
      node.sw.mft_cap = n.sw.multicast_fdb_cap;
      node.sw.lids_per_port = n.sw.lids_per_port;
      node.sw.life_time = n.sw.life_time_value;
      node.sw.enhanced_port0 = n.sw.enhanced_port0;
      node.sw.port_state_change = n.sw.port_state_change;
    }
    std::vector<Port> ports(n.ports.size());
    for (size_t p = 0; p < n.ports.size(); ++p) {
      const PortRec& r = n.ports[p];
      Port& q = ports[p];
      q.guid = n.is_switch() ? n.info.node_guid : r.guid;
      if (!r.have_info) continue;
      q.lid = r.info.lid;
      q.lmc = r.info.lmc;
      q.state = r.info.port_state;
      q.phys = r.info.phys_state;
      q.width_active = r.info.link_width_active;
      q.speed_active = r.info.link_speed_active;
      q.speed_ext_active = r.info.link_speed_ext_active;
      q.mtu_cap = r.info.mtu_cap;
      q.vl_cap = r.info.vl_cap;
      q.sm_lid = r.info.master_sm_lid;
    }
    b.add_node(std::move(node), std::move(ports));
  }
  for (const auto& [g, n] : nodes_)
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const PortRec& r = n.ports[p];
      if (!r.linked() || g > r.peer || (g == r.peer && p > r.peer_port)) continue;  // once
      b.add_link(g, mad::PortNum(static_cast<uint8_t>(p)), r.peer, mad::PortNum(r.peer_port));
    }
  b.set_sm(sm_node_, mad::PortNum(sm_port_));
  Topology topo = std::move(b).build();
  for (const Node& node : topo.nodes()) nodes_.at(node.guid).path = node.path;
  return topo;
}

}  // namespace sm
