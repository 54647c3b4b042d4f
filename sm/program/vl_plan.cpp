#include "sm/program/vl_plan.h"

#include <algorithm>

namespace sm {

unsigned vls_of_code(uint8_t code) {
  switch (code) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 4;
    case 4: return 8;
    case 0: return 0;
    default: return 15;
  }
}

unsigned routing_max_vls(const fabric::Topology& topo, const PortPolicy& ports, const QosOptions& qos) {
  const int asked = qos.general.max_vls;
  unsigned cap = asked > 0 ? static_cast<unsigned>(asked) : 8u;
  // The OperationalVLs the port plan sets on a switch external port (port_plan.cpp).
  uint8_t code = ports.max_op_vls;
  if (qos.enabled) code = std::min(code, op_vls_for(resolve_qos(qos, QosClass::swe).max_vls));
  for (fabric::NodeId id : topo.switches())
    for (const fabric::Port& p : topo.ports(id)) {
      if (p.num.value() == 0 || !p.linked() || !topo.node(p.peer).is_switch()) continue;
      const fabric::Port& q = topo.port(p.peer, p.peer_port);
      if (p.vl_cap && q.vl_cap) code = std::min({code, p.vl_cap, q.vl_cap});
    }
  cap = std::min(cap, vls_of_code(code));
  return std::max(cap, 1u);
}

VlLayers vl_layers(unsigned vls_used, unsigned max_vls) {
  VlLayers l;
  l.vls_used = std::clamp(vls_used, 1u, 15u);
  if (l.vls_used < std::min(max_vls, 15u)) l.multicast_sl = static_cast<uint8_t>(l.vls_used);
  return l;
}

std::array<uint8_t, 16> layer_sl2vl(const VlLayers& l) {
  std::array<uint8_t, 16> m;
  m.fill(15);
  for (unsigned sl = 0; sl < l.vls_used; ++sl) m[sl] = static_cast<uint8_t>(sl);
  if (l.multicast_sl) m[*l.multicast_sl] = *l.multicast_sl;
  return m;
}

void layer_vlarb(const VlLayers& l, QosTables& t) {
  t.vlarb_high = {};
  t.vlarb_low = {};
  const unsigned vls = l.vls_used + (l.multicast_sl ? 1 : 0);
  // OpenSM's default weight per low-priority VL, the same for every layer.
  for (unsigned vl = 0; vl < vls; ++vl) t.vlarb_low[vl] = mad::VlArbEntry{static_cast<uint8_t>(vl), 4};
  t.high_limit = 0;
}

QosTables with_layers(QosTables t, const VlLayers& l, bool qos_on) {
  t.sl2vl = layer_sl2vl(l);
  if (!qos_on) layer_vlarb(l, t);
  return t;
}

}  // namespace sm
