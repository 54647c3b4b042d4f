// The PerfMgr's tables: one transaction per counter sweep, only changed port rows, samples at
// most every sample interval and dropped past the retention, findings replaced, and what
// `fabricsm show counters/health` reads back.
#include <doctest/doctest.h>

#include "sm/store/store.h"
#include "tests/temp_dir.h"

namespace st = sm::store;
namespace pm = sm::perfmgr;

namespace {

pm::Snapshot snapshot(int64_t t_ms, uint64_t errors) {
  pm::Snapshot s;
  s.sweep = {.number = 1, .started_ms = t_ms, .duration_ms = 5, .ports = 2, .queries = 4, .timeouts = 0, .clears = 0};
  for (uint8_t p = 1; p <= 2; ++p) {
    pm::PortSample x;
    x.local = {mad::Guid(0x100), "leaf \"A\"", p, 3, true};
    x.remote = pm::PortEnd{mad::Guid(0x200 + p), "host", 1, static_cast<uint16_t>(10 + p), false};
    x.totals[pm::index(pm::Counter::symbol_errors)] = p == 1 ? errors : 0;
    x.totals[pm::index(pm::Counter::xmit_data)] = 1ULL << 50;
    x.rates[pm::index(pm::Counter::xmit_data)] = 12.5e9;
    x.has_rates = x.extended = true;
    x.sampled_ms = t_ms;
    s.ports.push_back(x);
  }
  pm::Finding f;
  f.rule = "symbol_error";
  f.at = s.ports[0].local;
  f.peer = s.ports[0].remote;
  f.what = "SymbolErrorCounter +12 in 60 s";
  f.first_ms = f.last_ms = t_ms;
  s.findings.push_back(f);
  return s;
}

}  // namespace

TEST_CASE("counter sweeps: changed rows only, samples bounded by the retention, read back whole") {
  testutil::TempDir dir;
  auto s = st::Store::open({.path = dir.file("db")});
  REQUIRE(s);
  st::Store& store = **s;
  auto c = store.commit_counters(snapshot(1000, 5), true, 0);
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  CHECK(c->ports == 2);
  CHECK(c->samples == 2);
  c = store.commit_counters(snapshot(2000, 5), false, 0);  // nothing changed, no sample due
  REQUIRE(c);
  CHECK(c->ports == 0);
  CHECK(c->samples == 0);
  c = store.commit_counters(snapshot(3000, 9), true, 1500);  // one port changed; the first samples go
  REQUIRE(c);
  CHECK(c->ports == 1);
  CHECK(c->dropped == 2);
  CHECK(*store.db().scalar("SELECT count(*) FROM counter_samples") == 2);
  CHECK(*store.db().scalar("SELECT count(*) FROM counter_sweeps") == 2);  // the first one is past the retention

  auto ports = store.load_port_counters();
  REQUIRE(ports);
  REQUIRE(ports->size() == 2);
  const pm::PortSample& p = (*ports)[0];
  CHECK(p.local.description == "leaf \"A\"");
  CHECK(p.local.is_switch);
  REQUIRE(p.remote);
  CHECK(p.remote->node == mad::Guid(0x201));
  CHECK(p.remote->lid == 11);
  CHECK(p.totals[pm::index(pm::Counter::symbol_errors)] == 9);
  CHECK(p.totals[pm::index(pm::Counter::xmit_data)] == (1ULL << 50));
  CHECK(p.rates[pm::index(pm::Counter::xmit_data)] == doctest::Approx(12.5e9));
  auto findings = store.load_findings();
  REQUIRE(findings);
  REQUIRE(findings->size() == 1);
  CHECK((*findings)[0].what == "SymbolErrorCounter +12 in 60 s");
  REQUIRE((*findings)[0].peer);
  CHECK((*findings)[0].peer->description == "host");

  // A port the PerfMgr no longer reads leaves the table; findings are replaced.
  pm::Snapshot one = snapshot(4000, 9);
  one.ports.pop_back();
  one.findings.clear();
  REQUIRE(store.commit_counters(one, false, 0));
  CHECK(store.load_port_counters()->size() == 1);
  CHECK(store.load_findings()->empty());
}
