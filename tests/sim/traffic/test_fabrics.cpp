// Traffic over fabrics routed by the engines themselves (called directly on generated trees;
// no SM run): the figures that are known (a crossbar, a complete tree under shifts) and the
// ones that must move the right way (a degraded tree, adaptive switches).
#include <doctest/doctest.h>

#include <memory>

#include "routing/engine.h"
#include "sim/generators.h"
#include "sim/spec_topology.h"
#include "sim/traffic/ebb.h"
#include "sim/traffic/traffic.h"
#include "tests/sim/fabric/helpers.h"

using namespace sim::traffic;

namespace {

// A spec routed by an engine, as the traffic model reads it.
struct Routed {
  fabric::Topology topo;
  routing::RoutingTables tables;
  std::vector<std::span<const uint8_t>> lfts;
  std::vector<fabric::ArTable> ar;
  std::vector<const fabric::ArTable*> ar_of;

  Routed(sim::FabricSpec spec, const char* engine, const char* groups_from = nullptr) {
    topo = *sim::topology_of(std::move(spec));
    tables = *(*routing::make_engine(engine))->compute(topo, {});
    lfts.resize(topo.node_count());
    for (fabric::NodeId id : topo.switches()) lfts[id] = tables.lft(id);
    if (groups_from) {  // adaptive switches fed by another engine's groups
      const routing::RoutingTables g = *(*routing::make_engine(groups_from))->compute(topo, {});
      ar.resize(topo.node_count());
      ar_of.assign(topo.node_count(), nullptr);
      for (fabric::NodeId id : topo.switches()) {
        ar[id] = g.ar_table(id);
        ar_of[id] = &ar[id];
      }
    }
  }
  Net net() const { return Net::build(topo, lfts, ar_of); }
};

sim::FabricSpec tree(uint32_t levels, uint32_t radix) { return *sim::make_fat_tree(levels, radix); }

sim::FabricSpec degraded(uint32_t levels, uint32_t radix, double fraction, uint64_t seed) {
  sim::FabricSpec s = tree(levels, radix);
  REQUIRE(sim::drop_switch_links(s, fraction, seed));
  return s;
}

}  // namespace

TEST_CASE("traffic: EBB of a single crossbar is 1.0, and all-to-all shares each CA link") {
  sim::FabricSpec s;
  for (int i = 0; i < 8; ++i) s.nodes.push_back(sim::SpecNode{.type = mad::NodeType::ca, .name = fmt::format("H{}", i), .num_ports = 1});
  s.nodes.push_back(sim::SpecNode{.type = mad::NodeType::sw, .name = "S", .num_ports = 8});
  for (uint32_t i = 0; i < 8; ++i) s.links.push_back(sim::SpecLink{i, 1, 8, static_cast<uint8_t>(i + 1)});
  Routed r(s, "minhop");
  const Net net = r.net();
  REQUIRE(net.cas().size() == 8);
  CHECK(net.channels()[0].gbps == doctest::Approx(32.0));  // 4x QDR
  auto e = effective_bisection_bandwidth(net, {.bisections = 5, .seed = 3});
  CHECK(e.mean == doctest::Approx(1.0));
  CHECK(e.min == doctest::Approx(1.0));
  CHECK(e.unrouted == 0);
  auto a2a = run_flows(net, (*make_phases(*parse_pattern("all-to-all"), 8, 1))[0].flows, {.message_bytes = 1e6});
  CHECK(a2a.mean_rate == doctest::Approx(1.0 / 7));
  CHECK(a2a.aggregate_gbps == doctest::Approx(8 * 32.0));
  CHECK(a2a.max_utilisation == doctest::Approx(1.0));
  // 7 flows of 1 MB out of each CA at 32 Gb/s: 7 x 8e6 bits / 32e9.
  CHECK(a2a.completion_s == doctest::Approx(7 * 8e6 / 32e9));
  CHECK(a2a.completion_exact);
}

TEST_CASE("traffic: a hand-built pair of leaves: what a shared uplink gives, and completion as flows finish") {
  // H1, H2 on S1; H3, H4 on S2; one S1-S2 cable. H1->H3 and H2->H4 share it.
  simtest::Hand h(simtest::spec({"H1", "H2", "H3", "H4", "S1", "S2"},
                                {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S2", 1}, {"H4", 1, "S2", 2}, {"S1", 5, "S2", 5}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3); h.lid("H4", 4);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 5, 5});
  h.lft("S2", {0xFF, 5, 5, 1, 2});
  const Net net = Net::of(*h.f);
  auto ca = [&](const char* n) { return net.find_cas(n).front(); };
  // Two flows over the cable at half rate each, and H4 -> H2 on the other direction at full.
  const std::vector<Flow> flows{{ca("H1"), ca("H3")}, {ca("H2"), ca("H4")}, {ca("H4"), ca("H2")}};
  auto r = run_flows(net, flows, {.message_bytes = 4e6});
  REQUIRE(r.rate.size() == 3);
  CHECK(r.rate[0] == doctest::Approx(16.0));
  CHECK(r.rate[2] == doctest::Approx(32.0));
  CHECK(r.aggregate_gbps == doctest::Approx(64.0));
  auto hot = hottest(r.utilisation, 1);
  const Channel& c = net.channels()[hot[0]];
  CHECK(r.utilisation[hot[0]] == doctest::Approx(1.0));
  CHECK(net.node_name(c.from) != "");
  // Weighted 3:1, the heavy flow needs 3x the bytes at 3x the rate: both end together.
  const std::vector<Flow> weighted{{ca("H1"), ca("H3"), 3}, {ca("H2"), ca("H4"), 1}};
  auto w = run_flows(net, weighted, {.message_bytes = 4e6});
  CHECK(w.rate[0] == doctest::Approx(24.0));
  CHECK(w.completion_s == doctest::Approx(3 * 32e6 / 24e9));
  // Unequal sizes through re-solving: equal weights, and the second flow stops at half time?
  // No: equal bytes and rates finish together; a third flow elsewhere does not slow them.
  CHECK(r.completion_s == doctest::Approx(32e6 / 16e9));
  // A dead cable: the flows over it are unrouted.
  h.n("S1").ports[5].state = mad::PortState::down;
  const Net cut = Net::of(*h.f);
  auto u = run_flows(cut, flows, {});
  CHECK(u.unrouted == 3);  // the cable carried H4 -> H2 the other way
}

TEST_CASE("traffic: a complete fat tree under ftree gives full bandwidth for every shift") {
  Routed r(tree(3, 8), "ftree");  // 128 CAs
  const Net net = r.net();
  REQUIRE(net.cas().size() == 128);
  for (uint32_t k = 1; k < 128; ++k) {
    CAPTURE(k);
    auto phases = *make_phases(Pattern{.kind = PatternKind::shift, .k = k}, 128, 1);
    auto t = run_flows(net, phases[0].flows, {});
    CHECK(t.unrouted == 0);
    CHECK(t.min_rate == doctest::Approx(1.0));
  }
  // minhop balances all-to-all routes, not shifts: some shift collides.
  Routed m(tree(3, 8), "minhop");
  const Net mnet = m.net();
  double worst = 1.0;
  for (uint32_t k = 1; k < 128; ++k) {
    auto phases = *make_phases(Pattern{.kind = PatternKind::shift, .k = k}, 128, 1);
    worst = std::min(worst, run_flows(mnet, phases[0].flows, {}).min_rate);
  }
  CHECK(worst < 0.99);
}

TEST_CASE("traffic: a degraded tree gives less, adaptive switches recover part of it") {
  const Routed complete(tree(3, 8), "ftree");
  const Routed cut(degraded(3, 8, 0.1, 5), "ftree");
  const Routed adaptive(degraded(3, 8, 0.1, 5), "ftree", "adaptive-hint");
  const EbbOptions o{.bisections = 10, .seed = 1};
  const double full = effective_bisection_bandwidth(complete.net(), o).mean;
  const double statik = effective_bisection_bandwidth(cut.net(), o).mean;
  const Net anet = adaptive.net();
  CHECK(anet.adaptive_switches() > 0);
  const double ar = effective_bisection_bandwidth(anet, o).mean;
  MESSAGE("EBB complete ", full, ", degraded ", statik, ", degraded + adaptive ", ar);
  CHECK(statik < full);
  CHECK(ar > statik + 0.02);
}

TEST_CASE("traffic: the same seed gives the same figures, whatever the thread count") {
  const Routed r(degraded(3, 8, 0.1, 5), "ftree", "adaptive-hint");
  const Net net = r.net();
  auto one = effective_bisection_bandwidth(net, {.bisections = 8, .seed = 9, .threads = 1});
  auto two = effective_bisection_bandwidth(net, {.bisections = 8, .seed = 9, .threads = 2});
  auto other = effective_bisection_bandwidth(net, {.bisections = 8, .seed = 10, .threads = 2});
  CHECK(one.per_bisection == two.per_bisection);
  CHECK(one.mean == two.mean);
  CHECK(one.per_bisection != other.per_bisection);
  CHECK(one.stddev >= 0);
  CHECK(one.min <= one.mean);
  CHECK(one.max >= one.mean);
}

TEST_CASE("traffic: adaptive switches that see only their own port recover less than those that see the path") {
  const Routed cut(degraded(3, 8, 0.1, 5), "ftree");
  const Routed adaptive(degraded(3, 8, 0.1, 5), "ftree", "adaptive-hint");
  EbbOptions o{.bisections = 10, .seed = 1};
  const double statik = effective_bisection_bandwidth(cut.net(), o).mean;
  o.placement.choice = Net::Choice::local;
  const double local = effective_bisection_bandwidth(adaptive.net(), o).mean;
  o.placement.choice = Net::Choice::path;
  o.placement.passes = 1;
  const double one_pass = effective_bisection_bandwidth(adaptive.net(), o).mean;
  MESSAGE("EBB degraded static ", statik, ", adaptive local ", local, ", path one pass ", one_pass);
  CHECK(local > statik);
  CHECK(one_pass > local);
}

TEST_CASE("traffic: adaptive switches on a complete tree come near full bisection bandwidth") {
  const Routed statik(tree(3, 8), "ftree");
  const Routed adaptive(tree(3, 8), "ftree", "adaptive-hint");
  const EbbOptions o{.bisections = 10, .seed = 2};
  const double s = effective_bisection_bandwidth(statik.net(), o).mean;
  const double a = effective_bisection_bandwidth(adaptive.net(), o).mean;
  MESSAGE("EBB complete static ", s, ", adaptive ", a);
  CHECK(a > 0.85);
  CHECK(a > s + 0.2);
}

TEST_CASE("traffic: the port rates for the PMA: loads each way, waiting where a full link is wanted more") {
  simtest::Hand h(simtest::spec({"H1", "H2", "H3", "H4", "S1", "S2"},
                                {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S2", 1}, {"H4", 1, "S2", 2}, {"S1", 5, "S2", 5}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3); h.lid("H4", 4);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 5, 5});
  h.lft("S2", {0xFF, 5, 5, 1, 2});
  const Net net = Net::of(*h.f);
  auto ca = [&](const char* n) { return net.find_cas(n).front(); };
  const std::vector<Flow> flows{{ca("H1"), ca("H3")}, {ca("H2"), ca("H4")}};
  const TrafficResult r = run_flows(net, flows, {});
  const std::vector<sim::PortRate> rates = port_rates(net, r);
  const sim::NodeIdx s1 = *h.f->find("S1"), s2 = *h.f->find("S2"), h1 = *h.f->find("H1");
  bool cable = false, into_s2 = false, source = false;
  for (const sim::PortRate& p : rates) {
    if (p.node == s1 && p.port == 5) {  // the shared cable: full, wanted twice over
      cable = true;
      CHECK(p.xmit_gbps == doctest::Approx(32.0));
      CHECK(p.xmit_wait == doctest::Approx(0.5));
    }
    if (p.node == s2 && p.port == 5) {
      into_s2 = true;
      CHECK(p.rcv_gbps == doctest::Approx(32.0));
    }
    if (p.node == h1 && p.port == 1) {  // half its link, and not waiting on its own link
      source = true;
      CHECK(p.xmit_gbps == doctest::Approx(16.0));
      CHECK(p.xmit_wait == 0.0);
    }
  }
  CHECK(cable);
  CHECK(into_s2);
  CHECK(source);
  REQUIRE(h.f->set_traffic(rates));
}

TEST_CASE("traffic: a removed node is no CA, and still has its name") {
  simtest::Hand h(simtest::spec({"S1", "H1", "H2", "H3"}, {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S1", 3}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 3});
  const sim::NodeIdx h3 = *h.f->find("H3");  // the last node index
  REQUIRE(h.f->remove_node(h3));
  const Net net = Net::of(*h.f);
  CHECK(net.cas().size() == 2);
  CHECK(net.node_name(h3) == "H3");
  CHECK(net.find_cas("H3").empty());
}

TEST_CASE("traffic: adaptive routing per switch in the sim API, and what a switch's AR table may hold") {
  // H1, H2 on S1; H3 on S2; two cables S1[5]-S2[5] and S1[6]-S2[6].
  simtest::Hand h(simtest::spec({"H1", "H2", "H3", "S1", "S2"},
                                {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H3", 1, "S2", 1}, {"S1", 5, "S2", 5}, {"S1", 6, "S2", 6}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 5});  // both to H3 by port 5
  h.lft("S2", {0xFF, 5, 5, 1});
  for (const char* sw : {"S1", "S2"})
    for (int p : {5, 6}) h.n(sw).ports[p].width_active = sim::width::x1;  // cables at 8 Gb/s, CAs at 32
  sim::SimFabric& f = *h.f;
  const sim::NodeIdx s1 = *f.find("S1"), h1 = *f.find("H1");
  fabric::ArTable t{{{}, {5, 6}}, {0, 0, 0, 1}};  // LID 3: ports 5 or 6
  CHECK_FALSE(f.set_ar_table(h1, t));
  CHECK_FALSE(f.set_adaptive(h1, true));
  CHECK_FALSE(f.set_ar_table(s1, fabric::ArTable{{{}, {5, 9}}, {0, 0, 0, 1}}));  // S1 has 8 ports
  REQUIRE(f.set_ar_table(s1, t));
  auto ca = [](const Net& n, const char* name) { return n.find_cas(name).front(); };
  const Net off = Net::of(f);
  CHECK(off.adaptive_switches() == 0);  // a table, but not switched on
  const std::vector<Flow> two{{ca(off, "H1"), ca(off, "H3")}, {ca(off, "H2"), ca(off, "H3")}};
  const auto statik = run_flows(off, two, {});
  CHECK(statik.aggregate_gbps == doctest::Approx(8.0));  // both on cable 5, 1x QDR
  REQUIRE(f.set_adaptive(s1, true));
  const Net on = Net::of(f);
  CHECK(on.adaptive_switches() == 1);
  const auto spread = run_flows(on, two, {.placement = {.split = 1}});
  CHECK(spread.aggregate_gbps == doctest::Approx(16.0));  // one flow on each cable
  CHECK(Net::of(f, true).adaptive_switches() == 1);  // S2 has no table
  REQUIRE(f.set_adaptive(s1, false));
  CHECK(Net::of(f, true).adaptive_switches() == 1);  // every switch with a table, on or not
  CHECK(Net::of(f).adaptive_switches() == 0);
}
