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
  auto t = sim::topology_of(std::move(spec), opts);
  REQUIRE_MESSAGE(t, (t ? "" : t.error().message));
  return std::move(*t);
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
