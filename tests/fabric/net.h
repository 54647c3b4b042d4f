// Hand-built fabrics for the fabric/ tests: a builder that takes a fabric in a few lines, and
// the small shapes the metrics and bounds tests share (a line or ring, a two-level tree, a
// torus).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fabric/topology.h"

namespace ftest {

using fabric::NodeId;
using fabric::Port;
using fabric::Topology;
using mad::PortState;

// A fabric in a few lines: nodes by name (GUIDs in order of addition, CAs below switches),
// cables Active at both ends unless set otherwise, LIDs in NodeId order (CA bases aligned to
// 2^LMC).
class Net {
 public:
  Net& sw(const std::string& name, uint8_t ports) { return add(name, mad::NodeType::sw, ports); }
  Net& ca(const std::string& name) { return add(name, mad::NodeType::ca, 1); }
  Net& link(const std::string& a, uint8_t pa, const std::string& b, uint8_t pb) {
    links_.push_back({a, pa, b, pb});
    return *this;
  }
  // Takes the cable at this end out again.
  Net& unlink(const std::string& name, uint8_t port) {
    std::erase_if(links_, [&](const L& l) { return (l.a == name && l.pa == port) || (l.b == name && l.pb == port); });
    return *this;
  }
  // The SM's node (its port 1 for a CA, port 0 for a switch): the canonical paths start there.
  Net& sm(const std::string& name) {
    sm_ = name;
    return *this;
  }
  Net& state(const std::string& name, uint8_t port, PortState st) {
    states_.push_back({name, port, st});
    return *this;
  }
  Topology build(uint8_t lmc) const {
    fabric::TopologyBuilder b;
    for (const auto& [name, n] : nodes_) {
      std::vector<Port> ports(n.ports + 1u);
      for (uint8_t p = 0; p <= n.ports; ++p) {
        ports[p].num = mad::PortNum(p);
        ports[p].state = p == 0 && n.type == mad::NodeType::sw ? PortState::active : PortState::down;
      }
      REQUIRE(b.add_node(fabric::Node{.guid = n.guid, .type = n.type, .num_ports = n.ports, .description = name},
                         std::move(ports)));
    }
    for (const auto& l : links_) {
      REQUIRE(b.add_link(guid(l.a), mad::PortNum(l.pa), guid(l.b), mad::PortNum(l.pb)));
      b.port(guid(l.a), mad::PortNum(l.pa))->state = PortState::active;
      b.port(guid(l.b), mad::PortNum(l.pb))->state = PortState::active;
    }
    for (const auto& s : states_) b.port(guid(s.name), mad::PortNum(s.port))->state = s.st;
    if (!sm_.empty()) b.set_sm(guid(sm_), mad::PortNum(nodes_.at(sm_).type == mad::NodeType::sw ? 0 : 1));
    Topology t = std::move(b).build();
    std::vector<Topology::LidSet> lids;
    uint32_t next = 1;
    for (NodeId id = 0; id < t.node_count(); ++id) {
      const bool sw = t.node(id).is_switch();
      const uint32_t span = sw ? 1u : 1u << lmc;
      next = (next + span - 1) / span * span;
      lids.push_back({id, mad::PortNum(sw ? 0 : 1), mad::Lid(static_cast<uint16_t>(next)), sw ? uint8_t{0} : lmc});
      next += span;
    }
    return t.with_lids(lids);
  }

 private:
  struct N {
    mad::NodeType type;
    uint8_t ports;
    mad::Guid guid;
  };
  struct L {
    std::string a;
    uint8_t pa;
    std::string b;
    uint8_t pb;
  };
  struct S {
    std::string name;
    uint8_t port;
    PortState st;
  };
  Net& add(const std::string& name, mad::NodeType type, uint8_t ports) {
    const bool sw = type == mad::NodeType::sw;
    nodes_[name] = N{type, ports, mad::Guid((sw ? 0x200000u : 0x100000u) + (sw ? switches_++ : cas_++))};
    return *this;
  }
  mad::Guid guid(const std::string& name) const { return nodes_.at(name).guid; }
  std::map<std::string, N> nodes_;
  std::vector<L> links_;
  std::vector<S> states_;
  std::string sm_;
  uint32_t switches_ = 0, cas_ = 0;
};

inline NodeId id(const Topology& t, const std::string& name) {
  for (NodeId i = 0; i < t.node_count(); ++i)
    if (t.node(i).description == name) return i;
  FAIL("no node " << name);
  return fabric::kNoNode;
}

// Switches S0..S{n-1}, `cas` CAs each on ports 1..cas, port cas+1 to the next switch and
// cas+2 to the previous; closed into a ring or not.
inline Net chain(uint32_t n, uint32_t cas, bool ring) {
  Net net;
  const auto p = static_cast<uint8_t>(cas + 1);
  for (uint32_t i = 0; i < n; ++i) {
    net.sw("S" + std::to_string(i), static_cast<uint8_t>(cas + 2));
    for (uint32_t j = 0; j < cas; ++j)
      net.ca("H" + std::to_string(i) + "_" + std::to_string(j))
          .link("H" + std::to_string(i) + "_" + std::to_string(j), 1, "S" + std::to_string(i), static_cast<uint8_t>(j + 1));
  }
  for (uint32_t i = 0; i + 1 < n || (ring && i < n); ++i)
    net.link("S" + std::to_string(i), p, "S" + std::to_string((i + 1) % n), static_cast<uint8_t>(p + 1));
  return net;
}

// Leaves L0.. with `cas` CAs on ports 1..cas, spines P0..; leaf port cas+1+j to spine j.
inline Net two_level(uint32_t leaves, uint32_t spines, uint32_t cas) {
  Net net;
  for (uint32_t j = 0; j < spines; ++j) net.sw("P" + std::to_string(j), static_cast<uint8_t>(leaves));
  for (uint32_t i = 0; i < leaves; ++i) {
    const std::string leaf = "L" + std::to_string(i);
    net.sw(leaf, static_cast<uint8_t>(cas + spines));
    for (uint32_t k = 0; k < cas; ++k) {
      const std::string h = "H" + std::to_string(i) + "_" + std::to_string(k);
      net.ca(h).link(h, 1, leaf, static_cast<uint8_t>(k + 1));
    }
    for (uint32_t j = 0; j < spines; ++j)
      net.link(leaf, static_cast<uint8_t>(cas + 1 + j), "P" + std::to_string(j), static_cast<uint8_t>(i + 1));
  }
  return net;
}

// An nx x ny torus of switches T<x><y>, `cas` CAs each on ports 1..cas, then east, west,
// south, north (a dimension of 2 gets two cables between its switches).
inline Net torus(int nx, int ny, uint8_t cas) {
  Net net;
  const auto name = [](int x, int y) { return "T" + std::to_string(x) + std::to_string(y); };
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y) {
      net.sw(name(x, y), static_cast<uint8_t>(cas + 4));
      for (uint8_t k = 1; k <= cas; ++k) {
        const std::string h = "H" + name(x, y) + "_" + std::to_string(k);
        net.ca(h).link(h, 1, name(x, y), k);
      }
    }
  for (int x = 0; x < nx; ++x)
    for (int y = 0; y < ny; ++y) {
      net.link(name(x, y), static_cast<uint8_t>(cas + 1), name((x + 1) % nx, y), static_cast<uint8_t>(cas + 2));
      net.link(name(x, y), static_cast<uint8_t>(cas + 3), name(x, (y + 1) % ny), static_cast<uint8_t>(cas + 4));
    }
  return net;
}

// A 3x3 torus, two CAs a switch: ports 1-2 CAs, 3 east, 4 west, 5 south, 6 north.
inline Net torus3() { return torus(3, 3, 2); }

}  // namespace ftest
