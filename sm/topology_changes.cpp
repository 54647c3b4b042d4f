#include "sm/topology_changes.h"

#include <fmt/format.h>

#include <tuple>

#include "mad/port_info.h"

namespace sm {

namespace {

using fabric::NodeId;
using fabric::Topology;

// A cable, seen from its lower end ((GUID, port) order); so listed, a topology's cables come out
// sorted, nodes being in GUID order.
struct Cable {
  NodeId a, b;
  uint8_t a_port, b_port;
  uint8_t width, speed, speed_ext;  // PortInfo's active encodings, named only when logged

  std::string rate() const { return mad::link_rate_name(width, speed, speed_ext); }
  bool same_rate(const Cable& o) const { return width == o.width && speed == o.speed && speed_ext == o.speed_ext; }
};

std::vector<Cable> cables(const Topology& t) {
  std::vector<Cable> out;
  for (NodeId id = 0; id < t.node_count(); ++id) {
    const mad::Guid g = t.node(id).guid;
    for (const fabric::Port& p : t.ports(id)) {
      if (!p.linked()) continue;
      const mad::Guid pg = t.node(p.peer).guid;
      if (pg < g || (pg == g && p.peer_port.value() < p.num.value())) continue;
      out.push_back(Cable{id, p.peer, p.num.value(), p.peer_port.value(), p.width_active, p.speed_active,
                          p.speed_ext_active});
    }
  }
  return out;
}

std::string end(const Topology& t, NodeId id, uint8_t port) {
  const fabric::Node& n = t.node(id);
  return fmt::format("{}[{}] ({})", n.guid, port, n.description);
}

std::string cable(const Topology& t, const Cable& c) {
  return end(t, c.a, c.a_port) + " - " + end(t, c.b, c.b_port);
}

// -1, 0, 1 as a's key orders before, with or after b's.
int compare(const Topology& ta, const Cable& a, const Topology& tb, const Cable& b) {
  const auto ka = std::make_tuple(ta.node(a.a).guid, a.a_port, ta.node(a.b).guid, a.b_port);
  const auto kb = std::make_tuple(tb.node(b.a).guid, b.a_port, tb.node(b.b).guid, b.b_port);
  return ka < kb ? -1 : kb < ka ? 1 : 0;
}

}  // namespace

std::vector<TopologyChange> topology_changes(const Topology& before, const Topology& after) {
  using K = TopologyChange::Kind;
  std::vector<TopologyChange> out;
  auto node_text = [](const fabric::Node& n) {
    return fmt::format("{} {} ({}, {} ports)", n.is_switch() ? "switch" : "CA", n.guid, n.description, n.num_ports);
  };
  for (NodeId i = 0, j = 0; i < before.node_count() || j < after.node_count();) {
    if (j == after.node_count() || (i < before.node_count() && before.node(i).guid < after.node(j).guid)) {
      out.push_back({K::node_gone, node_text(before.node(i++))});
    } else if (i == before.node_count() || after.node(j).guid < before.node(i).guid) {
      out.push_back({K::node_new, node_text(after.node(j++))});
    } else {
      ++i, ++j;
    }
  }
  const std::vector<Cable> was = cables(before), is = cables(after);
  for (size_t i = 0, j = 0; i < was.size() || j < is.size();) {
    const int c = i == was.size() ? 1 : j == is.size() ? -1 : compare(before, was[i], after, is[j]);
    if (c < 0) {
      out.push_back({K::link_down, fmt::format("{} (was {})", cable(before, was[i]), was[i].rate())});
      ++i;
    } else if (c > 0) {
      out.push_back({K::link_up, fmt::format("{} at {}", cable(after, is[j]), is[j].rate())});
      ++j;
    } else {
      if (!was[i].same_rate(is[j]))
        out.push_back({K::link_rate, fmt::format("{} now at {} (was {})", cable(after, is[j]), is[j].rate(),
                                                 was[i].rate())});
      ++i, ++j;
    }
  }
  return out;
}

}  // namespace sm
