// Small fabrics in a line of code, and a synchronous SMP exchange, for the sim tests.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/attributes.h"
#include "sim/fabric.h"
#include "sim/sim_transport.h"

namespace simtest {

// Nodes by name: "S..." is a switch with `ports` ports, anything else a 1-port CA.
// Links as {"a", pa, "b", pb}.
struct L {
  std::string a;
  uint8_t pa;
  std::string b;
  uint8_t pb;
};
inline sim::FabricSpec spec(const std::vector<std::string>& names, const std::vector<L>& links,
                            uint8_t ports = 8) {
  sim::FabricSpec s;
  for (const auto& n : names) {
    sim::SpecNode node;
    node.name = n;
    node.type = n[0] == 'S' ? mad::NodeType::sw : mad::NodeType::ca;
    node.num_ports = n[0] == 'S' ? ports : 1;
    s.nodes.push_back(node);
  }
  auto idx = [&](const std::string& n) {
    for (uint32_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return i;
    return UINT32_MAX;
  };
  for (const L& l : links) s.links.push_back(sim::SpecLink{idx(l.a), l.pa, idx(l.b), l.pb});
  return s;
}

// Sends one SMP from the endpoint and waits (virtual time) for the answer with its TID.
inline std::optional<mad::Smp> exchange(sim::SimFabric& f, sim::SimTransport& t, mad::Smp req,
                                        mad::Lid dlid = mad::kPermissiveLid) {
  static uint64_t tid = 100;
  req.tid = ++tid;
  mad::Packet p;
  p.mad = mad::encode_smp(req);
  p.addr.lid = dlid;
  (void)t.send(p);
  std::vector<mad::Packet> in;
  const mad::Nanos deadline = f.now() + std::chrono::milliseconds(10);
  while (f.now() < deadline) {
    in.clear();
    (void)t.receive(in, deadline);
    for (const auto& m : in) {
      auto s = mad::decode_smp(m.mad);
      if (s && s->tid == req.tid) return *s;
    }
  }
  return std::nullopt;
}

// Sets LIDs, states and LFTs straight into the simulated nodes (no SM involved).
struct Hand {
  std::unique_ptr<sim::SimFabric> f;
  explicit Hand(sim::FabricSpec s) { f = std::move(*sim::SimFabric::build(std::move(s))); }
  sim::SimNode& n(const char* name) { return f->mutable_node(*f->find(name)); }
  void lid(const char* name, uint16_t l) { n(name).ports[n(name).is_switch() ? 0 : 1].lid = l; }
  void activate_all() {
    for (sim::NodeIdx i = 0; i < f->nodes().size(); ++i)
      for (auto& p : f->mutable_node(i).ports)
        if (p.link_up()) p.state = mad::PortState::active;
  }
  void lft(const char* name, std::vector<uint8_t> ports) {
    auto& sw = *n(name).sw;
    sw.lft = std::move(ports);
    sw.lft_top = static_cast<uint16_t>(sw.lft.size() - 1);
  }
};

inline mad::DrPath path(std::initializer_list<uint8_t> hops) {
  mad::DrPath p;
  for (uint8_t h : hops) p.push(mad::PortNum(h));
  return p;
}

}  // namespace simtest
