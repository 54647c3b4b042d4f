#include "routing/fabric_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace routing {

namespace {

bool live(const fabric::Port& p) { return p.state >= mad::PortState::init; }

// Both ends linked and Init or better.
bool usable(const fabric::Topology& topo, const fabric::Port& p) {
  if (!p.linked() || !live(p)) return false;
  return live(topo.port(p.peer, p.peer_port));
}

}  // namespace

mad::Result<FabricView> FabricView::build(const fabric::Topology& topo) {
  FabricView v;
  v.topo_ = &topo;
  v.max_lid_ = topo.max_lid();
  const auto sws = topo.switches();
  v.sw_node_.assign(sws.begin(), sws.end());
  v.sw_index_.assign(topo.node_count(), kNoSw);
  for (SwIdx i = 0; i < v.sw_node_.size(); ++i) v.sw_index_[v.sw_node_[i]] = i;

  v.arc_begin_.reserve(v.sw_node_.size() + 1);
  v.port_begin_.reserve(v.sw_node_.size() + 1);
  v.ep_begin_.reserve(v.sw_node_.size() + 1);
  for (SwIdx s = 0; s < v.sw_node_.size(); ++s) {
    v.arc_begin_.push_back(static_cast<uint32_t>(v.arcs_.size()));
    v.port_begin_.push_back(static_cast<uint32_t>(v.port_peer_.size()));
    v.ep_begin_.push_back(static_cast<uint32_t>(v.endpoints_.size()));
    for (const fabric::Port& p : topo.ports(v.sw_node_[s])) {
      SwIdx peer = kNoSw;
      if (p.num.value() != 0 && usable(topo, p)) {
        const fabric::Node& other = topo.node(p.peer);
        if (other.is_switch()) {
          peer = v.sw_index_[p.peer];
          v.arcs_.push_back(Arc{peer, p.num.value(), p.peer_port.value()});
        } else {
          const fabric::Port& ep = topo.port(p.peer, p.peer_port);
          v.endpoints_.push_back(Endpoint{p.peer, p.peer_port, s, p.num.value(), ep.lid, ep.lmc});
        }
      }
      v.port_peer_.push_back(peer);
    }
  }
  v.arc_begin_.push_back(static_cast<uint32_t>(v.arcs_.size()));
  v.port_begin_.push_back(static_cast<uint32_t>(v.port_peer_.size()));
  v.ep_begin_.push_back(static_cast<uint32_t>(v.endpoints_.size()));

  // Destinations: every LID of an endpoint and of each switch's port 0.
  const auto add = [&](mad::Lid base, uint8_t lmc, SwIdx sw, uint8_t out, fabric::NodeId node,
                       mad::PortNum port) {
    if (!base.is_unicast()) return;
    const uint32_t n = 1u << std::min<uint8_t>(lmc, 7);
    for (uint32_t k = 0; k < n && base.value() + k <= mad::Lid::kMaxUnicast; ++k)
      v.dests_.push_back(Dest{mad::Lid(static_cast<uint16_t>(base.value() + k)), sw, out,
                              static_cast<uint8_t>(k), lmc, node, port});
  };
  for (const Endpoint& e : v.endpoints_) add(e.lid, e.lmc, e.sw, e.sw_port, e.node, e.port);
  for (SwIdx s = 0; s < v.sw_node_.size(); ++s) {
    const fabric::Port& p0 = topo.port(v.sw_node_[s], mad::PortNum(0));
    add(p0.lid, p0.lmc, s, 0, v.sw_node_[s], mad::PortNum(0));
  }
  std::sort(v.dests_.begin(), v.dests_.end(),
            [](const Dest& a, const Dest& b) { return a.lid < b.lid; });
  for (size_t i = 1; i < v.dests_.size(); ++i) {
    const Dest& a = v.dests_[i - 1];
    const Dest& b = v.dests_[i];
    if (a.lid == b.lid)
      return mad::fail(mad::Errc::conflict,
                       fmt::format("LID {} is held by both '{}' port {} and '{}' port {}", a.lid,
                                   topo.node(a.node).description, a.node_port,
                                   topo.node(b.node).description, b.node_port));
  }
  return v;
}

ArcEnds arc_ends(const FabricView& fv) {
  ArcEnds e;
  e.tail.resize(fv.arc_count());
  e.head.resize(fv.arc_count());
  e.rev.resize(fv.arc_count());
  for (SwIdx s = 0; s < fv.switch_count(); ++s) {
    const auto arcs = fv.arcs(s);
    for (uint32_t k = 0; k < arcs.size(); ++k) {
      const uint32_t a = fv.arc_base(s) + k;
      e.tail[a] = s;
      e.head[a] = arcs[k].to;
      const auto back = fv.arcs(arcs[k].to);
      for (uint32_t j = 0; j < back.size(); ++j)
        if (back[j].port == arcs[k].peer_port) e.rev[a] = fv.arc_base(arcs[k].to) + j;
    }
  }
  return e;
}

}  // namespace routing
