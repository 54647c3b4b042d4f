#include "checks.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

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

bool cdg_acyclic(const fabric::Topology& topo, const routing::RoutingTables& t) {
  const auto terms = terminals(topo);
  std::unordered_set<fabric::NodeId> with_cas;
  for (const Terminal& x : terms) with_cas.insert(x.sw);
  std::map<std::pair<fabric::NodeId, uint8_t>, size_t> chan;
  std::set<std::pair<size_t, size_t>> deps;
  const auto id = [&](std::pair<fabric::NodeId, uint8_t> c) {
    return chan.emplace(c, chan.size()).first->second;
  };
  for (fabric::NodeId sw : with_cas)
    for (const Terminal& d : terms)
      for (uint32_t k = 0; k < (1u << d.lmc); ++k) {
        const Walk w = walk_to(topo, t, sw, mad::Lid(static_cast<uint16_t>(d.lid.value() + k)),
                               {d.node, d.port.value()});
        for (size_t i = 1; i < w.channels.size(); ++i)
          deps.emplace(id(w.channels[i - 1]), id(w.channels[i]));
      }
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  G g(chan.size());
  for (auto [a, b] : deps) boost::add_edge(a, b, g);
  struct CycleFinder : boost::default_dfs_visitor {
    bool* found;
    void back_edge(G::edge_descriptor, const G&) const { *found = true; }
  };
  bool found = false;
  boost::depth_first_search(g, boost::visitor(CycleFinder{{}, &found}));
  return !found;
}

Loads loads(const fabric::Topology& topo, const routing::RoutingTables& t, bool shifts) {
  Loads out;
  const auto terms = terminals(topo);
  const size_t n = terms.size();
  // The route i -> j as channel ids, flat: ids[begin[i*n+j] .. begin[i*n+j+1]).
  std::map<std::pair<fabric::NodeId, uint8_t>, uint32_t> chan;
  std::vector<uint32_t> begin(n * n + 1, 0), ids;
  std::vector<uint64_t> all;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      begin[i * n + j] = static_cast<uint32_t>(ids.size());
      if (i == j) continue;
      const Walk w =
          walk_to(topo, t, terms[i].sw, terms[j].lid, {terms[j].node, terms[j].port.value()});
      if (!w.delivered) {
        ++out.unrouted_pairs;
        continue;
      }
      for (auto c : w.channels) {
        const uint32_t cid = chan.emplace(c, static_cast<uint32_t>(chan.size())).first->second;
        if (cid >= all.size()) all.resize(cid + 1, 0);
        ++all[cid];
        ids.push_back(cid);
      }
    }
  begin[n * n] = static_cast<uint32_t>(ids.size());
  out.max_all_to_all = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
  if (!shifts || n < 2) return out;
  std::vector<uint32_t> load(all.size());
  double sum = 0;
  for (size_t s = 1; s < n; ++s) {
    std::fill(load.begin(), load.end(), 0);
    uint32_t mx = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t k = i * n + (i + s) % n;
      for (uint32_t q = begin[k]; q < begin[k + 1]; ++q) mx = std::max(mx, ++load[ids[q]]);
    }
    sum += mx;
    out.max_shift_max = std::max<double>(out.max_shift_max, mx);
  }
  out.mean_shift_max = sum / static_cast<double>(n - 1);
  return out;
}

uint64_t channel_load(const fabric::Topology& topo, const routing::RoutingTables& t, fabric::NodeId sw,
                      uint8_t port) {
  const auto terms = terminals(topo);
  uint64_t n = 0;
  for (const Terminal& a : terms)
    for (const Terminal& b : terms) {
      if (a.node == b.node && a.port == b.port) continue;
      const Walk w = walk_to(topo, t, a.sw, b.lid, {b.node, b.port.value()});
      for (auto c : w.channels) n += (c.first == sw && c.second == port) ? 1 : 0;
    }
  return n;
}

AllToAll all_to_all(const fabric::Topology& topo, const routing::RoutingTables& t) {
  AllToAll out;
  const auto terms = terminals(topo);
  std::map<fabric::NodeId, uint64_t> cas_at;  // switch -> CA ports on it
  for (const Terminal& x : terms) ++cas_at[x.sw];
  std::vector<uint32_t> id(topo.node_count() * 256, UINT32_MAX);  // (node, port) -> channel
  std::vector<uint64_t> load;
  std::set<std::pair<uint32_t, uint32_t>> deps;
  const auto channel = [&](std::pair<fabric::NodeId, uint8_t> c) {
    uint32_t& i = id[c.first * 256 + c.second];
    if (i == UINT32_MAX) {
      i = static_cast<uint32_t>(load.size());
      load.push_back(0);
    }
    return i;
  };
  for (const Terminal& d : terms)
    for (uint32_t k = 0; k < (1u << d.lmc); ++k)
      for (const auto& [sw, cas] : cas_at) {
        const uint64_t pairs = cas - (sw == d.sw ? 1 : 0);
        const Walk w = walk_to(topo, t, sw, mad::Lid(static_cast<uint16_t>(d.lid.value() + k)),
                               {d.node, d.port.value()});
        if (!w.delivered) {
          out.unrouted_pairs += k == 0 ? pairs : 0;
          continue;
        }
        uint32_t prev = UINT32_MAX;
        for (auto c : w.channels) {
          const uint32_t i = channel(c);
          if (k == 0) load[i] += pairs;
          if (prev != UINT32_MAX) deps.emplace(prev, i);
          prev = i;
        }
      }
  if (!load.empty()) out.max_load = *std::max_element(load.begin(), load.end());
  // Acyclic iff Kahn's algorithm removes every channel.
  std::vector<std::vector<uint32_t>> next(load.size());
  std::vector<uint32_t> in(load.size(), 0);
  for (auto [a, b] : deps) {
    next[a].push_back(b);
    ++in[b];
  }
  std::deque<uint32_t> ready;
  for (uint32_t i = 0; i < in.size(); ++i)
    if (in[i] == 0) ready.push_back(i);
  size_t removed = 0;
  for (; !ready.empty(); ready.pop_front(), ++removed)
    for (uint32_t b : next[ready.front()])
      if (--in[b] == 0) ready.push_back(b);
  out.cdg_acyclic = removed == load.size();
  return out;
}

}  // namespace rtest
