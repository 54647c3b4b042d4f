// fabric/metrics.h against an independent oracle: a naive walker that follows the LFTs pair by
// pair, hop by hop, and counts what it meets. The two must agree on every figure, on
// hand-built fabrics with shortest-path tables (a line, a ring and a torus whose channel
// dependency graphs have cycles, a two-level tree), with LMC 0 and 1, and with dead links,
// unrouted pairs, loops and short tables.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fabric/metrics.h"
#include "net.h"

namespace {

using fabric::NodeId;
using fabric::Port;
using fabric::Topology;
using mad::PortState;
using Lfts = std::vector<std::vector<uint8_t>>;  // by NodeId
using ftest::chain, ftest::id, ftest::Net, ftest::torus3, ftest::two_level;

bool up(const Topology& t, const Port& p) {
  return p.linked() && p.state >= PortState::init && t.port(p.peer, p.peer_port).state >= PortState::init;
}
bool active(const Topology& t, const Port& p) {
  return p.linked() && p.state == PortState::active && t.port(p.peer, p.peer_port).state == PortState::active;
}

// Switch hops over up (`usable`: Active) switch links from `from` to every switch; -1 = none.
std::vector<int> bfs(const Topology& t, NodeId from, bool usable) {
  std::vector<int> d(t.node_count(), -1);
  std::vector<NodeId> q{from};
  d[from] = 0;
  for (size_t h = 0; h < q.size(); ++h)
    for (const Port& p : t.ports(q[h]))
      if (p.num.value() != 0 && (usable ? active(t, p) : up(t, p)) && t.node(p.peer).is_switch() && d[p.peer] < 0) {
        d[p.peer] = d[q[h]] + 1;
        q.push_back(p.peer);
      }
  return d;
}

// The CA ports on up links, in leaf order: (leaf, its CA port).
std::vector<std::pair<NodeId, const Port*>> cas(const Topology& t) {
  std::vector<std::pair<NodeId, const Port*>> out;
  for (NodeId s : t.switches())
    for (const Port& p : t.ports(s))
      if (p.num.value() != 0 && up(t, p) && !t.node(p.peer).is_switch()) out.emplace_back(s, &t.port(p.peer, p.peer_port));
  return out;
}

// Shortest-path tables: toward LID base+k, the k-th (mod count) port on a shortest path.
Lfts shortest_paths(const Topology& t) {
  Lfts out(t.node_count());
  for (NodeId s : t.switches()) out[s].assign(t.max_lid().value() + 1u, 0xFF);
  for (const auto& [leaf, ca] : cas(t)) {
    const std::vector<int> d = bfs(t, leaf, true);
    for (uint32_t k = 0; k < (1u << ca->lmc); ++k) {
      const size_t lid = ca->lid.value() + k;
      out[leaf][lid] = t.port(ca->peer, ca->peer_port).num.value();
      for (NodeId s : t.switches()) {
        std::vector<uint8_t> ports;
        for (const Port& p : t.ports(s))
          if (p.num.value() != 0 && active(t, p) && t.node(p.peer).is_switch() && d[s] > 0 && d[p.peer] == d[s] - 1)
            ports.push_back(p.num.value());
        if (!ports.empty()) out[s][lid] = ports[k % ports.size()];
      }
    }
  }
  return out;
}

// The oracle: every pair walked on its own, at most 64 switch links as a hop limit.
fabric::MetricsReport oracle(const Topology& t, const Lfts& lft) {
  using Link = std::pair<NodeId, uint8_t>;  // switch, out port
  struct Route {
    bool delivered = false;
    std::vector<Link> links;
  };
  const auto walk = [&](NodeId at, uint16_t lid) {
    Route r;
    while (r.links.size() < 64) {
      const uint8_t p = lid < lft[at].size() ? lft[at][lid] : 0xFF;
      if (p < 1 || p > t.node(at).num_ports || !active(t, t.port(at, mad::PortNum(p)))) return r;
      const Port& out = t.port(at, mad::PortNum(p));
      if (!t.node(out.peer).is_switch()) {
        const Port& ca = t.port(out.peer, out.peer_port);
        r.delivered = ca.lid.value() != 0 && lid >= ca.lid.value() && lid < ca.lid.value() + (1u << ca.lmc);
        return r;
      }
      r.links.emplace_back(at, p);
      at = out.peer;
    }
    return r;
  };
  fabric::MetricsReport m;
  const auto c = cas(t);
  const size_t n = c.size();
  m.ca_ports = n;
  m.pairs = n * (n ? n - 1 : 0);
  std::map<Link, uint64_t> load;
  for (NodeId s : t.switches())
    for (const Port& p : t.ports(s))
      if (p.num.value() != 0 && up(t, p) && t.node(p.peer).is_switch()) load[{s, p.num.value()}] = 0;
  std::set<std::pair<Link, Link>> deps;
  double stretch_sum = 0;
  for (size_t j = 0; j < n; ++j) {
    const std::vector<int> d = bfs(t, c[j].first, false);
    for (size_t i = 0; i < n; ++i) {
      if (i == j) continue;
      const uint16_t base = c[j].second->lid.value();
      for (uint32_t k = 0; k < (1u << c[j].second->lmc); ++k) {
        const Route r = walk(c[i].first, static_cast<uint16_t>(base + k));
        for (size_t h = 1; r.delivered && h < r.links.size(); ++h) deps.emplace(r.links[h - 1], r.links[h]);
        if (k != 0) continue;
        if (!r.delivered) {
          ++m.unrouted;
          continue;
        }
        for (const Link& l : r.links) ++load[l];
        const double ratio = static_cast<double>(r.links.size() + 2) / (d[c[i].first] + 2);
        stretch_sum += ratio;
        m.stretch_max = std::max(m.stretch_max, ratio);
        m.stretched_pairs += ratio > 1 ? 1 : 0;
      }
    }
  }
  const uint64_t routed = m.pairs - m.unrouted;
  m.stretch_mean = routed ? stretch_sum / static_cast<double>(routed) : 0.0;
  m.switch_links = load.size();
  uint64_t total = 0;
  for (const auto& [l, v] : load) {
    m.max_link_load = std::max(m.max_link_load, v);
    total += v;
    m.links.push_back(fabric::LinkLoad{l.first, mad::PortNum(l.second), t.port(l.first, mad::PortNum(l.second)).peer,
                                       t.port(l.first, mad::PortNum(l.second)).peer_port, v});
  }
  m.mean_link_load = load.empty() ? 0.0 : static_cast<double>(total) / static_cast<double>(load.size());
  uint64_t shift_sum = 0;
  for (size_t k = 1; k < n; ++k) {
    std::map<Link, uint64_t> on;
    uint64_t worst = 0;
    for (size_t i = 0; i < n; ++i)  // a route that dies still loads the links it took
      for (const Link& l : walk(c[i].first, c[(i + k) % n].second->lid.value()).links) worst = std::max(worst, ++on[l]);
    shift_sum += worst;
    m.shift_congestion_max = std::max(m.shift_congestion_max, worst);
  }
  m.shifts = n > 1 ? n - 1 : 0;
  m.shift_congestion = m.shifts ? static_cast<double>(shift_sum) / static_cast<double>(m.shifts) : 0.0;
  m.cdg_edges = deps.size();
  std::map<Link, int> color;  // 0 new, 1 on the stack, 2 done
  const auto cyclic = [&](auto&& self, const Link& a) -> bool {
    color[a] = 1;
    for (auto it = deps.lower_bound({a, {0, 0}}); it != deps.end() && it->first == a; ++it)
      if (color[it->second] == 1 || (color[it->second] == 0 && self(self, it->second))) return true;
    color[a] = 2;
    return false;
  };
  for (const auto& [a, b] : deps)
    if (color[a] == 0 && cyclic(cyclic, a)) m.cdg_acyclic = false;
  return m;
}

// The fabric metrics and the oracle agree on every figure (the ratios to rounding).
fabric::MetricsReport agree(const Topology& t, const Lfts& lft) {
  std::vector<std::span<const uint8_t>> spans(lft.begin(), lft.end());
  const fabric::MetricsReport m = fabric::measure_routing(t, spans, {.keep_link_loads = true});
  const fabric::MetricsReport o = oracle(t, lft);
  CHECK(m.ca_ports == o.ca_ports);
  CHECK(m.pairs == o.pairs);
  CHECK(m.unrouted == o.unrouted);
  CHECK(m.switch_links == o.switch_links);
  CHECK(m.max_link_load == o.max_link_load);
  CHECK(m.mean_link_load == o.mean_link_load);
  CHECK(m.stretch_mean == doctest::Approx(o.stretch_mean).epsilon(1e-12));
  CHECK(m.stretch_max == o.stretch_max);
  CHECK(m.stretched_pairs == o.stretched_pairs);
  CHECK(m.shifts == o.shifts);
  CHECK_FALSE(m.shifts_sampled);
  CHECK(m.shift_congestion == doctest::Approx(o.shift_congestion).epsilon(1e-12));
  CHECK(m.shift_congestion_max == o.shift_congestion_max);
  CHECK(m.cdg_acyclic == o.cdg_acyclic);
  CHECK(m.cdg_edges == o.cdg_edges);
  // Link by link, in the same order (switches in NodeId order, then ports).
  REQUIRE(m.links.size() == o.links.size());
  for (size_t l = 0; l < m.links.size(); ++l) {
    CHECK(m.links[l].from == o.links[l].from);
    CHECK(m.links[l].from_port == o.links[l].from_port);
    CHECK(m.links[l].to == o.links[l].to);
    CHECK(m.links[l].routes == o.links[l].routes);
  }
  return m;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("metrics agree with the pair-by-pair oracle: a line, a ring, a tree, a torus") {
  for (uint8_t lmc : {uint8_t{0}, uint8_t{1}}) {
    CAPTURE(int{lmc});
    {
      INFO("a line of 3: acyclic, no stretch");
      const Topology t = chain(3, 2, false).build(lmc);
      const auto m = agree(t, shortest_paths(t));
      CHECK(m.ca_ports == 6);
      CHECK(m.unrouted == 0);
      CHECK(m.cdg_acyclic);
      CHECK(m.stretch_max == 1.0);
      CHECK(m.max_link_load == 8);  // S0 -> S1: S0's 2 CAs to the 4 beyond
    }
    {
      INFO("a ring of 5 under shortest paths: a dependency cycle");
      const Topology t = chain(5, 1, true).build(lmc);
      Lfts lft = shortest_paths(t);
      const auto m = agree(t, lft);
      CHECK(m.unrouted == 0);
      CHECK_FALSE(m.cdg_acyclic);
      CHECK(m.stretched_pairs == 0);
      // S0 sends H2_0 west, the long way round (port 2 east, 3 west): 3 switch links, not 2.
      lft[id(t, "S0")][t.port(id(t, "H2_0"), mad::PortNum(1)).lid.value()] = 3;
      const auto detour = agree(t, lft);
      CHECK(detour.stretched_pairs == 1);
      CHECK(detour.stretch_max == doctest::Approx(5.0 / 4.0));
    }
    {
      INFO("two levels, 3 leaves and 2 spines");
      const Topology t = two_level(3, 2, 2).build(lmc);
      const auto m = agree(t, shortest_paths(t));
      CHECK(m.cdg_acyclic);
      CHECK(m.switch_links == 12);
    }
    {
      INFO("a 3x3 torus");
      const Topology t = torus3().build(lmc);
      const auto m = agree(t, shortest_paths(t));
      CHECK(m.ca_ports == 18);
      CHECK(m.unrouted == 0);
    }
  }
}

TEST_CASE("metrics agree with the oracle where routes die: dead links, no route, a loop, short tables") {
  for (uint8_t lmc : {uint8_t{0}, uint8_t{1}}) {
    CAPTURE(int{lmc});
    // Tables made for the healthy tree, then measured on one where things went wrong.
    const Net net = two_level(3, 2, 2);
    const Topology healthy = net.build(lmc);
    Lfts lft = shortest_paths(healthy);
    Net hurt = net;
    hurt.state("L0", 3, PortState::init)    // L0 - P0 up but not Active: no traffic, still cabled
        .state("P1", 2, PortState::down)    // L1 - P1 gone
        .state("H2_1", 1, PortState::down); // a CA gone: neither source nor destination
    const Topology t = hurt.build(lmc);
    REQUIRE(t.node_count() == healthy.node_count());
    const NodeId l2 = id(t, "L2"), p0 = id(t, "P0"), p1 = id(t, "P1");
    const auto lid = [&](const std::string& ca) { return t.port(id(t, ca), mad::PortNum(1)).lid.value(); };
    lft[l2][lid("H0_0")] = 0xFF;                                   // unrouted pairs
    lft[id(t, "L0")][lid("H0_1")] = 0xFF;                          // even from its own leaf
    lft[p0][lid("H1_0")] = lft[p1][lid("H1_0")] = 3;               // spines bounce it to L2...
    lft[l2][lid("H1_0")] = 3;                                      // ...which sends it to P0: a loop
    lft[id(t, "L1")].resize(lid("H2_0"));                          // L1's table ends short
    const auto m = agree(t, lft);
    CHECK(m.ca_ports == 5);
    CHECK(m.unrouted > 0);
    CHECK(m.switch_links == 10);  // the Init cable counts; the Down one does not
  }
}

TEST_CASE("metrics: a CA without a LID is unrouted toward, and no switches means no links") {
  Net net = chain(2, 2, false);
  Topology t = net.build(0);
  const Topology::LidSet none{id(t, "H1_1"), mad::PortNum(1), mad::Lid(0), 0};
  t = t.with_lids({&none, 1});
  const auto m = agree(t, shortest_paths(t));
  CHECK(m.unrouted == 3);  // every other CA's route to it
  Net lone;
  lone.ca("A").ca("B").link("A", 1, "B", 1);
  const Topology direct = lone.build(0);
  const auto d = agree(direct, Lfts(direct.node_count()));
  CHECK(d.ca_ports == 0);
  CHECK(d.switch_links == 0);
}

}  // TEST_SUITE
