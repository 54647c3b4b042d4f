#include "sim/metrics.h"

#include <algorithm>

#include "fabric/topology.h"

namespace sim {

namespace {

struct AsTopology {
  fabric::Topology topo;
  std::vector<NodeIdx> sim_node;  // by NodeId
};

// The present nodes with their live links, port states and LIDs, as the fabric model. Node
// ids go by GUID, so the leaf order is the switches' GUID order: for net files and the
// generators (GUIDs assigned in file order unless a file sets them) that is their file order.
AsTopology as_topology(const SimFabric& f) {
  const auto nodes = f.nodes();
  AsTopology out;
  for (NodeIdx i = 0; i < nodes.size(); ++i)
    if (nodes[i].present) out.sim_node.push_back(i);
  std::stable_sort(out.sim_node.begin(), out.sim_node.end(),
                   [&](NodeIdx a, NodeIdx b) { return nodes[a].guid < nodes[b].guid; });
  std::vector<fabric::NodeId> id_of(nodes.size(), fabric::kNoNode);
  for (fabric::NodeId id = 0; id < out.sim_node.size(); ++id) id_of[out.sim_node[id]] = id;
  std::vector<fabric::Node> tn;
  std::vector<fabric::Port> tp;
  tn.reserve(out.sim_node.size());
  for (NodeIdx i : out.sim_node) {
    const SimNode& n = nodes[i];
    fabric::Node node;
    node.guid = n.guid;
    node.system_guid = n.system_guid;
    node.type = n.type;
    node.num_ports = n.num_ports;
    node.description = n.name;
    node.first_port = static_cast<uint32_t>(tp.size());
    if (n.is_switch()) {
      node.sw.lft_cap = n.sw->lft_cap;
      node.sw.lft_top = n.sw->lft_top;
    }
    tn.push_back(std::move(node));
    for (uint8_t p = 0; p <= n.num_ports; ++p) {
      const SimPort& sp = n.ports[p];
      fabric::Port port;
      port.num = mad::PortNum(p);
      port.guid = sp.guid;
      port.lid = mad::Lid(sp.lid);
      port.lmc = sp.lmc;
      port.state = sp.state;
      port.phys = sp.phys;
      if (sp.link_up() && id_of[sp.peer] != fabric::kNoNode) {
        port.peer = id_of[sp.peer];
        port.peer_port = mad::PortNum(sp.peer_port);
      }
      tp.push_back(port);
    }
  }
  out.topo = fabric::TopologyBuilder::from_sorted(std::move(tn), std::move(tp), mad::Guid(), mad::PortNum());
  return out;
}

}  // namespace

MetricsReport measure_routing(const SimFabric& f, const MetricsOptions& opts) {
  const AsTopology t = as_topology(f);
  // Each switch's LFT up to its LinearFDBTop: what lies beyond is no route.
  std::vector<std::span<const uint8_t>> lfts(t.topo.node_count());
  for (fabric::NodeId id : t.topo.switches()) {
    const SimSwitch& sw = *f.node(t.sim_node[id]).sw;
    lfts[id] = std::span<const uint8_t>(sw.lft).first(std::min<size_t>(sw.lft.size(), sw.lft_top + size_t{1}));
  }
  fabric::MetricsReport m = fabric::measure_routing(t.topo, lfts, opts);
  MetricsReport r;
  static_cast<fabric::RoutingFigures&>(r) = m;
  r.links.reserve(m.links.size());
  for (const fabric::LinkLoad& l : m.links)
    r.links.push_back(LinkLoad{t.sim_node[l.from], l.from_port.value(), t.sim_node[l.to], l.to_port.value(), l.routes});
  return r;
}

}  // namespace sim
