#include "sim/spec_topology.h"

#include <fmt/format.h>

#include <algorithm>

namespace sim {

mad::Result<fabric::Topology> topology_of(FabricSpec spec, const TopologyOptions& opts) {
  assign_guids(spec);
  fabric::TopologyBuilder b;
  const size_t nodes = spec.nodes.size(), links = spec.links.size();
  for (size_t k = 0; k < nodes; ++k) {
    const SpecNode& n = spec.nodes[opts.reverse ? nodes - 1 - k : k];
    fabric::Node node;
    node.guid = n.node_guid;
    node.system_guid = n.system_guid;
    node.type = n.type;
    node.num_ports = n.num_ports;
    node.description = n.description.empty() ? n.name : n.description;
    std::vector<fabric::Port> ports(static_cast<size_t>(n.num_ports) + 1);
    for (uint8_t p = 0; p <= n.num_ports; ++p) {
      ports[p].guid = port_guid(n, p);
      ports[p].state = (p == 0 && n.type == mad::NodeType::sw) ? mad::PortState::active : mad::PortState::down;
    }
    if (!b.add_node(std::move(node), std::move(ports)))
      return mad::fail(mad::Errc::conflict, fmt::format("two nodes with GUID {}", n.node_guid));
  }
  for (size_t k = 0; k < links; ++k) {
    const SpecLink& l = spec.links[opts.reverse ? links - 1 - k : k];
    const mad::Guid ga = spec.nodes[l.a].node_guid, gb = spec.nodes[l.b].node_guid;
    if (!b.add_link(ga, mad::PortNum(l.port_a), gb, mad::PortNum(l.port_b)))
      return mad::fail(mad::Errc::invalid, fmt::format("link {}[{}] - {}[{}] does not fit", spec.nodes[l.a].name,
                                                       l.port_a, spec.nodes[l.b].name, l.port_b));
    for (fabric::Port* port : {b.port(ga, mad::PortNum(l.port_a)), b.port(gb, mad::PortNum(l.port_b))}) {
      port->state = mad::PortState::active;
      port->width_active = l.width;  // the link trained to what the spec says (traffic capacity)
      port->speed_active = l.speed;
      port->speed_ext_active = l.speed_ext;
    }
  }
  for (const auto& [which, state] : {std::pair{&opts.down, mad::PortState::down}, std::pair{&opts.init, mad::PortState::init}})
    for (const auto& [name, p] : *which) {
      auto it = std::find_if(spec.nodes.begin(), spec.nodes.end(), [&](const SpecNode& n) { return n.name == name; });
      fabric::Port* port = it == spec.nodes.end() ? nullptr : b.port(it->node_guid, mad::PortNum(p));
      if (!port) return mad::fail(mad::Errc::not_found, fmt::format("no port {}[{}]", name, p));
      port->state = state;
    }
  fabric::Topology topo = std::move(b).build();
  std::vector<fabric::Topology::LidSet> lids;
  uint32_t next = 1;
  for (fabric::NodeId id = 0; id < topo.node_count(); ++id) {
    if (topo.node(id).is_switch()) {
      lids.push_back({id, mad::PortNum(0), mad::Lid(static_cast<uint16_t>(next++)), 0});
      continue;
    }
    for (const fabric::Port& p : topo.ports(id)) {
      if (p.num.value() == 0 || !p.linked()) continue;
      const uint32_t span = 1u << opts.lmc;
      next = (next + span - 1) / span * span;
      lids.push_back({id, p.num, mad::Lid(static_cast<uint16_t>(next)), opts.lmc});
      next += span;
    }
  }
  return topo.with_lids(lids);
}

}  // namespace sim
