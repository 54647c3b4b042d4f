#include "sm/multicast/tree.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

#include "mad/sa_path_record.h"

namespace sm::multicast {

namespace {

constexpr uint32_t kFar = std::numeric_limits<uint32_t>::max();

// Hop counts over switch-to-switch links from `from` to every switch (kFar: unreachable).
// `parent` (optional) gets each reached switch's BFS parent link: (parent, its port, our port).
struct Parent {
  NodeId node = kNoNode;
  uint8_t parent_port = 0, own_port = 0;
};
std::vector<uint32_t> bfs(const Topology& t, NodeId from, std::vector<Parent>* parent) {
  std::vector<uint32_t> dist(t.node_count(), kFar);
  if (parent) parent->assign(t.node_count(), Parent{});
  std::deque<NodeId> q{from};
  dist[from] = 0;
  while (!q.empty()) {
    const NodeId s = q.front();
    q.pop_front();
    for (const Port& p : t.ports(s)) {
      if (p.num.value() == 0 || !p.linked() || !t.node(p.peer).is_switch() || dist[p.peer] != kFar) continue;
      dist[p.peer] = dist[s] + 1;
      if (parent) (*parent)[p.peer] = Parent{s, p.num.value(), p.peer_port.value()};
      q.push_back(p.peer);
    }
  }
  return dist;
}

}  // namespace

GroupTree build_tree(const Topology& t, const Group& g) {
  GroupTree out;
  // Member ports on switches: switch -> ports to deliver on (empty set: send-only there).
  std::map<NodeId, PortMask> at;
  for (const auto& [gid, js] : g.members) {
    const auto node = t.find_port(gid.guid());
    if (!node) {
      ++out.members_missing;
      continue;
    }
    ++out.members_found;
    const bool receives = js & (mad::join_state::full | mad::join_state::non);
    NodeId sw = kNoNode;
    uint8_t port = 0;
    if (t.node(*node).is_switch()) {
      sw = *node;  // the switch's own port 0 joined
    } else {
      for (const Port& p : t.ports(*node))
        if (p.num.value() != 0 && p.guid == gid.guid() && p.linked() && t.node(p.peer).is_switch()) {
          sw = p.peer;
          port = p.peer_port.value();
        }
    }
    if (sw == kNoNode) {
      ++out.members_cut_off;
      continue;
    }
    PortMask& m = at[sw];
    if (receives) m.set(port);
  }
  if (at.empty()) return out;

  // The root: where the member switches are closest together.
  std::vector<uint64_t> worst(t.node_count(), 0), total(t.node_count(), 0);
  if (at.size() > 1) {
    for (const auto& [sw, mask] : at) {
      const auto d = bfs(t, sw, nullptr);
      for (NodeId s : t.switches()) {
        worst[s] = std::max<uint64_t>(worst[s], d[s]);
        total[s] += d[s];
      }
    }
  }
  NodeId root = at.begin()->first;
  if (at.size() > 1) {
    auto key = [&](NodeId s) { return std::make_tuple(worst[s], total[s], t.node(s).guid); };
    for (NodeId s : t.switches())
      if (key(s) < key(root)) root = s;
  }
  out.root = root;

  std::vector<Parent> parent;
  const auto dist = bfs(t, root, &parent);
  std::map<NodeId, PortMask> tree;
  std::vector<bool> on_tree(t.node_count(), false);
  on_tree[root] = true;
  tree[root];
  for (const auto& [sw, mask] : at) {
    if (dist[sw] == kFar) {
      out.members_cut_off += std::max<size_t>(mask.count(), 1);
      continue;
    }
    // Up the BFS tree until a switch already on it: each switch added brings its parent link.
    for (NodeId s = sw; !on_tree[s]; s = parent[s].node) {
      on_tree[s] = true;
      tree[s].set(parent[s].own_port);
      tree[parent[s].node].set(parent[s].parent_port);
    }
    tree[sw] |= mask;
  }
  out.switches.assign(tree.begin(), tree.end());
  return out;
}

}  // namespace sm::multicast
