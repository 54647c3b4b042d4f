#include "routing/retune.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "fabric/data_rate.h"

namespace routing {

namespace {

using fabric::NodeId;
using Channel = std::pair<NodeId, uint8_t>;
constexpr double kMargin = 0.02;  // of a link's capacity

// A switch port with a switch behind it, and its data rate (0: not one).
double capacity(const fabric::Topology& topo, NodeId sw, uint8_t port) {
  if (port == 0 || port > topo.node(sw).num_ports) return 0;
  const fabric::Port& p = topo.port(sw, mad::PortNum(port));
  if (!p.linked() || !topo.node(p.peer).is_switch()) return 0;
  return fabric::data_bytes_per_s(p);
}

// The switch-to-switch channels a destination's packets take from switch `sw` leaving by
// `port`: that one, then the next switches' own routes (up to a loop guard).
void path_from(const fabric::Topology& topo, const RoutingTables& t, NodeId sw, uint8_t port, mad::Lid lid,
               std::vector<Channel>& out) {
  out.clear();
  for (int hop = 0; hop < 64; ++hop) {
    if (capacity(topo, sw, port) <= 0) return;  // a CA's link (every path to it ends so), or none
    out.emplace_back(sw, port);
    sw = topo.port(sw, mad::PortNum(port)).peer;
    if (!t.has_table(sw)) return;
    port = t.port(sw, lid);
    if (port == kNoRoute) return;
  }
}

}  // namespace

Retuned retune_routes(const fabric::Topology& topo, const RoutingTables& current, const TrafficLoad& load) {
  Retuned out{current, {}, 0, {}};
  RoutingTables& t = out.tables;
  std::map<Channel, double> busy;
  for (const ChannelRate& c : load.channels)
    if (auto id = topo.find(c.sw)) busy[{*id, c.port}] = c.bytes_per_s;
  // What each destination LID receives (a port's LMC range shares it).
  std::vector<double> demand(static_cast<size_t>(t.max_lid().value()) + 1, 0.0);
  for (const DestinationRate& d : load.destinations) {
    const auto id = topo.find(d.node);
    if (!id || d.port == 0 || d.port > topo.node(*id).num_ports) continue;
    const fabric::Port& p = topo.port(*id, mad::PortNum(d.port));
    const uint32_t n = 1u << p.lmc;
    for (uint32_t k = 0; k < n; ++k)
      if (p.lid.value() + k < demand.size()) demand[p.lid.value() + k] = d.bytes_per_s / n;
  }
  std::vector<bool> moved_lid(demand.size(), false);
  for (const ChannelRate& h : load.hot) {
    const auto sw = topo.find(h.sw);
    const double cap = sw ? capacity(topo, *sw, h.port) : 0;
    if (!sw || cap <= 0 || !t.has_table(*sw)) {
      out.notes.push_back(fmt::format("{} port {}: not a switch-to-switch channel now", h.sw, h.port));
      continue;
    }
    double& here = busy[{*sw, h.port}];
    here = std::max(here, h.bytes_per_s);
    // The destinations it carries that have somewhere else to go, heaviest first.
    std::vector<std::pair<double, uint16_t>> cands;
    for (uint32_t lid = 1; lid < demand.size(); ++lid) {
      if (demand[lid] <= 0 || t.port(*sw, mad::Lid(static_cast<uint16_t>(lid))) != h.port) continue;
      const auto alts = t.alternatives(*sw, mad::Lid(static_cast<uint16_t>(lid)));
      if (std::any_of(alts.begin(), alts.end(), [&](uint8_t q) { return q != h.port; }))
        cands.emplace_back(demand[lid], static_cast<uint16_t>(lid));
    }
    std::sort(cands.begin(), cands.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    size_t moves = 0;
    std::vector<Channel> was, path;
    for (const auto& [dem, lid16] : cands) {
      const mad::Lid lid(lid16);
      const double share = std::min(dem, here);  // at most what the channel carries
      // The way it goes now: what it would leave free along it.
      path_from(topo, t, *sw, h.port, lid, was);
      uint8_t best = 0;
      double best_level = 0;
      for (uint8_t q : t.alternatives(*sw, lid)) {
        if (q == h.port) continue;
        path_from(topo, t, *sw, q, lid, path);
        if (path.empty()) continue;
        // The busiest channel of the other way once this destination's traffic is on it.
        double level = 0;
        for (const Channel& c : path) {
          const bool shared = std::find(was.begin(), was.end(), c) != was.end();
          level = std::max(level, (busy[c] + (shared ? 0 : share)) / capacity(topo, c.first, c.second));
        }
        if (best == 0 || level < best_level) {
          best = q;
          best_level = level;
        }
      }
      // Only while the other way ends less busy than this channel is, by a margin (no move
      // for noise): the busiest of the two goes down.
      if (best == 0 || best_level >= here / cap - kMargin) continue;
      path_from(topo, t, *sw, best, lid, path);
      for (const Channel& c : was) busy[c] -= share;
      for (const Channel& c : path) busy[c] += share;
      t.set(*sw, lid, best);
      out.moved.push_back(Pin{h.sw, lid, best});
      moved_lid[lid16] = true;
      ++moves;
    }
    if (moves == 0)
      out.notes.push_back(fmt::format("{} port {}: no destination it carries can take another equally good port",
                                      topo.node(*sw).description, h.port));
  }
  out.destinations = static_cast<size_t>(std::count(moved_lid.begin(), moved_lid.end(), true));
  return out;
}

size_t apply_pins(const fabric::Topology& topo, RoutingTables& tables, const std::vector<Pin>& pins) {
  size_t n = 0;
  for (const Pin& p : pins) {
    const auto sw = topo.find(p.sw);
    if (!sw || !tables.has_table(*sw) || p.lid.value() > tables.max_lid().value()) continue;
    const auto alts = tables.alternatives(*sw, p.lid);
    if (std::find(alts.begin(), alts.end(), p.port) == alts.end()) continue;
    tables.set(*sw, p.lid, p.port);
    ++n;
  }
  return n;
}

}  // namespace routing
