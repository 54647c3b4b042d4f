// The PerfMgr's Snapshot as metric families: per-port counters named and labelled as the
// community infiniband-exporter (github.com/guilbaults/infiniband-exporter) names them, so its
// dashboards fit; rates, health findings and the counter sweep as fabricsm_* families.
#pragma once

#include <string>
#include <string_view>

#include "metrics/exposition.h"
#include "sm/perfmgr/snapshot.h"

namespace metrics {

// The exporter's family of a counter, without "_total": "infiniband_" + perfquery's name in
// lower case ("infiniband_symbolerrorcounter"). Data counters get "_bytes": ours count bytes,
// the exporter's 4-byte words (dashboards multiply those by 4).
std::string port_counter_family(sm::perfmgr::Counter c);
// The rate gauge of a counter: "fabricsm_port_" + kCounterInfo's name without its "port_"
// ("fabricsm_port_xmit_data_bytes_per_second", "fabricsm_port_symbol_error_per_second").
std::string port_rate_family(sm::perfmgr::Counter c);

// Every port's counters and rates, the open findings, the findings by rule and the last
// counter sweep (what a Snapshot holds; the collector keeps the sums over sweeps).
void write_perf(Writer& w, const sm::perfmgr::Snapshot& s);

}  // namespace metrics
