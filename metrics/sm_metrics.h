// The SM's own figures for the metrics endpoint. A collector, fed on the daemon's loop thread
// from what the service publishes (each sweep's sm::Subnet, the HA notes, each new PerfMgr
// Snapshot), accumulates what only those events tell (sweeps by kind and their durations,
// HA events); figures() adds what the service counts itself (SMPs, SA queries, store
// commits) and copies it all into SmFigures, a plain value the loop publishes by pointer. The
// HTTP thread renders the page from that value and the Snapshot (render_page), never from the
// SM, so a scrape costs the loop one copy of a few hundred bytes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ha/role.h"
#include "mad/sm_info.h"
#include "mad/transactions.h"
#include "metrics/exposition.h"
#include "sm/perfmgr/snapshot.h"
#include "sm/sa/server.h"
#include "sm/subnet.h"

namespace service {
class Service;
}

namespace metrics {

inline constexpr size_t kHaKinds = 6;  // ha::Note::Kind: state .. warning

struct SweepFigures {
  uint64_t count = 0;
  uint64_t not_up = 0;  // ended without the subnet up
  Histogram seconds{duration_buckets()};
};

// Seconds, the loop timer's bucket bounds (0.1 ms to 5 s).
std::vector<double> loop_buckets();

struct SmFigures {
  // SMInfo as the SM answers it now, and SUBNET UP.
  mad::SmState state = mad::SmState::not_active;
  unsigned priority = 0;
  bool up = false;
  // Sweeps (SweepReport: heavy, or incremental; light sweeps publish no report).
  SweepFigures heavy, incremental;
  // The last sweep's subnet.
  uint64_t switches = 0, cas = 0, links = 0;
  uint64_t lids_in_use = 0;  // every LID of an LMC range counts
  mad::TransactionStats smps;
  std::array<uint64_t, kHaKinds> ha_events{};  // by ha::Note::Kind
  // M_Key (sm::SmView): violations on ports holding this SM's key, Bad M_Key traps from
  // others, ports left alone for a key this SM does not know.
  uint64_t mkey_violations = 0, bad_mkey_traps = 0, mkey_refusing = 0;
  sm::sa::ServerStats sa;
  bool sa_master = false;  // the SA answers (it has an index)
  bool has_store = false;
  uint64_t store_commits = 0, store_failed_commits = 0;
  double store_last_commit_ms = 0;
  // Counter sweeps, from each new Snapshot (none before the first).
  uint64_t perf_sweeps_seen = 0;
  uint64_t perf_ports_read = 0, perf_queries = 0, perf_timeouts = 0, perf_clears = 0;
  Histogram perf_seconds{duration_buckets()};
  // The event loop's turns (service/loop_timer.h): how long a MAD may wait to be answered.
  Histogram loop_seconds{loop_buckets()};
  double loop_longest_ms = 0;
  uint64_t loop_long_turns = 0;
};

class SmCollector {
 public:
  void on_sweep(const sm::Subnet& s);
  void on_ha_note(const ha::Note& n);
  // Each Snapshot once (the loop hands over every new pointer; repeats are ignored).
  void on_perf(const sm::perfmgr::Snapshot& p);
  // What the collector accumulated; with the service's own counters when `svc` is given.
  SmFigures figures(const service::Service* svc) const;

 private:
  SmFigures acc_;
  uint64_t last_perf_sweep_ = 0;
};

// The SM's families (fabricsm_*), then, with a Snapshot, the PerfMgr's (port_metrics.h).
void write_sm(Writer& w, const SmFigures& f);
// The whole page. With `sink`, written in pieces of about `chunk` bytes as they are ready
// (sink false: the client went away, stop); the rest is returned.
std::string render_page(const SmFigures* sm, const sm::perfmgr::Snapshot* perf,
                        const std::function<bool(std::string_view)>& sink = {}, size_t chunk = 1 << 20);

std::string_view ha_kind_name(size_t kind);
std::string_view sm_state_label(mad::SmState s);  // "master", "standby", ...

}  // namespace metrics
