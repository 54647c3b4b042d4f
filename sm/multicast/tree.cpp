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

  // The root: where the member switches are closest together. Measured from at most
  // kRootSamples of them, spread evenly in switch order: a BFS per member switch would cost
  // 1,458 walks of the largest fabric per group and pass (most of a second of the SM's
  // loop), and on a tree a sample finds the same centre.
  constexpr size_t kRootSamples = 16;
  std::vector<NodeId> from;
  for (const auto& [sw, mask] : at) from.push_back(sw);
  if (from.size() > kRootSamples) {
    std::vector<NodeId> picked;
    for (size_t i = 0; i < kRootSamples; ++i) picked.push_back(from[i * from.size() / kRootSamples]);
    from = std::move(picked);
  }
  std::vector<uint64_t> worst(t.node_count(), 0), total(t.node_count(), 0);
  if (at.size() > 1) {
    for (NodeId sw : from) {
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

const GroupTree& TreeCache::get(const Topology& topo, const Group& group) {
  auto [it, added] = trees_.try_emplace(group.mgid);
  if (added || it->second.members != group.members) {
    it->second.members = group.members;
    it->second.tree = build_tree(topo, group);
  }
  return it->second.tree;
}

void TreeCache::keep_only(const Registry& groups) {
  std::erase_if(trees_, [&](const auto& e) { return groups.find(e.first) == nullptr; });
}

}  // namespace sm::multicast
