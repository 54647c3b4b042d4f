#include "fabric/wiring.h"

namespace fabric {

bool link_up(const Topology& t, const Port& p) {
  return p.linked() && p.state >= PortState::init && t.port(p.peer, p.peer_port).state >= PortState::init;
}

Wiring wire(const Topology& t, std::span<const std::span<const uint8_t>> lfts) {
  Wiring w;
  w.sw_of.assign(t.node_count(), kNoWire);
  for (NodeId id : t.switches()) {
    w.sw_of[id] = static_cast<uint32_t>(w.node_of.size());
    w.node_of.push_back(id);
  }
  for (uint32_t s = 0; s < w.node_of.size(); ++s) {
    const NodeId id = w.node_of[s];
    w.slot_base.push_back(static_cast<uint32_t>(w.slots.size()));
    w.port_count.push_back(t.node(id).num_ports);
    w.lft.push_back(id < lfts.size() ? lfts[id] : std::span<const uint8_t>{});
    for (const Port& p : t.ports(id)) {
      Slot sl;
      if (p.num.value() != 0 && link_up(t, p)) {
        const Port& q = t.port(p.peer, p.peer_port);
        sl.usable = p.state == PortState::active && q.state == PortState::active;
        if (t.node(p.peer).is_switch()) {
          sl.link = static_cast<uint32_t>(w.links.size());
          sl.to = w.sw_of[p.peer];
          w.links.push_back(WiredLink{id, p.num, p.peer, p.peer_port});
          w.link_to.push_back(sl.to);
        } else {
          sl.ca = &q;
          sl.ca_index = static_cast<uint32_t>(w.cas.size());
          w.cas.push_back(WiredCa{s, q.lid, q.lmc, p.peer, p.peer_port,
                                  static_cast<uint32_t>(w.slots.size())});
        }
      }
      w.slots.push_back(sl);
    }
  }
  return w;
}

}  // namespace fabric
