#include "sim/spec.h"

#include <algorithm>
#include <utility>

namespace sim {

void assign_guids(FabricSpec& spec) {
  uint64_t next_switch = 0x200000, next_ca = 0x100000;
  for (SpecNode& n : spec.nodes) {
    if (!n.node_guid.is_zero()) continue;
    if (n.type == mad::NodeType::sw) {
      n.node_guid = mad::Guid(next_switch++);
    } else {
      n.node_guid = mad::Guid(next_ca);
      next_ca += n.num_ports + 1u;
    }
  }
  for (SpecNode& n : spec.nodes)
    if (n.system_guid.is_zero()) n.system_guid = n.node_guid;
}

SpecCounts count_spec(const FabricSpec& spec) {
  SpecCounts c;
  const auto n = static_cast<uint32_t>(spec.nodes.size());
  // Pieces as an SM sees subnets: switches forward, CAs and routers do not, so each port of
  // an end node is a vertex of its own (a dual-rail CA sits in two subnets).
  std::vector<uint32_t> port_vertex(n + 1, n);  // first vertex of each end node's ports
  for (uint32_t i = 0; i < n; ++i) {
    const SpecNode& node = spec.nodes[i];
    bool sw = node.type == mad::NodeType::sw;
    port_vertex[i + 1] = port_vertex[i] + (sw ? 0u : node.num_ports);
    if (sw) ++c.switches;
    else if (node.type == mad::NodeType::router) ++c.routers;
    else ++c.cas;
  }
  auto vertex = [&](uint32_t node, uint8_t port) {
    return spec.nodes[node].type == mad::NodeType::sw ? node : port_vertex[node] + port - 1u;
  };
  std::vector<uint32_t> up(port_vertex[n]);
  std::vector<bool> counted(up.size(), false);  // the vertices that are pieces
  for (uint32_t v = 0; v < up.size(); ++v) up[v] = v;
  for (uint32_t i = 0; i < n; ++i) counted[i] = true;  // switch, or end node without cables
  auto root = [&](uint32_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  };
  c.links = spec.links.size();
  for (const SpecLink& l : spec.links) {
    if (spec.nodes[l.a].type == mad::NodeType::sw && spec.nodes[l.b].type == mad::NodeType::sw)
      ++c.switch_links;
    uint32_t va = vertex(l.a, l.port_a), vb = vertex(l.b, l.port_b);
    for (auto [node, v] : {std::pair(l.a, va), std::pair(l.b, vb)}) {
      if (v == node) continue;
      counted[v] = true;         // a cabled end-node port is a vertex
      counted[node] = false;     // and its node is no longer one on its own
    }
    uint32_t ra = root(va), rb = root(vb);
    if (ra != rb) up[ra] = rb;
  }
  // Only counted vertices are ever joined, so each piece's root is a counted vertex.
  for (uint32_t v = 0; v < up.size(); ++v)
    if (counted[v] && root(v) == v) ++c.components;
  return c;
}

void canonicalise_links(FabricSpec& spec) {
  for (SpecLink& l : spec.links) {
    if (std::pair(l.b, l.port_b) < std::pair(l.a, l.port_a)) {
      std::swap(l.a, l.b);
      std::swap(l.port_a, l.port_b);
    }
  }
  std::stable_sort(spec.links.begin(), spec.links.end(), [](const SpecLink& x, const SpecLink& y) {
    return std::pair(x.a, x.port_a) < std::pair(y.a, y.port_a);
  });
}

}  // namespace sim
