#include "sm/fabric_model.h"

#include <algorithm>
#include <unordered_set>

namespace sm {

void FabricModel::clear() {
  nodes_.clear();
  sm_node_ = Guid();
  sm_port_ = 0;
}

NodeRec* FabricModel::add(const mad::NodeInfo& ni, const DrPath& path) {
  if (nodes_.contains(ni.node_guid)) return nullptr;
  NodeRec& n = nodes_.edit_or_add(ni.node_guid);
  n.info = ni;
  n.path = path;
  n.ports.resize(static_cast<size_t>(ni.num_ports) + 1);
  return &n;
}

bool FabricModel::link(Guid a, uint8_t pa, Guid b, uint8_t pb) {
  const NodeRec* ra = find(a);
  const NodeRec* rb = find(b);
  if (!ra || !rb || pa >= ra->ports.size() || pb >= rb->ports.size()) return false;
  auto clash = [](const PortRec& p, Guid want, uint8_t want_port) {
    return p.linked() && (p.peer != want || p.peer_port != want_port);
  };
  if (clash(ra->ports[pa], b, pb) || clash(rb->ports[pb], a, pa)) return false;
  if (ra->ports[pa].peer == b && ra->ports[pa].peer_port == pb && rb->ports[pb].peer == a &&
      rb->ports[pb].peer_port == pa)
    return true;  // known already: no copy of a shared record
  PortRec& x = edit(a)->ports[pa];
  PortRec& y = edit(b)->ports[pb];
  x.peer = b;
  x.peer_port = pb;
  y.peer = a;
  y.peer_port = pa;
  return true;
}

void FabricModel::unlink(Guid g, uint8_t port) {
  const NodeRec* r = find(g);
  if (!r || port >= r->ports.size() || !r->ports[port].linked()) return;
  PortRec& p = edit(g)->ports[port];
  if (const NodeRec* peer = find(p.peer); peer && p.peer_port < peer->ports.size()) {
    const PortRec& q = peer->ports[p.peer_port];
    if (q.peer == g && q.peer_port == port) {
      PortRec& w = edit(p.peer)->ports[p.peer_port];
      w.peer = Guid();
      w.peer_port = 0;
    }
  }
  p.peer = Guid();
  p.peer_port = 0;
}

void FabricModel::keep_ignored(const FabricModel& before) {
  before.nodes_.for_each([&](Guid g, const NodeRec& was) {
    const NodeRec* now = find(g);
    if (!now) return;
    const size_t n = std::min(now->ports.size(), was.ports.size());
    bool any = false;
    for (size_t p = 0; p < n && !any; ++p) any = (was.ports[p].ignored & ~now->ports[p].ignored) != 0;
    if (!any) return;  // the usual case: nothing to write, no copy of a shared record
    NodeRec* rec = edit(g);
    for (size_t p = 0; p < n; ++p) rec->ports[p].ignored |= was.ports[p].ignored;
  });
}

std::vector<Guid> FabricModel::prune_unreachable() {
  std::vector<Guid> gone;
  if (!find(sm_node_)) {
    nodes_.for_each([&](Guid g, const NodeRec&) { gone.push_back(g); });
    std::sort(gone.begin(), gone.end());
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
  nodes_.for_each([&](Guid g, const NodeRec&) {
    if (!seen.contains(g)) gone.push_back(g);
  });
  std::sort(gone.begin(), gone.end());
  for (Guid g : gone) {
    const size_t ports = find(g)->ports.size();
    for (size_t p = 1; p < ports; ++p) unlink(g, static_cast<uint8_t>(p));
  }
  for (Guid g : gone) nodes_.erase(g);
  return gone;
}

void FabricModel::set_path(Guid g, const DrPath& path) {
  if (const NodeRec* n = find(g); n && !(n->path == path)) edit(g)->path = path;
}

void FabricModel::recompute_paths() {
  if (!find(sm_node_)) return;
  std::unordered_set<Guid> seen;
  seen.reserve(nodes_.size());
  std::vector<std::pair<Guid, DrPath>> queue{{sm_node_, DrPath()}};
  seen.insert(sm_node_);
  set_path(sm_node_, DrPath());
  for (size_t h = 0; h < queue.size(); ++h) {
    const auto [g, path] = queue[h];
    const NodeRec* n = find(g);
    if (path.full()) continue;
    for (size_t p = 1; p < n->ports.size(); ++p) {
      const PortRec& pr = n->ports[p];
      if (!pr.linked() || seen.contains(pr.peer) || !find(pr.peer)) continue;
      if (!n->is_switch() && !(g == sm_node_ && p == sm_port_)) continue;
      seen.insert(pr.peer);
      const DrPath to_peer = path.extended(mad::PortNum(static_cast<uint8_t>(p)));
      set_path(pr.peer, to_peer);
      if (find(pr.peer)->is_switch()) queue.emplace_back(pr.peer, to_peer);
    }
  }
}

Guid FabricModel::node_by_lid(Lid lid) const {
  Guid found;
  nodes_.for_each([&](Guid g, const NodeRec& n) {
    for (size_t p = n.is_switch() ? 0 : 1; p < (n.is_switch() ? 1 : n.ports.size()); ++p) {
      const mad::PortInfo& pi = n.ports[p].info;
      if (!n.ports[p].have_info || !pi.lid.is_unicast()) continue;
      if (lid.value() >= pi.lid.value() && lid.value() < pi.lid.value() + (1u << pi.lmc)) found = g;
    }
  });
  return found;
}

Guid FabricModel::switch_by_lid(Lid lid, const Topology* walked) const {
  auto holds = [lid](const NodeRec& n) {
    if (!n.is_switch() || n.ports.empty() || !n.ports[0].have_info) return false;
    const mad::PortInfo& pi = n.ports[0].info;
    return pi.lid.is_unicast() && lid.value() >= pi.lid.value() && lid.value() < pi.lid.value() + (1u << pi.lmc);
  };
  if (walked)
    for (NodeId id : walked->switches())
      if (const NodeRec* n = find(walked->node(id).guid); n && holds(*n)) return walked->node(id).guid;
  const Guid g = node_by_lid(lid);
  const NodeRec* n = g.is_zero() ? nullptr : find(g);
  return n && holds(*n) ? g : Guid();
}

Topology FabricModel::snapshot() {
  // Built straight into the Topology's arrays, in GUID order (its NodeId order): a cable's far
  // end is found by a binary search, and nothing is allocated per node (this runs on every
  // sweep, and the largest fabrics have tens of thousands of nodes).
  std::vector<std::pair<Guid, const NodeRec*>> sorted;
  sorted.reserve(nodes_.size());
  size_t port_count = 0;
  nodes_.for_each([&](Guid g, const NodeRec& n) {
    sorted.emplace_back(g, &n);
    port_count += static_cast<size_t>(n.info.num_ports) + 1;
  });
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
  // Canonical paths back into the records, only where they moved (an unchanged record stays
  // shared with the last published subnet).
  for (NodeId id = 0; id < topo.node_count(); ++id)
    if (!(sorted[id].second->path == topo.node(id).path)) edit(sorted[id].first)->path = topo.node(id).path;
  return topo;
}

}  // namespace sm
