#include "helpers.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

#include "sim/netfile.h"

#ifndef FABRICSM_TOPO_DIR
#define FABRICSM_TOPO_DIR "/work/shared/topologies"
#endif

namespace rtest {

Spec& Spec::sw(const std::string& name, uint8_t ports) {
  index_[name] = static_cast<uint32_t>(spec_.nodes.size());
  spec_.nodes.push_back(sim::SpecNode{mad::NodeType::sw, name, "", ports});
  return *this;
}

Spec& Spec::ca(const std::string& name, uint8_t ports) {
  index_[name] = static_cast<uint32_t>(spec_.nodes.size());
  spec_.nodes.push_back(sim::SpecNode{mad::NodeType::ca, name, "", ports});
  return *this;
}

Spec& Spec::link(const std::string& a, uint8_t pa, const std::string& b, uint8_t pb) {
  spec_.links.push_back(sim::SpecLink{index_.at(a), pa, index_.at(b), pb});
  return *this;
}

fabric::Topology to_topology(sim::FabricSpec spec, const BuildOptions& opts) {
  sim::assign_guids(spec);
  fabric::TopologyBuilder b;
  std::vector<size_t> order(spec.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = opts.reverse ? order.size() - 1 - i : i;
  for (size_t i : order) {
    const sim::SpecNode& n = spec.nodes[i];
    fabric::Node node;
    node.guid = n.node_guid;
    node.system_guid = n.system_guid;
    node.type = n.type;
    node.num_ports = n.num_ports;
    node.description = n.description.empty() ? n.name : n.description;
    std::vector<fabric::Port> ports(static_cast<size_t>(n.num_ports) + 1);
    for (uint8_t p = 0; p <= n.num_ports; ++p) {
      ports[p].guid = sim::port_guid(n, p);
      ports[p].state = (p == 0 && n.type == mad::NodeType::sw) ? mad::PortState::active
                                                               : mad::PortState::down;
    }
    REQUIRE(b.add_node(std::move(node), std::move(ports)));
  }
  for (size_t k = 0; k < spec.links.size(); ++k) {
    const sim::SpecLink& l = spec.links[opts.reverse ? spec.links.size() - 1 - k : k];
    const mad::Guid ga = spec.nodes[l.a].node_guid, gb = spec.nodes[l.b].node_guid;
    REQUIRE(b.add_link(ga, mad::PortNum(l.port_a), gb, mad::PortNum(l.port_b)));
    b.port(ga, mad::PortNum(l.port_a))->state = mad::PortState::active;
    b.port(gb, mad::PortNum(l.port_b))->state = mad::PortState::active;
  }
  const auto set_state = [&](const std::vector<std::pair<std::string, uint8_t>>& which,
                             mad::PortState st) {
    for (const auto& [name, p] : which) {
      auto it = std::find_if(spec.nodes.begin(), spec.nodes.end(),
                             [&](const sim::SpecNode& n) { return n.name == name; });
      REQUIRE(it != spec.nodes.end());
      b.port(it->node_guid, mad::PortNum(p))->state = st;
    }
  };
  set_state(opts.down, mad::PortState::down);
  set_state(opts.init, mad::PortState::init);
  fabric::Topology topo = std::move(b).build();

  std::vector<fabric::Topology::LidSet> lids;
  uint32_t next = 1;
  for (fabric::NodeId id = 0; id < topo.node_count(); ++id) {
    const fabric::Node& n = topo.node(id);
    if (n.is_switch()) {
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

namespace {
sim::FabricSpec chain(uint32_t n, uint32_t cas, bool closed) {
  Spec s;
  const uint8_t ports = static_cast<uint8_t>(cas + 2);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < cas; ++j) s.ca(fmt::format("H{}_{}", i, j));
  for (uint32_t i = 0; i < n; ++i) s.sw(fmt::format("S{}", i), ports);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < cas; ++j)
      s.link(fmt::format("H{}_{}", i, j), 1, fmt::format("S{}", i), static_cast<uint8_t>(j + 1));
  for (uint32_t i = 0; i + 1 < n || (closed && i < n); ++i)
    s.link(fmt::format("S{}", i), static_cast<uint8_t>(cas + 1), fmt::format("S{}", (i + 1) % n),
           static_cast<uint8_t>(cas + 2));
  return s.spec();
}
}  // namespace

sim::FabricSpec line(uint32_t n, uint32_t cas) { return chain(n, cas, false); }
sim::FabricSpec ring(uint32_t n, uint32_t cas) { return chain(n, cas, true); }

sim::FabricSpec two_level(uint32_t leaves, uint32_t spines, uint32_t cas) {
  Spec s;
  for (uint32_t i = 0; i < leaves; ++i)
    for (uint32_t j = 0; j < cas; ++j) s.ca(fmt::format("H{}_{}", i, j));
  for (uint32_t i = 0; i < leaves; ++i)
    s.sw(fmt::format("L{}", i), static_cast<uint8_t>(cas + spines));
  for (uint32_t j = 0; j < spines; ++j) s.sw(fmt::format("P{}", j), static_cast<uint8_t>(leaves));
  for (uint32_t i = 0; i < leaves; ++i)
    for (uint32_t j = 0; j < cas; ++j)
      s.link(fmt::format("H{}_{}", i, j), 1, fmt::format("L{}", i), static_cast<uint8_t>(j + 1));
  for (uint32_t i = 0; i < leaves; ++i)
    for (uint32_t j = 0; j < spines; ++j)
      s.link(fmt::format("L{}", i), static_cast<uint8_t>(cas + 1 + j), fmt::format("P{}", j),
             static_cast<uint8_t>(i + 1));
  return s.spec();
}

sim::FabricSpec shared(const std::string& name) {
  auto spec = sim::load_netfile(std::string(FABRICSM_TOPO_DIR) + "/" + name);
  REQUIRE_MESSAGE(spec.has_value(), (spec ? "" : spec.error().message));
  return *spec;
}

std::unique_ptr<routing::Engine> engine(std::string_view name) {
  auto e = routing::make_engine(name);
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().message));
  return std::move(*e);
}

routing::RoutingTables route(const std::string& engine, const fabric::Topology& topo,
                             const routing::RoutingOptions& opts) {
  auto e = routing::make_engine(engine);
  REQUIRE(e.has_value());
  auto t = (*e)->compute(topo, opts);
  REQUIRE_MESSAGE(t.has_value(), (t ? "" : t.error().message));
  return std::move(*t);
}

fabric::NodeId node(const fabric::Topology& topo, const std::string& name) {
  for (fabric::NodeId id = 0; id < topo.node_count(); ++id)
    if (topo.node(id).description == name) return id;
  FAIL("no node " << name);
  return fabric::kNoNode;
}

mad::Lid lid(const fabric::Topology& topo, const std::string& name, uint8_t port) {
  const fabric::NodeId id = node(topo, name);
  return topo.port(id, mad::PortNum(topo.node(id).is_switch() ? 0 : port)).lid;
}

uint8_t entry(const fabric::Topology& topo, const routing::RoutingTables& t, const std::string& sw,
              const std::string& dst) {
  return t.port(node(topo, sw), lid(topo, dst));
}

}  // namespace rtest
