#include "sm/mkey/port_audit.h"

#include <fmt/format.h>

namespace sm::mkey {

using fabric::Node;
using fabric::NodeId;
using fabric::Port;
using mad::PortNum;

std::string port_text(const fabric::Topology& t, NodeId id, uint8_t port) {
  const Node& n = t.node(id);
  const Port& p = t.port(id, PortNum(n.is_switch() ? 0 : port));
  return fmt::format("{}[{}] ({}, LID {})", n.guid, port, n.description, p.lid);
}

AuditResult audit_ports(const fabric::Topology& t, const FabricModel& model, const KeyRing& keys, AuditState state) {
  AuditResult out;
  for (NodeId id = 0; id < t.node_count(); ++id) {
    const Node& n = t.node(id);
    const NodeRec* rec = model.find(n.guid);
    if (!rec) continue;
    for (const Port& p : t.ports(id)) {
      const uint8_t pn = p.num.value();
      if (n.is_switch() ? pn != 0 : (pn == 0 || p.guid.is_zero())) continue;
      if (pn >= rec->ports.size()) continue;
      const mad::PortInfo& pi = rec->ports[pn].info;
      const Guid g = key_port(t, id, pn);
      auto [seen, fresh] = state.violations.try_emplace(g.value(), pi.m_key_violations);
      if (!fresh && pi.m_key_violations != seen->second) {
        // Counted only where the port shows this SM's key: elsewhere its own refused SMPs count too.
        const bool ours = pi.m_key != 0 && pi.m_key == keys.own_key(g);
        if (ours && pi.m_key_violations > seen->second)
          out.rises.push_back({port_text(t, id, pn), static_cast<uint16_t>(pi.m_key_violations - seen->second),
                               pi.m_key_violations});
        seen->second = pi.m_key_violations;
      }
      if (keys.has_found(g)) {
        if (state.foreign_noted.insert(g).second) out.foreign.push_back(port_text(t, id, pn));
        continue;
      }
      const bool hidden = pi.m_key == 0 && pi.m_key_protect_bits != 0;
      if (!hidden) {  // it shows a key (this SM's) or has none: nothing to leave alone
        if (keys.refusing(g)) out.accepted.push_back(g);
        if (!state.foreign_noted.empty()) state.foreign_noted.erase(g);  // another key later is news again
        continue;
      }
      if (keys.refusing(g)) continue;
      out.probes.push_back({id, pn, g, n.is_switch() ? n.path : t.path_to_port(id, p.num), pi});
    }
  }
  out.state = std::move(state);
  return out;
}

}  // namespace sm::mkey
