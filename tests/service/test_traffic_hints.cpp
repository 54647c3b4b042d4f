// adaptive-hint that adapts (sm/adapt/, routing/retune.h, the SM's pins): the loop's rules on
// hand-made counter snapshots over a real subnet, the retune on the real tables, and the whole
// loop on the simulated fabric: traffic -> PMA counters -> PerfMgr -> moves -> traffic again.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "cli/sim_run.h"
#include "fabric/data_rate.h"
#include "sim/metrics.h"
#include "sim/netfile.h"

using namespace std::chrono_literals;
using sm::perfmgr::Counter;
using sm::perfmgr::index;

namespace {

sim::FabricSpec shared(const std::string& name) {
  auto spec = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/" + name);
  REQUIRE(spec);
  return std::move(*spec);
}

std::string flows_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/fabricsm-test-" + std::to_string(::getpid()) + "-" + name;
  FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f);
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

// Four sources on one leaf, each with a flow to a CA of the same position on another pod's
// leaf (ftree sends all four up the same uplink) and one to a neighbour on the leaf.
const char* kSkew =
    "H00000 H00064\nH00000 H00001\nH00001 H00128\nH00001 H00002\n"
    "H00002 H00192\nH00002 H00003\nH00003 H00256\nH00003 H00004\n";

// The SM brought up on a fabric with adaptive-hint, and the stack around it (as run_sim).
struct Stack {
  std::unique_ptr<sim::SimFabric> fabric;
  std::unique_ptr<sim::SimTransport> transport;
  sm::Logger log{sm::Level::info};
  std::vector<std::string> lines;
  std::unique_ptr<service::Service> svc;

  explicit Stack(const sim::FabricSpec& spec, sm::adapt::Config adapt = {}) {
    auto f = sim::SimFabric::build(spec, {});
    REQUIRE(f);
    fabric = std::move(*f);
    const auto ep = fabric->attach(0, fabric->node(0).is_switch() ? 0 : 1);
    REQUIRE(ep);
    fabric->set_is_sm(*ep, true);
    transport = std::make_unique<sim::SimTransport>(*fabric, *ep);
    log.set_sink([this](sm::Level, std::string_view l) { lines.emplace_back(l); });
    sm::SmConfig cfg;
    cfg.routing_engine = "adaptive-hint";
    sm::perfmgr::Config perf;
    perf.enabled = true;
    perf.sweep_time = 10s;
    adapt.min_interval = 10s;
    auto s = service::Service::create(*transport, service::Config{.sm = cfg, .perf = perf, .adapt = adapt}, log);
    REQUIRE(s);
    svc = std::move(*s);
    svc->start();
    REQUIRE(run([&] { return !svc->manager().sweeping() && svc->manager().subnet_up(); }));
  }
  bool run(const std::function<bool()>& until) { return mad::run_loop(*svc, *transport, until).has_value(); }
  const sm::Subnet& subnet() const { return *svc->subnet(); }
  uint64_t generation() const { return svc->subnet()->sweep.hints_generation; }
  std::vector<std::vector<uint8_t>> lfts() const {
    std::vector<std::vector<uint8_t>> out;
    for (const auto& n : fabric->nodes())
      if (n.is_switch()) out.push_back(n.sw->lft);
    return out;
  }
  bool logged(std::string_view what) const {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(what) != std::string::npos; });
  }
};

// A counter snapshot of every switch port of `s`: switch-to-switch channels at `background`
// utilisation except those named in `hot`; each CA sending and receiving `injected_per_ca`.
sm::perfmgr::Snapshot snapshot(const sm::Subnet& s, const std::map<std::pair<std::string, uint8_t>, double>& hot,
                               double background, double injected_per_ca) {
  sm::perfmgr::Snapshot snap;
  const fabric::Topology& t = *s.topology;
  for (fabric::NodeId sw : t.switches())
    for (const fabric::Port& p : t.ports(sw)) {
      if (p.num.value() == 0 || !p.linked()) continue;
      sm::perfmgr::PortSample x;
      x.local = {t.node(sw).guid, t.node(sw).description, p.num.value(), 0, true};
      const fabric::Node& peer = t.node(p.peer);
      x.remote = sm::perfmgr::PortEnd{peer.guid, peer.description, p.peer_port.value(), 0, peer.is_switch()};
      x.has_rates = true;
      const double cap = fabric::data_bytes_per_s(p);
      if (peer.is_switch()) {
        auto it = hot.find({t.node(sw).description, p.num.value()});
        x.rates[index(Counter::xmit_data)] = (it == hot.end() ? background : it->second) * cap;
      } else {
        x.rates[index(Counter::rcv_data)] = injected_per_ca * cap;  // what the CA sends ...
        x.rates[index(Counter::xmit_data)] = injected_per_ca * cap;  // ... and receives
      }
      snap.ports.push_back(x);
    }
  return snap;
}

// The subnet as a sweep that put round `g` in place (LFT blocks written) publishes it.
sm::Subnet in_place(const sm::Subnet& s, uint64_t g) {
  sm::Subnet c = s;
  c.sweep.hints_generation = g;
  c.sweep.up = true;
  c.sweep.program.lft_blocks_written = 8;
  return c;
}

}  // namespace

TEST_CASE("the loop's rules: skew, not noise or balance; one round per fresh channel; a round must pay; release") {
  Stack st(shared("ft2-r8.net"), sm::adapt::Config{.enabled = false});  // the loop below is driven by hand
  const sm::Subnet& s = st.subnet();
  REQUIRE(s.sweep.engine == "adaptive-hint");
  const fabric::Topology& t = *s.topology;
  std::pair<std::string, uint8_t> up1, up2;  // two leaf uplinks
  for (fabric::NodeId sw : t.switches())
    for (const fabric::Port& p : t.ports(sw))
      if (p.num.value() != 0 && p.linked() && t.node(p.peer).is_switch() && up2.first.empty()) {
        if (up1.first.empty()) up1 = {t.node(sw).description, p.num.value()};
        else if (t.node(sw).description == up1.first) up2 = {t.node(sw).description, p.num.value()};
      }
  REQUIRE(!up2.first.empty());
  sm::adapt::HintLoop loop(sm::adapt::Config{.min_interval = 60s});
  mad::Nanos now = 0s;
  auto at = [&](const sm::perfmgr::Snapshot& snap) {
    now += 10s;
    return loop.on_snapshot(snap, s, now);
  };
  CHECK_FALSE(at(snapshot(s, {{up1, 0.7}}, 0.05, 0.3)));  // busy, below `hot`: noise
  CHECK_FALSE(at(snapshot(s, {{up1, 1.0}}, 0.9, 0.3)));   // heavy but balanced
  auto d = at(snapshot(s, {{up1, 1.0}}, 0.05, 0.3));
  REQUIRE(d);
  CHECK(d->kind == sm::adapt::Decision::Kind::reroute);
  CHECK(d->round == 1);
  REQUIRE(d->hot.size() == 1);
  CHECK(d->hot[0].from.description == up1.first);
  CHECK(d->hot[0].fresh);
  REQUIRE(d->load.hot.size() == 1);
  CHECK(d->load.destinations.size() > 0);
  CHECK(loop.waiting());
  CHECK_FALSE(at(snapshot(s, {{up2, 1.0}}, 0.05, 0.3)));  // nothing measured until it is in place
  loop.on_sweep(in_place(s, 1));
  CHECK_FALSE(loop.waiting());
  CHECK_FALSE(at(snapshot(s, {{up2, 1.0}}, 0.05, 0.6)));  // straddles the change: skipped
  // It paid (the CAs send twice as much); the same channel hot again starts nothing.
  CHECK_FALSE(at(snapshot(s, {{up1, 1.0}}, 0.05, 0.6)));
  // A fresh hot channel: a round, but only min_interval after the last.
  now = 0s;  // rewinding puts the last round in the future
  CHECK_FALSE(loop.on_snapshot(snapshot(s, {{up2, 1.0}}, 0.05, 0.6), s, 20s));
  auto d2 = loop.on_snapshot(snapshot(s, {{up2, 1.0}}, 0.05, 0.6), s, 200s);
  REQUIRE(d2);
  CHECK(d2->round == 2);
  loop.on_sweep(in_place(s, 2));
  CHECK_FALSE(loop.on_snapshot(snapshot(s, {}, 0.05, 0.6), s, 210s));  // skipped
  // It did not pay: no more rounds, even for a fresh hot channel.
  auto stop = loop.on_snapshot(snapshot(s, {}, 0.05, 0.6), s, 220s);
  REQUIRE(stop);
  CHECK(stop->kind == sm::adapt::Decision::Kind::stop);
  CHECK_FALSE(loop.on_snapshot(snapshot(s, {{{up1.first, static_cast<uint8_t>(up1.second + 2)}, 1.0}}, 0.05, 0.6), s, 400s));
  // The traffic goes: two clean measurements below half the peak give every move back.
  CHECK_FALSE(loop.on_snapshot(snapshot(s, {}, 0.0, 0.1), s, 410s));
  auto rel = loop.on_snapshot(snapshot(s, {}, 0.0, 0.1), s, 420s);
  REQUIRE(rel);
  CHECK(rel->kind == sm::adapt::Decision::Kind::release);
  CHECK(rel->load.empty());
  CHECK(loop.relieved() == 0);
  // Turned off (SIGHUP) while moves are pinned: they go back at the next measurement.
  sm::adapt::HintLoop off(sm::adapt::Config{.min_interval = 1s});
  REQUIRE(off.on_snapshot(snapshot(s, {{up1, 1.0}}, 0.05, 0.3), s, 10s));
  off.on_sweep(in_place(s, 1));
  off.reconfigure(sm::adapt::Config{.enabled = false});
  auto gone = off.on_snapshot(snapshot(s, {{up1, 1.0}}, 0.05, 0.3), s, 20s);
  REQUIRE(gone);
  CHECK(gone->kind == sm::adapt::Decision::Kind::release);
  CHECK(gone->why == "traffic_hints is off");
  // Another engine: nothing to hint.
  sm::Subnet other_engine = in_place(s, rel->round);
  other_engine.sweep.engine = "ftree";
  loop.on_sweep(other_engine);
  CHECK_FALSE(loop.on_snapshot(snapshot(s, {{up1, 1.0}}, 0.05, 0.3), other_engine, 1000s));
}

TEST_CASE("retune: the heaviest destinations move, idle ones never, not past balance; pins go back only where legal") {
  Stack st(shared("ft2-r8.net"), sm::adapt::Config{.enabled = false});
  const sm::Subnet& s = st.subnet();
  const fabric::Topology& t = *s.topology;
  const routing::RoutingTables& tables = *s.tables;
  REQUIRE(tables.has_alternatives());
  // A leaf uplink and four destinations it carries, with traffic to each.
  fabric::NodeId leaf = fabric::kNoNode;
  uint8_t up = 0;
  for (fabric::NodeId sw : t.switches()) {
    for (const fabric::Port& p : t.ports(sw))
      if (p.num.value() != 0 && p.linked() && t.node(p.peer).is_switch()) {
        leaf = sw;
        up = p.num.value();
        break;
      }
    if (up) break;
  }
  std::vector<mad::Lid> carried;
  std::vector<routing::DestinationRate> dests;
  for (const auto& l : s.sweep.lids.lids) {
    if (t.node(l.node).is_switch() || tables.port(leaf, l.lid) != up || carried.size() == 4) continue;
    carried.push_back(l.lid);
    dests.push_back({t.node(l.node).guid, l.port.value(), 0.25 * fabric::data_bytes_per_s(t.port(leaf, mad::PortNum(up)))});
  }
  REQUIRE(carried.size() == 4);
  const double cap = fabric::data_bytes_per_s(t.port(leaf, mad::PortNum(up)));
  routing::TrafficLoad load;
  load.hot = {{t.node(leaf).guid, up, cap}};
  load.channels = load.hot;
  load.destinations = dests;
  const routing::Retuned r = routing::retune_routes(t, tables, load);
  CHECK(r.destinations == 3);  // the fourth would only trade places
  CHECK(r.moved.size() >= 3);
  for (const auto& l : s.sweep.lids.lids) {  // nothing without traffic moved
    if (std::find(carried.begin(), carried.end(), l.lid) != carried.end()) continue;
    for (fabric::NodeId sw : t.switches()) CHECK(r.tables.port(sw, l.lid) == tables.port(sw, l.lid));
  }
  for (const routing::Pin& p : r.moved) {
    const auto sw = t.find(p.sw);
    REQUIRE(sw);
    const auto alts = tables.alternatives(*sw, p.lid);
    CHECK(std::find(alts.begin(), alts.end(), p.port) != alts.end());
  }
  // Balanced already: nothing moves.
  routing::TrafficLoad even = load;
  even.channels.clear();
  for (const fabric::Port& p : t.ports(leaf))
    if (p.num.value() != 0 && p.linked() && t.node(p.peer).is_switch()) even.channels.push_back({t.node(leaf).guid, p.num.value(), cap});
  CHECK(routing::retune_routes(t, tables, even).moved.empty());
  // Pins back on the engine's own tables; one naming a port that is no alternative does not.
  routing::RoutingTables fresh = tables;
  std::vector<routing::Pin> pins = r.moved;
  pins.push_back(routing::Pin{t.node(leaf).guid, carried[0], 0});  // port 0 is never an alternative
  CHECK(routing::apply_pins(t, fresh, pins) == r.moved.size());
  CHECK(fresh == r.tables);
}

TEST_CASE("the closed loop on ft3-r16: a colliding pattern is spread in one round of a few entries, then left alone") {
  cli::SimRunOptions o;
  o.engine = "adaptive-hint";
  o.metrics = true;
  o.traffic.pattern = "file:" + flows_file("skew.flows", kSkew);
  o.adapt_rounds = 3;
  auto out = cli::run_sim(shared("ft3-r16.net"), o);
  REQUIRE(out);
  REQUIRE(out->adapt);
  const auto& rounds = out->adapt->rounds;
  REQUIRE(rounds.size() == 2);
  CHECK(rounds[0].max_switch_utilisation == doctest::Approx(1.0));
  CHECK(rounds[0].max_offered == doctest::Approx(4.0));
  CHECK(rounds[1].max_switch_utilisation == doctest::Approx(0.5));  // each flow on its own uplink
  CHECK(rounds[1].max_offered == doctest::Approx(2.0));             // the sources' own links now
  CHECK(rounds[1].completion_s == doctest::Approx(rounds[0].completion_s / 2));
  CHECK(rounds[1].moved_destinations == 3);
  CHECK(rounds[1].moved_entries <= 6);
  CHECK(rounds[1].lft_blocks <= rounds[1].moved_entries);
  CHECK(out->adapt->converged);
  CHECK(out->ok());                     // every pair routed, no loops
  REQUIRE(out->metrics);
  CHECK(out->metrics->cdg_acyclic);     // the moves stay deadlock-free
}

TEST_CASE("the closed loop leaves a balanced load alone and stops after a round that does not pay") {
  cli::SimRunOptions o;
  o.engine = "adaptive-hint";
  o.traffic.pattern = "shift:8";
  o.adapt_rounds = 3;
  auto balanced = cli::run_sim(shared("ft3-r16.net"), o);
  REQUIRE(balanced);
  REQUIRE(balanced->adapt);
  CHECK(balanced->adapt->rounds.size() == 1);
  CHECK(balanced->adapt->converged);
  o.traffic.pattern = "random-permutation";
  auto saturated = cli::run_sim(shared("ft3-r16-degraded5.net"), o);
  REQUIRE(saturated);
  REQUIRE(saturated->adapt);
  CHECK(saturated->adapt->rounds.size() <= 2);
  CHECK(saturated->adapt->converged);
  CHECK(saturated->ok());
}

TEST_CASE("when the traffic goes, the moves are given back: the engine's own tables return") {
  Stack st(shared("ft3-r16.net"));
  const auto before = st.lfts();
  cli::TrafficRunOptions traffic{.pattern = "file:" + flows_file("skew2.flows", kSkew)};
  REQUIRE(cli::run_traffic(*st.fabric, st.svc->subnet().get(), traffic));
  REQUIRE(st.run([&] { return !st.svc->manager().sweeping() && st.generation() == 1; }));
  CHECK(st.svc->manager().pinned() > 0);
  CHECK(st.lfts() != before);
  CHECK(st.logged("traffic hints round 1 in place"));
  REQUIRE(st.fabric->set_traffic({}));  // the job ends
  REQUIRE(st.run([&] { return !st.svc->manager().sweeping() && st.generation() == 2; }));
  CHECK(st.svc->manager().pinned() == 0);
  CHECK(st.lfts() == before);
  CHECK(st.logged("given back: the traffic eased"));
}
