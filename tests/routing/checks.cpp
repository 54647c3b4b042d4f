#include "checks.h"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "fabric/metrics.h"

namespace rtest {

namespace {

bool live(const fabric::Port& p) { return p.state >= mad::PortState::init; }

// Owner of a LID among live ports: (node, port) or kNoNode.
std::pair<fabric::NodeId, uint8_t> owner(const fabric::Topology& topo, mad::Lid l) {
  for (fabric::NodeId id = 0; id < topo.node_count(); ++id)
    for (const fabric::Port& p : topo.ports(id)) {
      if (!p.lid.is_unicast()) continue;
      if (l.value() >= p.lid.value() && l.value() < p.lid.value() + (1u << p.lmc))
        return {id, p.num.value()};
    }
  return {fabric::kNoNode, 0};
}

struct LidIndex {
  std::unordered_map<uint16_t, std::pair<fabric::NodeId, uint8_t>> owner;
  explicit LidIndex(const fabric::Topology& topo) {
    for (fabric::NodeId id = 0; id < topo.node_count(); ++id)
      for (const fabric::Port& p : topo.ports(id))
        if (p.lid.is_unicast())
          for (uint32_t k = 0; k < (1u << p.lmc); ++k)
            owner[static_cast<uint16_t>(p.lid.value() + k)] = {id, p.num.value()};
  }
};

Walk walk_to(const fabric::Topology& topo, const routing::RoutingTables& t, fabric::NodeId from,
             mad::Lid dst, std::pair<fabric::NodeId, uint8_t> want) {
  Walk w;
  fabric::NodeId at = from;
  for (int hop = 0; hop < 64; ++hop) {
    const uint8_t p = t.port(at, dst);
    if (p == routing::kNoRoute) {
      w.error = fmt::format("no route at '{}' for LID {}", topo.node(at).description, dst);
      return w;
    }
    if (p == 0) {
      w.delivered = want.first == at && want.second == 0;
      if (!w.delivered)
        w.error = fmt::format("LID {} delivered to switch '{}' port 0, not its owner", dst,
                              topo.node(at).description);
      return w;
    }
    if (p > topo.node(at).num_ports) {
      w.error = fmt::format("port {} out of range at '{}'", p, topo.node(at).description);
      return w;
    }
    const fabric::Port& out = topo.port(at, mad::PortNum(p));
    if (!out.linked() || !live(out) || !live(topo.port(out.peer, out.peer_port))) {
      w.error = fmt::format("'{}' port {} is not a live link (LID {})", topo.node(at).description,
                            p, dst);
      return w;
    }
    if (!topo.node(out.peer).is_switch()) {
      w.delivered = want.first == out.peer && want.second == out.peer_port.value();
      if (!w.delivered)
        w.error = fmt::format("LID {} delivered to '{}', not its owner", dst,
                              topo.node(out.peer).description);
      return w;
    }
    w.channels.emplace_back(at, p);
    at = out.peer;
  }
  w.error = fmt::format("loop toward LID {} from '{}'", dst, topo.node(from).description);
  return w;
}

}  // namespace

std::vector<Terminal> terminals(const fabric::Topology& topo) {
  std::vector<Terminal> out;
  for (fabric::NodeId sw : topo.switches())
    for (const fabric::Port& p : topo.ports(sw)) {
      if (p.num.value() == 0 || !p.linked() || topo.node(p.peer).is_switch()) continue;
      const fabric::Port& ca = topo.port(p.peer, p.peer_port);
      if (!live(p) || !live(ca) || !ca.lid.is_unicast()) continue;
      out.push_back(Terminal{p.peer, p.peer_port, sw, p.num, ca.lid, ca.lmc});
    }
  return out;
}

Walk walk(const fabric::Topology& topo, const routing::RoutingTables& t, fabric::NodeId from,
          mad::Lid dst) {
  return walk_to(topo, t, from, dst, owner(topo, dst));
}

std::vector<std::string> undelivered(const fabric::Topology& topo, const routing::RoutingTables& t,
                                     bool all_switches, size_t max) {
  std::vector<std::string> out;
  const LidIndex idx(topo);
  const auto terms = terminals(topo);
  std::unordered_set<fabric::NodeId> with_cas;
  for (const Terminal& x : terms) with_cas.insert(x.sw);
  // Destinations: live CA ports and every switch's port 0.
  std::vector<std::pair<mad::Lid, std::pair<fabric::NodeId, uint8_t>>> dsts;
  for (const Terminal& x : terms)
    for (uint32_t k = 0; k < (1u << x.lmc); ++k)
      dsts.push_back(
          {mad::Lid(static_cast<uint16_t>(x.lid.value() + k)), {x.node, x.port.value()}});
  for (fabric::NodeId sw : topo.switches()) {
    const fabric::Port& p0 = topo.port(sw, mad::PortNum(0));
    if (p0.lid.is_unicast()) dsts.push_back({p0.lid, {sw, 0}});
  }
  for (fabric::NodeId sw : topo.switches()) {
    if (!all_switches && !with_cas.contains(sw)) continue;
    for (const auto& [l, who] : dsts) {
      const Walk w = walk_to(topo, t, sw, l, who);
      if (!w.delivered && out.size() < max)
        out.push_back(fmt::format("from '{}': {}", topo.node(sw).description, w.error));
    }
  }
  return out;
}

namespace {

// The metrics of fabric/metrics.h over `t`: every shift, or none.
fabric::MetricsReport measure(const fabric::Topology& topo, const routing::RoutingTables& t,
                              bool shifts, bool link_loads = false) {
  std::vector<std::span<const uint8_t>> lfts(topo.node_count());
  for (fabric::NodeId sw : topo.switches()) lfts[sw] = t.lft(sw);
  fabric::MetricsOptions o;
  o.all_shifts_up_to = shifts ? SIZE_MAX : 0;
  o.sampled_shifts = 0;
  o.keep_link_loads = link_loads;
  return fabric::measure_routing(topo, lfts, o);
}

}  // namespace

bool cdg_acyclic(const fabric::Topology& topo, const routing::RoutingTables& t) {
  return measure(topo, t, false).cdg_acyclic;
}

bool sl_cdg_acyclic(const fabric::Topology& topo, const routing::RoutingTables& t, unsigned* sls_used) {
  // Channels (switch, out port) as dense ids; per SL an adjacency set of dependencies.
  std::map<std::pair<fabric::NodeId, uint8_t>, uint32_t> id;
  std::vector<std::map<uint32_t, std::set<uint32_t>>> deps;
  const auto channel = [&](std::pair<fabric::NodeId, uint8_t> c) {
    return id.emplace(c, static_cast<uint32_t>(id.size())).first->second;
  };
  std::set<fabric::NodeId> ingress;
  for (const Terminal& x : terminals(topo)) ingress.insert(x.sw);
  std::vector<mad::Lid> lids;
  for (fabric::NodeId n = 0; n < topo.node_count(); ++n)
    for (const fabric::Port& p : topo.ports(n)) {
      if (!p.lid.is_unicast() || !live(p) || (topo.node(n).is_switch() && p.num.value() != 0)) continue;
      for (uint32_t k = 0; k < (1u << p.lmc); ++k) lids.push_back(mad::Lid(static_cast<uint16_t>(p.lid.value() + k)));
    }
  unsigned used = 0;
  const LidIndex idx(topo);
  for (fabric::NodeId sw : ingress)
    for (mad::Lid l : lids) {
      const Walk w = walk_to(topo, t, sw, l, idx.owner.at(l.value()));
      if (!w.delivered) continue;
      const uint8_t sl = t.sl(sw, l);
      used = std::max(used, sl + 1u);
      if (deps.size() <= sl) deps.resize(sl + 1u);
      for (size_t k = 0; k + 1 < w.channels.size(); ++k)
        deps[sl][channel(w.channels[k])].insert(channel(w.channels[k + 1]));
    }
  if (sls_used) *sls_used = std::max(used, 1u);
  // Three-colour depth-first search per SL.
  for (const auto& g : deps) {
    std::vector<uint8_t> colour(id.size(), 0);
    for (const auto& [root, out] : g) {
      if (colour[root]) continue;
      std::vector<std::pair<uint32_t, std::set<uint32_t>::const_iterator>> stack;
      colour[root] = 1;
      stack.emplace_back(root, out.begin());
      while (!stack.empty()) {
        auto& [c, it] = stack.back();
        const auto found = g.find(c);
        if (found == g.end() || it == found->second.end()) {
          colour[c] = 2;
          stack.pop_back();
          continue;
        }
        const uint32_t d = *it++;
        if (colour[d] == 1) return false;
        if (colour[d] == 0) {
          colour[d] = 1;
          const auto next = g.find(d);
          stack.emplace_back(d, next == g.end() ? std::set<uint32_t>::const_iterator{} : next->second.begin());
        }
      }
    }
  }
  return true;
}

bool deadlock_free(const fabric::Topology& topo, const routing::RoutingTables& t) {
  return t.has_sls() ? sl_cdg_acyclic(topo, t) : cdg_acyclic(topo, t);
}

Loads loads(const fabric::Topology& topo, const routing::RoutingTables& t, bool shifts) {
  const fabric::MetricsReport m = measure(topo, t, shifts);
  Loads out;
  out.max_all_to_all = m.max_link_load;
  out.unrouted_pairs = m.unrouted;
  out.mean_shift_max = m.shift_congestion;
  out.max_shift_max = static_cast<double>(m.shift_congestion_max);
  return out;
}

AllToAll all_to_all(const fabric::Topology& topo, const routing::RoutingTables& t) {
  const fabric::MetricsReport m = measure(topo, t, false);
  return AllToAll{m.max_link_load, m.unrouted, m.cdg_acyclic};
}

uint64_t channel_load(const fabric::Topology& topo, const routing::RoutingTables& t, fabric::NodeId sw,
                      uint8_t port) {
  for (const fabric::LinkLoad& l : measure(topo, t, false, true).links)
    if (l.from == sw && l.from_port.value() == port) return l.routes;
  return 0;
}

}  // namespace rtest
