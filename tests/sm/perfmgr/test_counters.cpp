// The PerfMgr's counter arithmetic, health rules and link check on hand-made readings: the
// cases hardware produces (saturation, resets, extended counters, 4-byte data words).
#include <doctest/doctest.h>

#include "sm/perfmgr/counters.h"
#include "sm/perfmgr/health.h"
#include "sm/perfmgr/link_check.h"

using namespace std::chrono_literals;
using sm::perfmgr::Counter;
using sm::perfmgr::index;
using sm::perfmgr::PortTrack;
using sm::perfmgr::reading_of;

TEST_CASE("deltas, totals and rates; data counted in 4-byte words") {
  PortTrack t;
  mad::PortCounters pc;
  pc.symbol_errors = 5;
  pc.xmit_data = 1000;
  auto s = t.advance(reading_of(pc), 0s);
  CHECK(s.first);
  CHECK(t.totals()[index(Counter::symbol_errors)] == 0);  // the first read is a baseline
  pc.symbol_errors = 12;
  pc.xmit_data = 3500;
  s = t.advance(reading_of(pc), 10s);
  CHECK_FALSE(s.first);
  CHECK(s.delta[index(Counter::symbol_errors)] == 7);
  CHECK(t.totals()[index(Counter::symbol_errors)] == 7);
  CHECK(t.totals()[index(Counter::xmit_data)] == 2500 * 4);
  CHECK(t.rates()[index(Counter::xmit_data)] == doctest::Approx(1000.0));  // bytes per second
  CHECK(t.rates()[index(Counter::symbol_errors)] == doctest::Approx(0.7));
  CHECK(s.clear_select == 0);
}

TEST_CASE("a counter past half its range is cleared before it sticks; the clear is the new baseline") {
  PortTrack t;
  mad::PortCounters pc;
  pc.symbol_errors = 100;
  t.advance(reading_of(pc), 0s);
  pc.symbol_errors = 40000;  // past 32767 of a 16-bit counter
  pc.link_downed = 200;      // past 127 of an 8-bit one
  pc.local_link_integrity_errors = 9;  // past 7 of a 4-bit one
  auto s = t.advance(reading_of(pc), 1s);
  CHECK(s.delta[index(Counter::symbol_errors)] == 39900);
  CHECK(s.clear_select == (mad::counter_select::symbol_errors | mad::counter_select::link_downed |
                           mad::counter_select::local_link_integrity_errors));
  CHECK_FALSE(s.saturated);
  mad::PortCounters after = pc;  // the Set's answer: the selected counters at 0
  after.symbol_errors = 0;
  after.link_downed = 0;
  after.local_link_integrity_errors = 0;
  t.cleared(s.clear_select, s.clear_select2, after);
  pc = after;
  pc.symbol_errors = 3;
  s = t.advance(reading_of(pc), 2s);
  CHECK_FALSE(s.reset);  // the clear is no reset
  CHECK(s.delta[index(Counter::symbol_errors)] == 3);
  CHECK(t.totals()[index(Counter::symbol_errors)] == 39903);
}

TEST_CASE("a stuck counter is flagged: its delta is a lower bound") {
  PortTrack t;
  mad::PortCounters pc;
  t.advance(reading_of(pc), 0s);
  pc.symbol_errors = 0xFFFF;
  auto s = t.advance(reading_of(pc), 1s);
  CHECK(s.saturated);
  CHECK((s.clear_select & mad::counter_select::symbol_errors) != 0);
}

TEST_CASE("a counter that went down (reboot) starts a new baseline, never a negative delta") {
  PortTrack t;
  mad::PortCounters pc;
  pc.symbol_errors = 500;
  pc.xmit_data = 100000;
  t.advance(reading_of(pc), 0s);
  pc.symbol_errors = 2;  // the switch rebooted
  pc.xmit_data = 10;
  auto s = t.advance(reading_of(pc), 1s);
  CHECK(s.reset);
  CHECK(s.delta[index(Counter::symbol_errors)] == 0);
  CHECK(t.totals()[index(Counter::symbol_errors)] == 0);
  pc.symbol_errors = 7;
  s = t.advance(reading_of(pc), 2s);
  CHECK(s.delta[index(Counter::symbol_errors)] == 5);
}

TEST_CASE("extended counters: 64-bit data, the 32-bit ones neither used nor cleared") {
  PortTrack t;
  mad::PortCounters pc;
  mad::PortCountersExtended pe;
  pe.xmit_data = 1ULL << 40;
  pe.unicast_xmit_pkts = 10;
  t.advance(reading_of(pc, &pe), 0s);
  pc.xmit_data = 0xFFFFFFFF;  // long stuck, as 32-bit data counters are on a busy link
  pe.xmit_data += 1ULL << 33;
  pe.unicast_xmit_pkts = 25;
  auto s = t.advance(reading_of(pc, &pe), 1s);
  CHECK(t.extended());
  CHECK(s.delta[index(Counter::xmit_data)] == (1ULL << 33));
  CHECK(t.totals()[index(Counter::xmit_data)] == (1ULL << 35));
  CHECK(t.totals()[index(Counter::unicast_xmit_pkts)] == 15);
  CHECK((s.clear_select & mad::counter_select::xmit_data) == 0);
}

namespace {
// The findings a sweep ending at `ms` (and started then) opened.
std::vector<sm::perfmgr::Finding> opened(sm::perfmgr::Health& h, int64_t ms) {
  std::vector<sm::perfmgr::Finding> out;
  for (const auto& k : h.end_sweep({ms, ms}, ms)) out.push_back(h.findings().at(k));
  return out;
}
}  // namespace

TEST_CASE("health: a rule fires past its threshold, names both ends, closes after the clean time") {
  sm::perfmgr::Config cfg;
  cfg.clean_time = 60s;
  sm::perfmgr::Health h(cfg);
  const sm::perfmgr::PortEnd a{mad::Guid(0x10), "leaf", 5, 3, true}, b{mad::Guid(0x20), "spine", 1, 7, true};
  sm::perfmgr::Step s;
  s.seconds = 60;
  s.delta[index(Counter::symbol_errors)] = 9;  // below the default 10
  h.on_step(a, b, s, {1000, 1000});
  CHECK(opened(h, 1000).empty());
  s.delta[index(Counter::symbol_errors)] = 1234;
  h.on_step(a, b, s, {61000, 61000});
  auto fresh = opened(h, 61000);
  REQUIRE(fresh.size() == 1);
  CHECK(fresh[0].rule == "symbol_error");
  CHECK(fresh[0].what == "SymbolErrorCounter +1,234 in 60 s");
  CHECK(fresh[0].at.description == "leaf");
  REQUIRE(fresh[0].peer);
  CHECK(fresh[0].peer->description == "spine");
  CHECK(opened(h, 100000).empty());
  CHECK(h.open().size() == 1);  // still open: quiet for less than the clean time
  opened(h, 121000);
  CHECK(h.open().empty());
  CHECK(h.fired().at("symbol_error") == 1);
}

TEST_CASE("health: thresholds are configurable; congestion only when asked for; clear") {
  sm::perfmgr::Config cfg;
  cfg.thresholds["symbol_error"] = 1;
  sm::perfmgr::Health h(cfg);
  const sm::perfmgr::PortEnd a{mad::Guid(0x10), "leaf", 5, 3, true};
  sm::perfmgr::Step s;
  s.seconds = 10;
  s.delta[index(Counter::symbol_errors)] = 1;
  s.delta[index(Counter::xmit_wait)] = 1u << 20;
  h.on_step(a, std::nullopt, s, {1, 1});
  auto fresh = opened(h, 1);
  REQUIRE(fresh.size() == 1);
  CHECK(fresh[0].rule == "symbol_error");
  cfg.xmit_wait_log = true;
  h.on_step(a, std::nullopt, s, {2, 2});
  fresh = opened(h, 2);
  REQUIRE(fresh.size() == 1);
  CHECK(fresh[0].rule == "port_xmit_wait");
  CHECK(h.clear(std::make_pair(mad::Guid(0x10), uint8_t{5})) == 2);
  CHECK(h.open().empty());
}

TEST_CASE("a link below what both ends enable is degraded") {
  mad::PortInfo a, b;
  a.link_width_enabled = b.link_width_enabled = mad::link_width::x1 | mad::link_width::x4;
  a.link_width_supported = b.link_width_supported = mad::link_width::x1 | mad::link_width::x4;
  a.link_speed_supported = b.link_speed_supported = mad::link_speed::sdr | mad::link_speed::qdr;
  a.link_speed_enabled = b.link_speed_enabled = mad::link_speed::set_to_supported;
  a.link_width_active = mad::link_width::x4;
  a.link_speed_active = mad::link_speed::qdr;
  CHECK_FALSE(sm::perfmgr::degraded(a, false, b, false));
  a.link_width_active = mad::link_width::x1;
  CHECK(sm::perfmgr::degraded(a, false, b, false) == "running 1x of 4x");
  a.link_speed_active = mad::link_speed::sdr;
  CHECK(sm::perfmgr::degraded(a, false, b, false) == "running 1x of 4x, SDR of QDR");
  // The far end enables only 1x: 1x is all the link can be.
  a.link_speed_active = mad::link_speed::qdr;
  b.link_width_enabled = mad::link_width::x1;
  CHECK_FALSE(sm::perfmgr::degraded(a, false, b, false));
  // Extended speeds decide when both ends have them.
  a.link_speed_ext_supported = b.link_speed_ext_supported = mad::link_speed_ext::fdr | mad::link_speed_ext::edr;
  a.link_speed_ext_enabled = b.link_speed_ext_enabled = mad::link_speed_ext::set_to_supported;
  a.link_speed_ext_active = mad::link_speed_ext::fdr;
  CHECK(sm::perfmgr::degraded(a, true, b, true) == "running FDR of EDR");
  CHECK_FALSE(sm::perfmgr::degraded(a, true, b, false));  // one end's fields are not valid
}
