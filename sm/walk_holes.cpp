#include "sm/walk_holes.h"

#include <fmt/format.h>

#include <unordered_set>

namespace sm {

std::string Hole::str() const {
  switch (kind) {
    case Kind::node_info: return fmt::format("the probe through {}[{}]", node, port);
    case Kind::port_info: return fmt::format("PortInfo of {}[{}]", node, port);
    case Kind::switch_info: return fmt::format("SwitchInfo of {}", node);
    case Kind::description: return fmt::format("NodeDescription of {}", node);
    case Kind::at_route: return fmt::format("NodeInfo of {} at its route", node);
  }
  return "?";
}

Kept keep_unanswered(FabricModel& walked, const FabricModel& before, const std::vector<Hole>& holes,
                     const HoleSet& left_out) {
  Kept k;
  std::unordered_set<Guid> taken;
  auto take = [&](Guid g) {
    if (!g.is_zero() && !walked.find(g) && before.find(g) && taken.insert(g).second) k.nodes.push_back(g);
  };
  for (const Hole& h : holes) {
    if (left_out.contains(h)) continue;
    const NodeRec* old = before.find(h.node);
    const NodeRec* now = walked.find(h.node);
    bool known = false;
    if (old && now && h.port < old->ports.size() && h.port < now->ports.size()) {
      const PortRec& was = old->ports[h.port];
      switch (h.kind) {
        case Hole::Kind::node_info:
          known = was.linked();
          take(was.peer);
          break;
        case Hole::Kind::port_info:
          known = was.have_info;
          if (known && !now->ports[h.port].have_info) {
            PortRec& p = walked.edit(h.node)->ports[h.port];
            p.have_info = true;
            p.info = was.info;
            p.ignored = was.ignored;
            ++k.attributes;
          }
          take(was.peer);
          break;
        case Hole::Kind::switch_info:
          known = old->is_switch();
          if (known) walked.edit(h.node)->sw = old->sw, ++k.attributes;
          break;
        case Hole::Kind::description:
          known = !old->description.empty();
          if (known) walked.edit(h.node)->description = old->description, ++k.attributes;
          break;
        case Hole::Kind::at_route:  // partial walks only
          break;
      }
    }
    if (!known) ++k.unknown;
  }
  // Behind a node taken over is what was reached only through it (switches forward, CAs do not).
  for (size_t i = 0; i < k.nodes.size(); ++i) {
    const NodeRec* old = before.find(k.nodes[i]);
    if (!old->is_switch()) continue;
    for (size_t p = 1; p < old->ports.size(); ++p) take(old->ports[p].peer);
  }
  // Taken nodes keep their cables among themselves; a cable to a reached node is made again
  // where the walk could not see that port (its probe or PortInfo is a hole), else dropped at
  // this end (the walk saw the port down, or cabled elsewhere).
  std::set<std::pair<Guid, uint8_t>> unseen;
  for (const Hole& h : holes)
    if ((h.kind == Hole::Kind::node_info || h.kind == Hole::Kind::port_info) && !left_out.contains(h))
      unseen.emplace(h.node, h.port);
  std::vector<std::pair<std::pair<Guid, uint8_t>, std::pair<Guid, uint8_t>>> relink;
  for (Guid g : k.nodes) {
    NodeRec rec = *before.find(g);
    for (size_t p = 0; p < rec.ports.size(); ++p) {
      PortRec& pr = rec.ports[p];
      if (!pr.linked() || taken.contains(pr.peer)) continue;
      if (unseen.contains({pr.peer, pr.peer_port})) relink.push_back({{g, static_cast<uint8_t>(p)}, {pr.peer, pr.peer_port}});
      pr.peer = Guid();
      pr.peer_port = 0;
    }
    walked.adopt(g, std::move(rec));
  }
  for (const auto& [a, b] : relink) (void)walked.link(a.first, a.second, b.first, b.second);
  // A cable between two reached nodes that neither end could see (a probe or PortInfo lost at
  // both) is kept too.
  for (const Hole& h : holes) {
    if ((h.kind != Hole::Kind::port_info && h.kind != Hole::Kind::node_info) || left_out.contains(h)) continue;
    const NodeRec* old = before.find(h.node);
    if (!old || h.port >= old->ports.size() || !old->ports[h.port].linked()) continue;
    const PortRec& was = old->ports[h.port];
    if (!taken.contains(was.peer) && unseen.contains({was.peer, was.peer_port}))
      (void)walked.link(h.node, h.port, was.peer, was.peer_port);
  }
  return k;
}

}  // namespace sm
