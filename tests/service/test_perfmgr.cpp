// The PerfMgr in the whole service stack on a simulated fabric whose ports have PMAs: counter
// sweeps between the SM's sweeps, findings naming both ends of a cable, saturating counters
// cleared, reboots without negative deltas, and isolation through the SM's repair path. The
// ibsim script tests/ibsim/perfmgr.sh checks the same against perfquery.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>

#include "cli/drill.h"
#include "sim/netfile.h"

using namespace std::chrono_literals;
using sm::perfmgr::Counter;
using sm::perfmgr::index;

namespace {

struct Bed {
  std::unique_ptr<cli::Cluster> cluster;

  // `setup` runs on the fabric before the SM starts.
  explicit Bed(sm::perfmgr::Config perf, const std::function<void(sim::SimFabric&)>& setup = {}) {
    auto spec = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/ft2-r8.net");
    REQUIRE(spec);
    perf.enabled = true;
    perf.sweep_time = 5s;
    cli::DrillSm sm{.node = "H00000", .cfg = {}, .db_path = "", .perf = perf};
    sm.cfg.routing_engine = "ftree,updn,minhop";
    auto c = cli::Cluster::create(*spec, {}, {sm}, sm::Level::info);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
    cluster = std::move(*c);
    if (setup) setup(cluster->fabric());
    REQUIRE(cluster->start(0));
    REQUIRE(cluster->run_until([&] { return cluster->settled() && cluster->masters().size() == 1; }, 30s));
  }
  service::Service& svc() { return cluster->service(0); }
  sim::SimFabric& fabric() { return cluster->fabric(); }
  sim::NodeIdx node(const std::string& name) {
    auto n = fabric().find(name);
    REQUIRE(n);
    return *n;
  }
  // Runs until `n` more counter sweeps have been published.
  std::shared_ptr<const sm::perfmgr::Snapshot> sweeps(uint64_t n) {
    const uint64_t want = (svc().perf() ? svc().perf()->sweeps : 0) + n;
    REQUIRE(cluster->run_until([&] { return svc().perf() && svc().perf()->sweeps >= want; }, 60s));
    return svc().perf();
  }
  const sm::perfmgr::PortSample* port(const sm::perfmgr::Snapshot& s, const std::string& name, uint8_t p) {
    const mad::Guid g = fabric().node(node(name)).guid;
    for (const auto& x : s.ports)
      if (x.local.node == g && x.local.port == p) return &x;
    return nullptr;
  }
  bool logged(std::string_view what) {
    const auto& l = cluster->log_lines(0);
    return std::any_of(l.begin(), l.end(), [&](const std::string& s) { return s.find(what) != std::string::npos; });
  }
  // Whether the switch forwards any LID out of port `p`.
  bool uses(const std::string& sw, uint8_t p) {
    const auto& lft = fabric().node(node(sw)).sw->lft;
    return std::find(lft.begin(), lft.end(), p) != lft.end();
  }
};

}  // namespace

TEST_CASE("every linked port is read, with both ends of its cable named") {
  Bed b({});
  auto s = b.sweeps(1);
  // 32 CA ports + 32 leaf-spine cables (64 switch ends) + the leaves' 32 CA-facing ports.
  CHECK(s->sweep.ports == 128);
  CHECK(s->sweep.timeouts == 0);
  const auto* up = b.port(*s, "S1_000", 5);
  REQUIRE(up);
  CHECK(up->local.is_switch);
  REQUIRE(up->remote);
  CHECK(up->remote->node == b.fabric().node(b.node("S2_000")).guid);
  CHECK(up->remote->port == 1);
  CHECK(up->remote->lid != 0);
  CHECK(up->extended);
  CHECK(b.fabric().node(b.node("S1_000")).pma_handled > 0);
}

TEST_CASE("injected errors become a finding naming both ends; counters agree with the port") {
  Bed b({});
  b.sweeps(1);
  REQUIRE(b.fabric().add_counter(b.node("S1_000"), 5, sim::Counter::symbol_errors, 1234));
  auto s = b.sweeps(1);
  const auto* p = b.port(*s, "S1_000", 5);
  REQUIRE(p);
  CHECK(p->totals[index(Counter::symbol_errors)] == 1234);
  REQUIRE(s->findings.size() == 1);
  const auto& f = s->findings[0];
  CHECK(f.rule == "symbol_error");
  CHECK(f.at.port == 5);
  REQUIRE(f.peer);
  CHECK(f.peer->port == 1);
  CHECK(f.what.find("+1,234") != std::string::npos);
  CHECK(b.logged("health: symbol_error at"));
  CHECK_FALSE(f.isolated);  // report is the default
}

TEST_CASE("a 16-bit counter past half its range is cleared; the totals keep counting") {
  Bed b({});
  b.sweeps(1);
  const sim::NodeIdx leaf = b.node("S1_001");
  REQUIRE(b.fabric().set_counter(leaf, 6, sim::Counter::rcv_errors, 40000));
  auto s = b.sweeps(1);
  CHECK(s->sweep.clears >= 1);
  b.sweeps(1);
  auto c = b.fabric().counters(leaf, 6);
  REQUIRE(c);
  CHECK(c->rcv_errors == 0);  // cleared before it could stick at 65535
  REQUIRE(b.fabric().add_counter(leaf, 6, sim::Counter::rcv_errors, 30000));
  s = b.sweeps(1);
  CHECK(b.port(*s, "S1_001", 6)->totals[index(Counter::rcv_errors)] == 70000);
}

TEST_CASE("a switch reboot gives no negative delta") {
  Bed b({});
  const sim::NodeIdx spine = b.node("S2_001");
  REQUIRE(b.fabric().add_counter(spine, 2, sim::Counter::symbol_errors, 5));
  b.sweeps(2);
  const uint64_t before = b.port(*b.svc().perf(), "S2_001", 2)->totals[index(Counter::symbol_errors)];
  REQUIRE(b.fabric().remove_node(spine));
  REQUIRE(b.fabric().restore_node(spine));
  auto s = b.sweeps(3);
  const auto* p = b.port(*s, "S2_001", 2);
  REQUIRE(p);
  CHECK(p->totals[index(Counter::symbol_errors)] == before);
  CHECK(p->totals[index(Counter::xmit_data)] < (1ULL << 40));  // no wrap-around from a "negative" delta
}

TEST_CASE("isolate: the SM routes around the cable until the finding is cleared; a CA's link is only reported") {
  sm::perfmgr::Config perf;
  perf.isolate = {"symbol_error"};
  perf.clean_time = 0s;
  Bed b(perf);
  b.sweeps(1);
  REQUIRE(b.uses("S1_000", 5));
  REQUIRE(b.fabric().add_counter(b.node("S1_000"), 5, sim::Counter::symbol_errors, 500));
  REQUIRE(b.fabric().add_counter(b.node("S1_002"), 1, sim::Counter::symbol_errors, 500));  // to H00008
  auto s = b.sweeps(1);
  REQUIRE(s->findings.size() == 2);
  b.cluster->run_for(3s);  // the reaction: the switches re-read, the routes repaired
  CHECK(b.logged("health: isolating the cable"));
  CHECK(b.logged("not isolated: it is a CA's link"));
  CHECK_FALSE(b.uses("S1_000", 5));
  CHECK(b.svc().manager().isolated().size() == 2);
  b.sweeps(2);  // quiet sweeps with clean_time 0: an isolated cable stays out
  CHECK_FALSE(b.uses("S1_000", 5));
  CHECK(b.svc().clear_health(std::nullopt) == 1);  // the CA link's finding closed when quiet
  b.cluster->run_for(3s);
  CHECK(b.uses("S1_000", 5));
  CHECK(b.svc().manager().isolated().empty());
  CHECK(b.logged("is back in the routes"));
}

TEST_CASE("no counter query while the SM sweeps") {
  Bed b({});
  b.sweeps(1);
  const sim::NodeIdx leaf = b.node("S1_003");
  const uint64_t handled = b.fabric().node(leaf).pma_handled;
  b.svc().request_sweep("test");
  uint64_t during = 0;
  b.cluster->run_until([&] {
    if (b.svc().manager().sweeping() && !b.svc().perfmgr().sweeping()) during = b.fabric().node(leaf).pma_handled;
    return !b.svc().manager().sweeping() && b.fabric().node(leaf).pma_handled > handled;
  }, 30s);
  CHECK((during == 0 || during == handled));
}

TEST_CASE("a cable running below what both ends enable is a degraded_link finding") {
  Bed b({});
  auto s = b.sweeps(1);
  CHECK(s->findings.empty());  // a healthy fabric: every link at its best
  for (auto [name, port] : {std::pair{"S1_004", 7}, std::pair{"S2_002", 5}})
    b.fabric().mutable_node(b.node(name)).ports[static_cast<size_t>(port)].width_active = sim::width::x1;
  b.svc().request_sweep("re-read the ports");
  b.cluster->run_until([&] { return !b.svc().manager().sweeping(); }, 10s);
  s = b.sweeps(1);
  REQUIRE(s->findings.size() == 1);
  CHECK(s->findings[0].rule == "degraded_link");
  CHECK(s->findings[0].what == "running 1x of 4x");
  CHECK(s->findings[0].at.description == "S1_004");
  REQUIRE(s->findings[0].peer);
  CHECK(s->findings[0].peer->description == "S2_002");
}

TEST_CASE("an idle switch costs one query (its ports' sum); traffic is read per port from the extended counters") {
  Bed b({});
  b.sweeps(2);
  const sim::NodeIdx leaf = b.node("S1_002");
  uint64_t before = b.fabric().node(leaf).pma_handled;
  auto s = b.sweeps(1);
  CHECK(b.fabric().node(leaf).pma_handled - before == 1);  // the AllPortSelect sum only
  sim::SimCounterDelta d;
  d.xmit_data = 1000;  // 4-byte words
  d.xmit_pkts = 10;
  REQUIRE(b.fabric().add_counters(leaf, 6, d));
  before = b.fabric().node(leaf).pma_handled;
  s = b.sweeps(1);
  // Only traffic moved: the error counters stay as they were.
  CHECK(b.fabric().node(leaf).pma_handled - before == 1 + 8);  // the sum, and each port's extended counters
  const auto* p = b.port(*s, "S1_002", 6);
  REQUIRE(p);
  CHECK(p->totals[index(Counter::xmit_data)] == 4000);  // bytes
  CHECK(p->totals[index(Counter::xmit_pkts)] == 10);
  CHECK(p->rates[index(Counter::xmit_data)] == doctest::Approx(4000.0 / 5).epsilon(0.05));
  CHECK(b.port(*s, "S1_002", 5)->totals[index(Counter::xmit_data)] == 0);
}

TEST_CASE("the first sweep reads a switch whose sum shows no error per port from its extended counters only") {
  // S1_003 starts with errors on port 6: its ports' PortCounters are read one by one.
  Bed b({}, [](sim::SimFabric& f) {
    auto n = f.find("S1_003");
    REQUIRE(n);
    REQUIRE(f.add_counter(*n, 6, sim::Counter::symbol_errors, 7));
  });
  auto s = b.sweeps(1);
  REQUIRE(s->sweeps == 1);
  // ClassPortInfo, the sum, then each of the 8 ports' extended counters.
  CHECK(b.fabric().node(b.node("S1_002")).pma_handled == 1 + 1 + 8);
  // ClassPortInfo, the sum, and each port's PortCounters and extended counters.
  CHECK(b.fabric().node(b.node("S1_003")).pma_handled == 1 + 1 + 8 + 8);
  CHECK(s->sweep.ports == 128);
  CHECK(s->sweep.timeouts == 0);
  // The baselines are right either way: the next sweep sees only what was added since.
  REQUIRE(b.fabric().add_counter(b.node("S1_002"), 3, sim::Counter::symbol_errors, 5));
  REQUIRE(b.fabric().add_counter(b.node("S1_003"), 6, sim::Counter::symbol_errors, 2));
  s = b.sweeps(1);
  CHECK(b.port(*s, "S1_002", 3)->totals[index(Counter::symbol_errors)] == 5);
  CHECK(b.port(*s, "S1_003", 6)->totals[index(Counter::symbol_errors)] == 2);
  CHECK(b.port(*s, "S1_003", 5)->totals[index(Counter::symbol_errors)] == 0);
}

TEST_CASE("no counter sweep starts within a second of a sweep of the SM's") {
  Bed b({});
  b.sweeps(1);
  // The SM sweeps from just before the next counter sweep is due (every 5 s) until after.
  mad::Nanos started{0};
  REQUIRE(b.cluster->run_until([&] {
    if (b.svc().perfmgr().sweeping() && started == mad::Nanos{0}) started = b.fabric().now();
    return started != mad::Nanos{0} && !b.svc().perfmgr().sweeping();
  }, 30s));
  REQUIRE(b.cluster->run_until([&] { return b.fabric().now() >= started + 5s - 1ms; }, 30s));
  b.svc().request_sweep("test");
  std::optional<mad::Nanos> sm_end, first_start;
  bool seen_sm = false;
  REQUIRE(b.cluster->run_until([&] {
    const mad::Nanos now = b.fabric().now();
    const bool sm = b.svc().manager().sweeping();
    if (sm) seen_sm = true;
    if (seen_sm && !sm && !sm_end) sm_end = now;
    if (sm_end && b.svc().perfmgr().sweeping()) first_start = now;
    return first_start.has_value();
  }, 30s));
  REQUIRE(sm_end);
  REQUIRE(*sm_end > started + 5s);  // the counter sweep was due while the SM swept
  // Its commit, and the hosts' SA queries as their ports come up, go first.
  CHECK(*first_start - *sm_end >= 990ms);
  CHECK(*first_start - *sm_end <= 1100ms);
}
