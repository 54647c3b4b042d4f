// One `fabricsm sim` run: a fresh simulated fabric, the SM on it until SUBNET UP, the
// verifier, and (optionally) the routing metrics. `--compare` calls it once per engine.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/sim_adapt.h"
#include "cli/sim_traffic.h"
#include "mad/transactions.h"
#include "service/service.h"
#include "sim/lft_import.h"
#include "sim/sl_import.h"
#include "sim/metrics.h"
#include "sim/sl_query.h"
#include "sim/spec.h"
#include "sim/verifier.h"
#include "sm/log.h"
#include "sm/mkey/secret.h"
#include "sm/perfmgr/snapshot.h"
#include "sm/subnet_manager.h"

namespace cli {

struct SimOutcome;

struct SimRunOptions {
  std::string engine = kDefaultRoutingEngine;
  std::string sm_node;  // empty: the first node, as ibsim
  int window = 256;
  double loss = 0.0;
  uint64_t seed = 1;
  int max_sweeps = 5;
  int lmc = 0;  // 2^lmc LIDs per CA port
  std::string db;  // commit every sweep here; LIDs and tables of an earlier run come back
  bool metrics = false;
  bool bounds = false;  // with metrics: the fabric's cut lower bounds too
  bool link_loads = false;
  sm::Level log_level = sm::Level::warn;
  bool progress = false;
  // After SUBNET UP, this many counter sweeps (the PerfMgr on the simulated PMAs); 0: none.
  int counter_sweeps = 0;
  // After SUBNET UP, the SM runs on for this many seconds of simulated time (its periodic
  // sweeps, counter sweeps with --perfmgr), its loop turns timed; 0: not.
  double steady_s = 0;
  // With steady_s: a heavy sweep asked for as it begins (as `fabricsm status --resweep`), so
  // that the loop's turns are timed through one.
  bool resweep = false;
  // With steady_s: this many switch-to-switch cables taken down one after another through the
  // steady time, each up again half-way to the next (traps, incremental sweeps around the cut).
  int flaps = 0;
  // M_Key protection (the simulated SMAs enforce it): per-port keys from this secret.
  sm::mkey::Secret m_key_secret;
  uint8_t m_key_protect = 1;
  // After SUBNET UP, the LIDs and LFTs of this dump (dump_fts, opensm-lfts.dmp) replace the
  // SM's on the simulated fabric before it is verified and measured: another SM's routing.
  std::string import_lfts;
  // With import_lfts: the SLs and SL-to-VL tables of this dump (sim/sl_dump.h) replace the SA's
  // for the per-VL deadlock check: the other run's VL layers.
  std::string import_sls;
  // Called at the end with the stack still up (`--serve`); false: the run failed.
  std::function<bool(const service::Service&, const sim::SimFabric&, const SimOutcome&)> serve;
  // After SUBNET UP (before any counter sweeps), this traffic over the fabric.
  TrafficRunOptions traffic;
  // With traffic: the closed loop (cli/sim_adapt.h) for at most this many rounds; 0: none.
  int adapt_rounds = 0;
};

struct NamedLinkLoad {
  std::string from;
  unsigned from_port;
  std::string to;
  unsigned to_port;
  uint64_t routes;
};

struct SimOutcome {
  std::string engine;     // as asked
  std::string sm_node;
  bool up = false;
  sm::SweepReport sweep;  // the last sweep
  std::vector<sm::SweepReport> sweeps;  // every sweep until the run ended, the last included
  mad::TransactionStats mads;
  uint64_t mkey_refused = 0;  // SMPs the simulated SMAs refused for a wrong M_Key
  std::optional<sim::ImportReport> imported;  // --import-lfts: what the dump wrote
  std::optional<sim::SlImportReport> sls_imported;  // --import-sls: what it gave (its SL table moved out)
  sim::VerifyReport verify;
  std::optional<sim::MetricsReport> metrics;
  // --metrics, when the SA handed out an SL other than 0 (VL layers): deadlock freedom per VL
  // on the simulated switches' LFTs and SL2VL tables with the SA's SLs (sim/vl_verifier.h).
  std::optional<fabric::VlCdgReport> vl;
  sim::SlQuery sl_query;  // what asking the SA for those SLs took (no SLs: nothing asked)
  double sl_query_s = 0;
  std::optional<fabric::CutBounds> bounds;  // the fabric's, whatever the engine did
  std::vector<NamedLinkLoad> links;
  double build_s = 0, sm_s = 0, verify_s = 0, metrics_s = 0, bounds_s = 0;
  double commit_ms = 0;     // the last sweep's store commit
  // --perfmgr: each counter sweep (its duration on the SM's clock: virtual time), the wall
  // time they took, and how much the store grew over them.
  std::vector<sm::perfmgr::SweepFigures> counters;
  double counters_wall_s = 0;
  int64_t counters_db_bytes = 0;
  double counters_commit_ms = 0;  // the last counter sweep's store commit
  // --steady or --perfmgr: the SM's time after SUBNET UP (simulated seconds) and the wall time
  // of its loop's turns then (service/loop_timer.h).
  std::optional<std::pair<double, service::LoopFigures>> steady;
  // With steady: the loop's turns from the start to SUBNET UP (the first sweep).
  std::optional<service::LoopFigures> bringup_loop;
  std::string store_error;  // --db: the last commit's error (nothing of the sweep is stored)
  std::optional<TrafficOutcome> traffic;  // --traffic, once the subnet was up
  // --traffic with --perfmgr: the port the PerfMgr's last sweep saw sending most (its own
  // rates, from the simulated PMAs), to set beside the traffic model's hottest link.
  struct PerfSeen {
    std::string node;
    unsigned port = 0;
    double xmit_gbps = 0;
    double xmit_wait_per_s = 0;  // PortXmitWait ticks per second
  };
  std::optional<PerfSeen> perf_busiest;
  std::optional<AdaptOutcome> adapt;  // --adapt

  bool ok() const { return up && verify.all_routed() && verify.ports_not_active == 0 && store_error.empty(); }
};

mad::Result<SimOutcome> run_sim(const sim::FabricSpec& spec, const SimRunOptions& opts);

}  // namespace cli
