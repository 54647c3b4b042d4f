#include "fabric/topology.h"

#include <algorithm>
#include <numeric>

namespace fabric {

std::optional<NodeId> Topology::find(Guid g) const {
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), g, [](const Node& n, Guid v) { return n.guid < v; });
  if (it == nodes_.end() || it->guid != g) return std::nullopt;
  return static_cast<NodeId>(it - nodes_.begin());
}

std::optional<NodeId> Topology::find_port(Guid g) const {
  auto it = std::lower_bound(by_port_guid_.begin(), by_port_guid_.end(), g,
                             [](const std::pair<Guid, NodeId>& e, Guid v) { return e.first < v; });
  if (it == by_port_guid_.end() || it->first != g) return std::nullopt;
  return it->second;
}

Lid Topology::max_lid() const {
  uint32_t top = 0;
  for (const Port& p : ports_)
    if (p.lid.is_unicast()) top = std::max(top, p.lid.value() + (1u << p.lmc) - 1u);
  return Lid(static_cast<uint16_t>(std::min<uint32_t>(top, Lid::kMaxUnicast)));
}

Topology Topology::with_lids(std::span<const LidSet> lids) const& {
  Topology t = *this;
  return std::move(t).with_lids(lids);
}

Topology Topology::with_lids(std::span<const LidSet> lids) && {
  for (const LidSet& l : lids) {
    Port& p = ports_[nodes_[l.node].first_port + l.port.value()];
    p.lid = l.lid;
    p.lmc = l.lmc;
  }
  return std::move(*this);
}

Topology Topology::without_cables(std::span<const std::pair<Guid, PortNum>> ends) const {
  Topology t = *this;
  for (const auto& [guid, port] : ends) {
    const std::optional<NodeId> id = t.find(guid);
    if (!id || port.value() == 0 || port.value() > t.nodes_[*id].num_ports) continue;
    Port& a = t.ports_[t.nodes_[*id].first_port + port.value()];
    if (!a.linked()) continue;
    Port& b = t.ports_[t.nodes_[a.peer].first_port + a.peer_port.value()];
    a.peer = b.peer = kNoNode;
    a.peer_port = b.peer_port = PortNum(0);
    --t.links_;
  }
  return t;
}

void Topology::index() {
  by_port_guid_.clear();
  switches_.clear();
  cas_.clear();
  links_ = 0;
  by_port_guid_.reserve(nodes_.size());
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    (n.is_switch() ? switches_ : cas_).push_back(id);
    for (const Port& p : ports(id)) {
      if (!p.guid.is_zero() && (!n.is_switch() || p.num.value() == 0)) by_port_guid_.emplace_back(p.guid, id);
      if (p.linked()) ++links_;
    }
  }
  links_ /= 2;
  // Stable: a GUID claimed twice finds the node with the lower NodeId, as before.
  std::stable_sort(by_port_guid_.begin(), by_port_guid_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

// Canonical directed routes: breadth-first from the SM's port, parents in queue order and
// ports in ascending order, so every node gets its shortest path that is smallest port by
// port, whatever order discovery found things in. Only switches forward; the SM's own node
// sends out of its SM port alone.
void Topology::assign_paths() {
  if (sm_node_ == kNoNode) return;
  std::vector<bool> seen(nodes_.size(), false);
  std::vector<NodeId> queue{sm_node_};
  seen[sm_node_] = true;
  nodes_[sm_node_].path = DrPath();
  for (size_t head = 0; head < queue.size(); ++head) {
    const NodeId n = queue[head];
    const Node& node = nodes_[n];
    if (node.path.full()) continue;
    for (const Port& p : ports(n)) {
      if (!p.linked() || seen[p.peer]) continue;
      if (!node.is_switch() && !(n == sm_node_ && p.num == sm_port_)) continue;
      seen[p.peer] = true;
      nodes_[p.peer].path = node.path.extended(p.num);
      if (nodes_[p.peer].is_switch()) queue.push_back(p.peer);
    }
  }
}

DrPath Topology::path_to_port(NodeId id, PortNum port) const {
  const Node& n = nodes_[id];
  if (n.is_switch() || (id == sm_node_ && port == sm_port_)) return n.path;
  const Port& p = this->port(id, port);
  if (!p.linked()) return n.path;
  return nodes_[p.peer].path.extended(p.peer_port);
}

std::optional<DrPath> Topology::second_path_to_port(NodeId id, PortNum port) const {
  if (sm_node_ == kNoNode || id >= nodes_.size()) return std::nullopt;
  // The switch the route ends at: the node itself, or the one at a CA port's other end.
  NodeId last = id;
  if (!nodes_[id].is_switch()) {
    const Port& p = this->port(id, port);
    if (id == sm_node_ || !p.linked()) return std::nullopt;
    last = p.peer;
  }
  // Walk the canonical route: its cables (both ends) and its switches are out of bounds,
  // except a CA SM's own cable and switch, and the last switch.
  std::vector<bool> banned_node(nodes_.size(), false), banned_port(ports_.size(), false);
  const DrPath& canon = nodes_[last].path;
  NodeId at = sm_node_;
  for (int hop = 1; hop <= canon.hops(); ++hop) {
    const Port& out = this->port(at, canon.at(hop));
    if (!out.linked()) return std::nullopt;  // a route that is not the fabric's any more
    const bool own_cable = hop == 1 && !nodes_[sm_node_].is_switch();
    if (!own_cable) {
      banned_port[nodes_[at].first_port + out.num.value()] = true;
      banned_port[nodes_[out.peer].first_port + out.peer_port.value()] = true;
    }
    at = out.peer;
    if (at != last && !own_cable) banned_node[at] = true;
  }
  // Breadth-first as assign_paths(), without what is banned; parents only (a path per node
  // would be 68 bytes each), the route read back from the last switch.
  struct From {
    NodeId node = kNoNode;
    uint8_t port = 0;  // out of `node`
    uint8_t hops = 0;
  };
  std::vector<From> from(nodes_.size());
  std::vector<NodeId> queue{sm_node_};
  from[sm_node_].node = sm_node_;
  for (size_t head = 0; head < queue.size() && queue[head] != last; ++head) {
    const NodeId n = queue[head];
    const Node& node = nodes_[n];
    if (from[n].hops >= DrPath::kMaxHops) continue;
    for (const Port& p : ports(n)) {
      if (!p.linked() || from[p.peer].node != kNoNode || banned_node[p.peer] ||
          banned_port[node.first_port + p.num.value()])
        continue;
      if (!node.is_switch() && !(n == sm_node_ && p.num == sm_port_)) continue;
      if (!nodes_[p.peer].is_switch()) continue;
      from[p.peer] = From{n, p.num.value(), static_cast<uint8_t>(from[n].hops + 1)};
      queue.push_back(p.peer);
    }
  }
  if (from[last].node == kNoNode || last == sm_node_) return std::nullopt;
  std::vector<uint8_t> out;
  for (NodeId n = last; n != sm_node_; n = from[n].node) out.push_back(from[n].port);
  DrPath second;
  for (auto it = out.rbegin(); it != out.rend(); ++it) second.push(PortNum(*it));
  if (second == canon) return std::nullopt;  // nothing to avoid
  if (last != id) second.push(this->port(id, port).peer_port);
  return second;
}

bool TopologyBuilder::add_node(Node node, std::vector<Port> ports) {
  if (index_.contains(node.guid)) return false;
  const size_t n = static_cast<size_t>(node.num_ports) + 1;
  ports.resize(n);
  for (size_t i = 0; i < n; ++i) {
    ports[i].num = PortNum(static_cast<uint8_t>(i));
    ports[i].peer = kNoNode;
  }
  index_.emplace(node.guid, nodes_.size());
  nodes_.push_back(Pending{std::move(node), std::move(ports), std::vector<uint32_t>(n, kNone)});
  return true;
}

Node* TopologyBuilder::node(Guid g) {
  auto it = index_.find(g);
  return it == index_.end() ? nullptr : &nodes_[it->second].node;
}

Port* TopologyBuilder::port(Guid g, PortNum p) {
  auto it = index_.find(g);
  if (it == index_.end()) return nullptr;
  auto& ports = nodes_[it->second].ports;
  return p.value() < ports.size() ? &ports[p.value()] : nullptr;
}

bool TopologyBuilder::add_link(Guid ga, PortNum pa, Guid gb, PortNum pb) {
  auto ia = index_.find(ga), ib = index_.find(gb);
  if (ia == index_.end() || ib == index_.end()) return false;
  const size_t a = ia->second, b = ib->second;
  Pending& na = nodes_[a];
  Pending& nb = nodes_[b];
  if (pa.value() == 0 || pb.value() == 0) return false;
  if (pa.value() >= na.ports.size() || pb.value() >= nb.ports.size()) return false;
  uint32_t& la = na.peer[pa.value()];
  uint32_t& lb = nb.peer[pb.value()];
  auto& porta = na.ports[pa.value()];
  auto& portb = nb.ports[pb.value()];
  const bool same = la == b && porta.peer_port == pb && lb == a && portb.peer_port == pa;
  if (same) return true;
  if (la != kNone || lb != kNone) return false;
  if (a == b && pa == pb) return false;
  la = static_cast<uint32_t>(b);
  porta.peer_port = pb;
  lb = static_cast<uint32_t>(a);
  portb.peer_port = pa;
  return true;
}

void TopologyBuilder::set_sm(Guid g, PortNum p) {
  sm_guid_ = g;
  sm_port_ = p;
}

Topology TopologyBuilder::from_sorted(std::vector<Node> nodes, std::vector<Port> ports, Guid sm_node,
                                      PortNum sm_port) {
  Topology t;
  t.nodes_ = std::move(nodes);
  t.ports_ = std::move(ports);
  if (auto id = t.find(sm_node)) {
    t.sm_node_ = *id;
    t.sm_port_ = sm_port;
  }
  t.index();
  t.assign_paths();
  return t;
}

Topology TopologyBuilder::build() && {
  std::vector<size_t> order(nodes_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return nodes_[x].node.guid < nodes_[y].node.guid; });
  std::vector<NodeId> id_of(nodes_.size());  // by order of addition
  for (NodeId id = 0; id < order.size(); ++id) id_of[order[id]] = id;

  Topology t;
  t.nodes_.reserve(nodes_.size());
  size_t port_count = 0;
  for (const Pending& pn : nodes_) port_count += pn.ports.size();
  t.ports_.reserve(port_count);
  for (size_t k : order) {
    Pending& pn = nodes_[k];
    pn.node.first_port = static_cast<uint32_t>(t.ports_.size());
    for (size_t i = 0; i < pn.ports.size(); ++i) {
      Port p = pn.ports[i];
      p.peer = pn.peer[i] == kNone ? kNoNode : id_of[pn.peer[i]];
      t.ports_.push_back(p);
    }
    t.nodes_.push_back(std::move(pn.node));
  }
  if (auto it = index_.find(sm_guid_); it != index_.end()) {
    t.sm_node_ = id_of[it->second];
    t.sm_port_ = sm_port_;
  }
  t.index();
  t.assign_paths();
  nodes_.clear();
  index_.clear();
  return t;
}

}  // namespace fabric
