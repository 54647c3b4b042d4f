// metrics/: the text exposition (escapes, families, histograms, pieces to a sink) and the
// pages the collector and a hand-built Snapshot render.
#include <doctest/doctest.h>

#include <string>

#include "metrics/exposition.h"
#include "metrics/port_metrics.h"
#include "metrics/sm_metrics.h"
#include "tests/metrics/sample.h"

using metrics::Type;
using metrics::Writer;

namespace {
bool has(const std::string& page, const std::string& line) {
  return page.find(line + "\n") != std::string::npos;
}
size_t count(const std::string& page, const std::string& what) {
  size_t n = 0;
  for (size_t at = page.find(what); at != std::string::npos; at = page.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("label values and HELP are escaped") {
  CHECK(metrics::escape_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
  CHECK(metrics::escape_help("x\\y\n\"z\"") == "x\\\\y\\n\"z\"");
  Writer w;
  w.family("t_gauge", Type::gauge, "line one\nline two");
  w.sample({{"name", "say \"hi\"\n"}}, 1.5);
  CHECK(w.problems().empty());
  CHECK(w.text() == "# HELP t_gauge line one\\nline two\n# TYPE t_gauge gauge\nt_gauge{name=\"say \\\"hi\\\"\\n\"} 1.5\n");
}

TEST_CASE("counters end in _total, HELP and TYPE once, values as the format spells them") {
  Writer w;
  w.family("t_things", Type::counter, "things");
  w.sample({{"kind", "a"}}, uint64_t{18446744073709551615ULL});
  w.sample({{"kind", "b"}}, uint64_t{0});
  w.family("t_things_total", Type::counter, "again");  // the same family: refused
  w.family("t_ratio", Type::gauge, "r");
  w.sample({}, 0.25);
  w.sample({{"x", "inf"}}, 1.0 / 0.0);
  const std::string& t = w.text();
  CHECK(has(t, "# TYPE t_things_total counter"));
  CHECK(has(t, "t_things_total{kind=\"a\"} 18446744073709551615"));
  CHECK(has(t, "t_ratio 0.25"));
  CHECK(has(t, "t_ratio{x=\"inf\"} +Inf"));
  CHECK(count(t, "# HELP t_things_total") == 1);
  REQUIRE(w.problems().size() == 1);
  CHECK(w.problems()[0].find("twice") != std::string::npos);
}

TEST_CASE("bad names are refused, not written") {
  Writer w;
  w.family("9bad", Type::gauge, "x");
  w.sample({}, 1.0);
  w.family("good", Type::gauge, "x");
  w.sample({{"bad-label", "v"}}, 1.0);
  CHECK(w.text().find("9bad") == std::string::npos);
  CHECK(w.problems().size() == 2);
  CHECK(metrics::format_value(3.0) == "3");
  CHECK(metrics::format_value(1e20) == "1e+20");
}

TEST_CASE("a histogram: cumulative buckets up to +Inf, _sum, _count") {
  metrics::Histogram h({0.25, 0.5, 1});
  for (double v : {0.125, 0.25, 0.375, 0.75, 4.0}) h.observe(v);
  Writer w;
  w.family("t_seconds", Type::histogram, "durations");
  w.histogram({{"kind", "heavy"}}, h);
  const std::string& t = w.text();
  CHECK(w.problems().empty());
  CHECK(has(t, "# TYPE t_seconds histogram"));
  CHECK(has(t, "t_seconds_bucket{kind=\"heavy\",le=\"0.25\"} 2"));  // le: on the bound counts
  CHECK(has(t, "t_seconds_bucket{kind=\"heavy\",le=\"0.5\"} 3"));
  CHECK(has(t, "t_seconds_bucket{kind=\"heavy\",le=\"1\"} 4"));
  CHECK(has(t, "t_seconds_bucket{kind=\"heavy\",le=\"+Inf\"} 5"));
  CHECK(has(t, "t_seconds_sum{kind=\"heavy\"} 5.5"));
  CHECK(has(t, "t_seconds_count{kind=\"heavy\"} 5"));
  Writer g;
  g.family("t_gauge", Type::gauge, "x");
  g.histogram({}, h);  // a histogram in a gauge family: refused
  CHECK(g.problems().size() == 1);
}

TEST_CASE("the page goes to a sink in pieces, and stops when the sink does") {
  const auto perf = metrics_test::two_ports();
  const auto figs = metrics_test::figures();
  const std::string whole = metrics::render_page(&figs, &perf);
  std::string pieces;
  int calls = 0;
  const std::string rest = metrics::render_page(&figs, &perf, [&](std::string_view p) {
    pieces += p;
    ++calls;
    return true;
  }, 512);
  CHECK(calls > 3);
  CHECK(pieces + rest == whole);
  int stopped_calls = 0;
  (void)metrics::render_page(&figs, &perf, [&](std::string_view) { return ++stopped_calls < 2; }, 512);
  CHECK(stopped_calls == 2);
}

TEST_CASE("a Snapshot with two ports: the infiniband-exporter's names and labels") {
  const auto perf = metrics_test::two_ports();
  Writer w;
  metrics::write_perf(w, perf);
  const std::string& t = w.text();
  CHECK(w.problems().empty());
  const std::string sw_labels =
      "component=\"switch\",local_name=\"leaf \\\"1\\\" \\\\ rack\\n2\",local_guid=\"0x0002c90300a1b2c3\","
      "local_port=\"7\",remote_guid=\"0x0002c90300000042\",remote_port=\"1\",remote_name=\"node042 HCA-1\"";
  const std::string ca_labels =
      "component=\"ca\",local_name=\"node042 HCA-1\",local_guid=\"0x0002c90300000042\",local_port=\"1\","
      "remote_guid=\"0x0002c90300a1b2c3\",remote_port=\"7\",remote_name=\"leaf \\\"1\\\" \\\\ rack\\n2\"";
  CHECK(has(t, "# TYPE infiniband_symbolerrorcounter_total counter"));
  CHECK(has(t, "infiniband_symbolerrorcounter_total{" + sw_labels + "} 4321"));
  CHECK(has(t, "infiniband_symbolerrorcounter_total{" + ca_labels + "} 0"));
  CHECK(has(t, "infiniband_linkdownedcounter_total{" + ca_labels + "} 0"));
  CHECK(has(t, "infiniband_portxmitdata_bytes_total{" + sw_labels + "} 4000"));
  CHECK(has(t, "infiniband_portrcvdata_bytes_total{" + ca_labels + "} 4000"));
  CHECK(has(t, "infiniband_portxmitwait_total{" + sw_labels + "} 0"));
  // Rates only for ports read twice.
  CHECK(has(t, "fabricsm_port_xmit_data_bytes_per_second{" + sw_labels + "} 1024.5"));
  CHECK(t.find("fabricsm_port_xmit_data_bytes_per_second{" + ca_labels) == std::string::npos);
  CHECK(has(t, "fabricsm_port_read_failures_total{" + ca_labels + "} 2"));
  CHECK(has(t, "fabricsm_health_findings_total{rule=\"symbol_error\"} 1"));
  CHECK(has(t, "fabricsm_health_open_findings{rule=\"symbol_error\",severity=\"error\"} 1"));
  CHECK(has(t, "fabricsm_health_finding{rule=\"symbol_error\",severity=\"error\",isolated=\"false\"," + sw_labels + "} 1"));
  CHECK(has(t, "fabricsm_perfmgr_sweeps_total 3"));
  CHECK(has(t, "fabricsm_perfmgr_last_sweep_duration_seconds 0.0125"));
  CHECK(count(t, "# TYPE ") == 2 * sm::perfmgr::kCounters + 9);
  CHECK(metrics::port_rate_family(sm::perfmgr::Counter::symbol_errors) == "fabricsm_port_symbol_error_per_second");
}

TEST_CASE("the SM's figures: state, sweeps by kind, LIDs, HA, SA, store, counter sweeps") {
  const auto f = metrics_test::figures();
  Writer w;
  metrics::write_sm(w, f);
  const std::string& t = w.text();
  CHECK(w.problems().empty());
  CHECK(has(t, "fabricsm_sm_state{state=\"master\"} 1"));
  CHECK(has(t, "fabricsm_sm_state{state=\"standby\"} 0"));
  CHECK(has(t, "fabricsm_sm_priority 5"));
  CHECK(has(t, "fabricsm_subnet_up 1"));
  CHECK(has(t, "fabricsm_sweeps_total{kind=\"heavy\"} 1"));
  CHECK(has(t, "fabricsm_sweeps_total{kind=\"incremental\"} 1"));
  CHECK(has(t, "fabricsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"0.05\"} 1"));
  CHECK(has(t, "fabricsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"0.025\"} 0"));
  CHECK(has(t, "fabricsm_sweep_duration_seconds_sum{kind=\"incremental\"} 0.003"));
  CHECK(has(t, "fabricsm_lids_in_use 3"));  // one LID, and an LMC-1 range of two
  CHECK(has(t, "fabricsm_nodes{type=\"switch\"} 2"));
  CHECK(has(t, "fabricsm_links 5"));
  CHECK(has(t, "fabricsm_ha_events_total{kind=\"state\"} 1"));
  CHECK(has(t, "fabricsm_ha_events_total{kind=\"master_lost\"} 0"));
  CHECK(has(t, "fabricsm_mkey_violations_total 3"));
  CHECK(has(t, "fabricsm_bad_mkey_traps_total 2"));
  CHECK(has(t, "fabricsm_mkey_ports_refusing 1"));
  CHECK(has(t, "fabricsm_sa_queries_total{attribute=\"PathRecord\"} 7"));
  CHECK(has(t, "fabricsm_sa_queries_total{attribute=\"0x7777\"} 1"));
  CHECK(has(t, "fabricsm_store_commits_total 2"));
  CHECK(has(t, "fabricsm_perfmgr_queries_total 4"));  // the same Snapshot twice: once
  CHECK(has(t, "fabricsm_perfmgr_sweep_duration_seconds_count 1"));
}
