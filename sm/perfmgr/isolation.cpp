// Findings whose rule isolates take their cable out of the routes (the SM re-routes around the
// cables PerfMgr::isolated() names), but never a CA's link and never a cable without which part
// of the fabric would be cut off; cables come back when their findings close.
#include "sm/perfmgr/perfmgr.h"

namespace sm::perfmgr {

// Connectivity over the switches' cables without the isolated ones and (a, b): does any node
// the full fabric reaches from the SM fall off?
bool PerfMgr::would_disconnect(const Subnet& sub, const Cable& a, const Cable& b) const {
  const Topology& t = *sub.topology;
  auto reached = [&](bool exclude) {
    std::vector<bool> seen(t.node_count(), false);
    std::vector<NodeId> todo{t.sm_node()};
    seen[t.sm_node()] = true;
    size_t n = 1;
    while (!todo.empty()) {
      const NodeId id = todo.back();
      todo.pop_back();
      const Node& node = t.node(id);
      if (!node.is_switch() && id != t.sm_node()) continue;  // CAs do not forward
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        const Port& port = t.port(id, PortNum(p));
        if (!port.linked() || seen[port.peer]) continue;
        const Cable c{node.guid, p};
        if (exclude && (c == a || c == b || isolated_.contains(c))) continue;
        seen[port.peer] = true;
        ++n;
        todo.push_back(port.peer);
      }
    }
    return n;
  };
  return reached(true) < reached(false);
}

void PerfMgr::decide_isolation(const Subnet& sub, const std::set<Health::Key>& fresh) {
  for (auto& [key, f] : health_.findings()) {
    if (f.isolated || !cfg_.isolate.contains(f.rule) || !f.peer) continue;
    const Cable a{f.at.node, f.at.port}, b{f.peer->node, f.peer->port};
    if (!f.at.is_switch || !f.peer->is_switch) {
      if (fresh.contains(key))
        log_.warn(code::cable_not_isolated, "health: {} on {} not isolated: it is a CA's link (reported only)", f.rule,
                  describe(f.at));
      continue;
    }
    if (would_disconnect(sub, a, b)) {
      if (fresh.contains(key))
        log_.warn(code::cable_not_isolated_only_path,
                  "health: {} on {} not isolated: the fabric has no other path (reported only)", f.rule, describe(f.at));
      continue;
    }
    f.isolated = true;
    isolated_.insert(a);
    isolated_.insert(b);
    ++isolation_epoch_;
    log_.warn(code::cable_isolated, "health: isolating the cable {} <-> {} ({}: {}); routes go around it", describe(f.at),
              describe(*f.peer), f.rule, f.what);
  }
  // Cables whose isolating findings closed come back.
  std::set<Cable> still;
  for (const auto& [key, f] : health_.findings())
    if (f.isolated && f.peer) {
      still.insert({f.at.node, f.at.port});
      still.insert({f.peer->node, f.peer->port});
    }
  if (still != isolated_) {
    for (const Cable& c : isolated_)
      if (!still.contains(c))
        log_.info(code::cable_restored, "health: the cable at {}[{}] is back in the routes", c.first, c.second);
    isolated_ = std::move(still);
    ++isolation_epoch_;
  }
}

size_t PerfMgr::clear(std::optional<Cable> port) {
  const size_t n = health_.clear(port);
  if (sweep_) decide_isolation(*sweep_->subnet, {});
  else if (last_subnet_) decide_isolation(*last_subnet_, {});
  log_.info(code::health_cleared, "health: {} finding(s) cleared by the operator{}", n,
            port ? fmt::format(" at {}[{}]", port->first, port->second) : std::string());
  if (published_) {
    auto s = std::make_shared<Snapshot>(*published_);
    s->findings = health_.open();
    published_ = std::move(s);
  }
  return n;
}

}  // namespace sm::perfmgr
