#include "sm/qos_policy/match.h"

#include <algorithm>

namespace sm::qos {

bool member(const PortGroup& g, const PortFacts& port) {
  if (in(g.guids, port.guid.value())) return true;
  for (const PortName& n : g.names)
    if (n.port == port.port && n.node_desc == port.node_desc) return true;
  for (NodeKind k : g.kinds) {
    switch (k) {
      case NodeKind::all: return true;
      case NodeKind::self: if (port.self) return true; break;
      case NodeKind::ca: if (port.type == mad::NodeType::ca) return true; break;
      case NodeKind::sw: if (port.type == mad::NodeType::sw) return true; break;
      case NodeKind::router: if (port.type == mad::NodeType::router) return true; break;
    }
  }
  if (!g.pkeys.empty())
    for (uint16_t k : port.pkeys)
      if ((k & 0x7FFF) != 0 && in(g.pkeys, k & 0x7FFFu)) return true;
  return false;
}

namespace {

bool in_groups(const Policy& policy, const std::vector<size_t>& groups, const PortFacts* port) {
  if (groups.empty()) return true;
  if (!port) return false;
  return std::any_of(groups.begin(), groups.end(), [&](size_t g) { return member(policy.groups[g], *port); });
}

// A criterion the rule names needs the field in the query.
template <class T>
bool meets(const Ranges& set, const std::optional<T>& v, uint64_t mask = UINT64_MAX) {
  return set.empty() || (v && in(set, static_cast<uint64_t>(*v) & mask));
}

}  // namespace

bool matches(const Policy& policy, const Rule& rule, const Query& q) {
  return meets(rule.service_ids, q.service_id) && meets(rule.pkeys, q.pkey, 0x7FFF) &&
         meets(rule.qos_classes, q.qos_class) && in_groups(policy, rule.sources, q.source) &&
         in_groups(policy, rule.destinations, q.destination);
}

const Level& level_for(const Policy& policy, const Query& q) {
  for (const Rule& r : policy.rules)
    if (matches(policy, r, q)) return policy.levels[r.level];
  return policy.levels[policy.default_level];
}

}  // namespace sm::qos
