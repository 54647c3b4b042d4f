#include "sm/fabric_model.h"

#include <algorithm>
#include <unordered_set>

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
  std::unordered_set<Guid> seen;
  seen.reserve(nodes_.size());
  std::vector<std::pair<Guid, const NodeRec*>> queue{{sm_node_, find(sm_node_)}};
  seen.insert(sm_node_);
  for (size_t h = 0; h < queue.size(); ++h) {
    const auto [g, n] = queue[h];
    // Only switches forward; the SM's own node only out of its SM port.
    for (size_t p = 1; p < n->ports.size(); ++p) {
      const PortRec& pr = n->ports[p];
      if (!pr.linked()) continue;
      if (!n->is_switch() && !(g == sm_node_ && p == sm_port_)) continue;
      if (!seen.insert(pr.peer).second) continue;
      if (const NodeRec* peer = find(pr.peer)) queue.emplace_back(pr.peer, peer);
    }
  }
  if (queue.size() == nodes_.size()) return gone;  // the usual case: all there
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
  std::unordered_set<Guid> seen;
  seen.reserve(nodes_.size());
  std::vector<std::pair<Guid, NodeRec*>> queue{{sm_node_, find(sm_node_)}};
  seen.insert(sm_node_);
  queue[0].second->path = DrPath();
  for (size_t h = 0; h < queue.size(); ++h) {
    const auto [g, n] = queue[h];
    if (n->path.full()) continue;
    for (size_t p = 1; p < n->ports.size(); ++p) {
      const PortRec& pr = n->ports[p];
      if (!pr.linked() || seen.contains(pr.peer)) continue;
      if (!n->is_switch() && !(g == sm_node_ && p == sm_port_)) continue;
      seen.insert(pr.peer);
      NodeRec& peer = nodes_.at(pr.peer);
      peer.path = n->path.extended(mad::PortNum(static_cast<uint8_t>(p)));
      if (peer.is_switch()) queue.emplace_back(pr.peer, &peer);
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
  // Built straight into the Topology's arrays, in GUID order (its NodeId order): a cable's far
  // end is found by a binary search, and nothing is allocated per node (this runs on every
  // sweep, and the largest fabrics have tens of thousands of nodes).
  std::vector<std::pair<Guid, NodeRec*>> sorted;
  sorted.reserve(nodes_.size());
  size_t port_count = 0;
  for (auto& [g, n] : nodes_) {
    sorted.emplace_back(g, &n);
    port_count += static_cast<size_t>(n.info.num_ports) + 1;
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  auto id_of = [&](Guid g) -> NodeId {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), g, [](const auto& x, Guid v) { return x.first < v; });
    return it == sorted.end() || it->first != g ? kNoNode : static_cast<NodeId>(it - sorted.begin());
  };
  std::vector<Node> nodes;
  std::vector<Port> ports;
  nodes.reserve(sorted.size());
  ports.reserve(port_count);
  for (const auto& [g, rec] : sorted) {
    const NodeRec& n = *rec;
    Node& node = nodes.emplace_back();
    node.guid = n.info.node_guid;
    node.system_guid = n.info.system_image_guid;
    node.type = n.info.node_type;
    node.num_ports = n.info.num_ports;
    node.device_id = n.info.device_id;
    node.vendor_id = n.info.vendor_id;
    node.revision = n.info.revision;
    node.description = n.description;
    node.first_port = static_cast<uint32_t>(ports.size());
    if (n.is_switch()) {
      node.sw.lft_cap = n.sw.linear_fdb_cap;
      node.sw.lft_top = n.sw.linear_fdb_top.value();
      node.sw.mft_cap = n.sw.multicast_fdb_cap;
      node.sw.lids_per_port = n.sw.lids_per_port;
      node.sw.life_time = n.sw.life_time_value;
      node.sw.enhanced_port0 = n.sw.enhanced_port0;
      node.sw.port_state_change = n.sw.port_state_change;
    }
    for (size_t p = 0; p <= n.info.num_ports; ++p) {
      Port& q = ports.emplace_back();
      q.num = PortNum(static_cast<uint8_t>(p));
      q.peer = kNoNode;
      if (p >= n.ports.size()) continue;
      const PortRec& r = n.ports[p];
      q.guid = n.is_switch() ? n.info.node_guid : r.guid;
      // A cable both ends agree on (records are kept symmetric; anything else is left out).
      if (p != 0 && r.linked() && r.peer_port != 0 && !(r.peer == g && r.peer_port == p)) {
        const NodeId far = id_of(r.peer);
        const NodeRec* other = far == kNoNode ? nullptr : sorted[far].second;
        if (other && r.peer_port < other->ports.size() && other->ports[r.peer_port].peer == g &&
            other->ports[r.peer_port].peer_port == p) {
          q.peer = far;
          q.peer_port = PortNum(r.peer_port);
        }
      }
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
  }
  Topology topo = TopologyBuilder::from_sorted(std::move(nodes), std::move(ports), sm_node_, mad::PortNum(sm_port_));
  for (NodeId id = 0; id < topo.node_count(); ++id) sorted[id].second->path = topo.node(id).path;
  return topo;
}

}  // namespace sm
