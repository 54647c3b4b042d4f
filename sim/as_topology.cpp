#include "sim/as_topology.h"

#include <algorithm>

namespace sim {

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
      port.width_active = sp.width_active;
      port.speed_active = sp.speed_active;
      port.speed_ext_active = sp.speed_ext_active;
      if (sp.link_up() && id_of[sp.peer] != fabric::kNoNode) {
        port.peer = id_of[sp.peer];
        port.peer_port = mad::PortNum(sp.peer_port);
      }
      tp.push_back(port);
    }
  }
  out.topo = fabric::TopologyBuilder::from_sorted(std::move(tn), std::move(tp), mad::Guid(), mad::PortNum());
  out.lfts.resize(out.topo.node_count());
  for (fabric::NodeId id : out.topo.switches()) {
    const SimSwitch& sw = *nodes[out.sim_node[id]].sw;
    out.lfts[id] = std::span<const uint8_t>(sw.lft).first(std::min<size_t>(sw.lft.size(), sw.lft_top + size_t{1}));
  }
  return out;
}

}  // namespace sim
