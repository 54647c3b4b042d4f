#include "sm/multicast/tree.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "mad/sa_path_record.h"

namespace sm::multicast {

namespace {

constexpr uint32_t kFar = std::numeric_limits<uint32_t>::max();

// Hop counts over switch-to-switch links from switch index `from` to every switch (kFar:
// unreachable). `parent` (optional) gets each reached switch's BFS parent link.
struct Parent {
  uint32_t sw = kFar;  // switch index
  uint8_t parent_port = 0, own_port = 0;
};
std::vector<uint32_t> bfs(const SwitchGraph& g, uint32_t from, std::vector<Parent>* parent) {
  std::vector<uint32_t> dist(g.nodes.size(), kFar);
  if (parent) parent->assign(g.nodes.size(), Parent{});
  std::vector<uint32_t> q{from};
  q.reserve(g.nodes.size());
  dist[from] = 0;
  for (size_t head = 0; head < q.size(); ++head) {
    const uint32_t s = q[head];
    for (uint32_t e = g.first[s]; e < g.first[s + 1]; ++e) {
      const SwitchGraph::Edge& l = g.edges[e];
      if (dist[l.peer] != kFar) continue;
      dist[l.peer] = dist[s] + 1;
      if (parent) (*parent)[l.peer] = Parent{s, l.port, l.peer_port};
      q.push_back(l.peer);
    }
  }
  return dist;
}

}  // namespace

SwitchGraph SwitchGraph::of(const Topology& t) {
  SwitchGraph g;
  g.index.assign(t.node_count(), kFar);
  for (NodeId s : t.switches()) {
    g.index[s] = static_cast<uint32_t>(g.nodes.size());
    g.nodes.push_back(s);
  }
  g.first.reserve(g.nodes.size() + 1);
  for (NodeId s : g.nodes) {  // neighbours in (NodeId, port) order: the BFS, hence the tree, is deterministic
    g.first.push_back(static_cast<uint32_t>(g.edges.size()));
    for (const Port& p : t.ports(s))
      if (p.num.value() != 0 && p.linked() && t.node(p.peer).is_switch())
        g.edges.push_back(Edge{g.index[p.peer], p.num.value(), p.peer_port.value()});
  }
  g.first.push_back(static_cast<uint32_t>(g.edges.size()));
  return g;
}

GroupTree build_tree(const Topology& t, const Group& g) { return build_tree(t, SwitchGraph::of(t), g); }

GroupTree build_tree(const Topology& t, const SwitchGraph& graph, const Group& g) {
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
  std::vector<uint64_t> worst(graph.nodes.size(), 0), total(graph.nodes.size(), 0);
  if (at.size() > 1) {
    for (NodeId sw : from) {
      const auto d = bfs(graph, graph.index[sw], nullptr);
      for (size_t i = 0; i < d.size(); ++i) {
        worst[i] = std::max<uint64_t>(worst[i], d[i]);
        total[i] += d[i];
      }
    }
  }
  uint32_t root = graph.index[at.begin()->first];
  if (at.size() > 1) {
    auto key = [&](uint32_t i) { return std::make_tuple(worst[i], total[i], t.node(graph.nodes[i]).guid); };
    for (uint32_t i = 0; i < graph.nodes.size(); ++i)
      if (key(i) < key(root)) root = i;
  }
  out.root = graph.nodes[root];

  std::vector<Parent> parent;
  const auto dist = bfs(graph, root, &parent);
  std::map<NodeId, PortMask> tree;
  std::vector<bool> on_tree(graph.nodes.size(), false);
  on_tree[root] = true;
  tree[out.root];
  for (const auto& [sw, mask] : at) {
    const uint32_t i = graph.index[sw];
    if (dist[i] == kFar) {
      out.members_cut_off += std::max<size_t>(mask.count(), 1);
      continue;
    }
    // Up the BFS tree until a switch already on it: each switch added brings its parent link.
    for (uint32_t s = i; !on_tree[s]; s = parent[s].sw) {
      on_tree[s] = true;
      tree[graph.nodes[s]].set(parent[s].own_port);
      tree[graph.nodes[parent[s].sw]].set(parent[s].parent_port);
    }
    tree[sw] |= mask;
  }
  out.switches.assign(tree.begin(), tree.end());
  return out;
}

const GroupTree& TreeCache::get(const Topology& topo, const Group& group) {
  if (!graph_) graph_ = SwitchGraph::of(topo);
  auto [it, added] = trees_.try_emplace(group.mgid);
  if (added || it->second.members != group.members) {
    it->second.members = group.members;
    it->second.tree = build_tree(topo, *graph_, group);
  }
  return it->second.tree;
}

void TreeCache::keep_only(const Registry& groups) {
  std::erase_if(trees_, [&](const auto& e) { return groups.find(e.first) == nullptr; });
}

}  // namespace sm::multicast
