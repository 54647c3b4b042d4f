// fabricsm sim: the whole SM against the in-process simulated fabric, then the simulator's
// own verifier over the switches' LFTs (and, on request, routing metrics), and a summary.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "routing/engine.h"
#include "sim/generators.h"
#include "sim/netfile.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/sim_report.h"
#include "cli/sim_run.h"
#include "cli/sim_serve.h"
#include "cli/web_token.h"
#include "cli/svg_plot.h"

namespace po = boost::program_options;

namespace cli {

namespace {

struct Args {
  std::string topology, fat_tree, compare, link_loads, plot, log_level = "warn", secret_file, serve, token_file, import_lfts, import_sls;
  double message_size = 1 << 20;
  int bisections = 20;
  int protect = 1;
  bool json = false;
  SimRunOptions run;
};

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

mad::Result<sim::FabricSpec> load_spec(const Args& a, std::string& label) {
  if (!a.topology.empty()) {
    label = a.topology;
    return sim::load_netfile(a.topology);
  }
  unsigned levels = 3, radix = 16;  // the built-in default: 320 switches, 1,024 CAs
  char extra = 0;
  if (!a.fat_tree.empty() &&
      std::sscanf(a.fat_tree.c_str(), "%u,%u%c", &levels, &radix, &extra) != 2)
    return mad::fail(mad::Errc::invalid, fmt::format("--fat-tree wants LEVELS,RADIX, not '{}'", a.fat_tree));
  label = fmt::format("{}-level fat tree, radix {}", levels, radix);
  return sim::make_fat_tree(levels, radix);
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) {
    fmt::print(stderr, "fabricsm sim: cannot write {}\n", path);
    return false;
  }
  return true;
}

}  // namespace

int cmd_sim(int argc, char** argv) {
  Args a;
  po::options_description opts(
      "fabricsm sim [options]\n\nRuns the SM against a simulated fabric until SUBNET UP, then walks "
      "the simulated switches' LFTs for every CA pair.\nExit status 0 only when the subnet is up "
      "and every pair is routed.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("topology,t", po::value(&a.topology), "net file (ibnetdiscover/ibsim format)")
      ("fat-tree", po::value(&a.fat_tree), "generate a k-ary fat tree: LEVELS,RADIX (default 3,16)")
      ("routing,R", po::value(&a.run.engine)->default_value(a.run.engine), "routing engine or chain, e.g. ftree,updn,minhop ('help' lists the engines)")
      ("compare", po::value(&a.compare), "run each engine of a list (e.g. minhop,updn,ftree) on the same fabric and compare their metrics")
      ("metrics", po::bool_switch(&a.run.metrics), "measure link loads, shift congestion, stretch and deadlock freedom, beside the fabric's cut lower bounds of the loads")
      ("perfmgr", po::value(&a.run.counter_sweeps)->implicit_value(2), "after SUBNET UP, N counter sweeps of every port (default 2: the first reads every port, the next what moved)")
      ("steady", po::value(&a.run.steady_s), "after SUBNET UP, run the SM on for SECONDS of simulated time (its sweeps, counter sweeps with --perfmgr) and report how long its loop's turns took (wall): a MAD arriving in a turn waits for its end")
      ("resweep", po::bool_switch(&a.run.resweep), "with --steady: a heavy sweep as the steady time begins (as `fabricsm status --resweep`), its loop turns timed")
      ("flaps", po::value(&a.run.flaps), "with --steady: N switch-to-switch cables taken down one after another through the steady time, each up again half-way to the next (link traps, incremental sweeps), the loop turns timed")
      ("link-loads", po::value(&a.link_loads), "write per-link all-to-all loads to this CSV file (implies --metrics)")
      ("plot", po::value(&a.plot), "draw the link-load distribution of each engine to this SVG file (implies --metrics); with --traffic, the links' utilisation")
      ("db", po::value(&a.run.db), "SQLite store: commit every sweep; an existing one gives its LIDs back")
      ("sm-node", po::value(&a.run.sm_node), "node the SM is attached to (default: the first node, as ibsim)")
      ("window", po::value(&a.run.window)->default_value(a.run.window), "SMPs in flight")
      ("lmc", po::value(&a.run.lmc)->default_value(a.run.lmc), "LID mask control: 2^lmc LIDs per CA port (0..7)")
      ("loss", po::value(&a.run.loss)->default_value(a.run.loss), "fraction of MADs lost")
      ("seed", po::value(&a.run.seed)->default_value(a.run.seed), "seed for losses, random traffic patterns and bisections, adaptive ties")
      ("traffic", po::value(&a.run.traffic.pattern), "after SUBNET UP, run a traffic pattern over the switches' LFTs: all-to-all, shift:K, "
                                                     "random-permutation, random-bisection (EBB), allreduce-ring[:random], allreduce-rd[:random], incast:N, file:PATH")
      ("message-size", po::value(&a.message_size)->default_value(a.message_size), "bytes per flow for the completion time")
      ("bisections", po::value(&a.bisections)->default_value(a.bisections), "random-bisection: bisections the EBB is the mean of")
      ("adaptive", po::bool_switch(&a.run.traffic.adaptive), "with --traffic: every switch routes adaptively over the AR groups (the engine's, else adaptive-hint's)")
      ("adapt", po::value(&a.run.adapt_rounds)->implicit_value(3), "with --traffic and -R adaptive-hint: close the loop for up to N rounds (default 3): the PerfMgr reads the counters the traffic moves, traffic hints move routes off hot channels, the traffic runs again over the new tables")
      ("max-sweeps", po::value(&a.run.max_sweeps)->default_value(a.run.max_sweeps), "give up after this many sweeps")
      ("m-key-secret-file", po::value(&a.secret_file), "M_Key protection: per-port keys from this secret file (mode 0600), as m_key_secret_file")
      ("m-key-protection-level", po::value(&a.protect)->default_value(a.protect), "M_KeyProtectBits with --m-key-secret-file: 0 or 1")
      ("import-lfts", po::value(&a.import_lfts), "after SUBNET UP, replace the SM's LIDs and LFTs by this dump (dump_fts output, OpenSM's opensm-lfts.dmp) and score those; in --compare, an entry lfts:FILE does it")
      ("import-sls", po::value(&a.import_sls), "with --import-lfts: the per-VL deadlock check takes the SLs and SL-to-VL tables of this file (lines \"path SLID DLID SL\", \"sl2vl SWITCH_GUID IN OUT VL0 .. VL15\": saquery PR and smpquery sl2vl read elsewhere) instead of the SA's; in --compare, an entry lfts:FILE+sls:FILE")
      ("serve", po::value(&a.serve), "after the run, serve the web view of the simulated fabric at HOST:PORT (or PORT on 127.0.0.1) until SIGINT/SIGTERM")
      ("web-token-file", po::value(&a.token_file), "--serve: the access token every request must carry (a file of mode 0600); needed off loopback")
      ("log-level", po::value(&a.log_level)->default_value(a.log_level), "error, warn, info or debug")
      ("json", po::bool_switch(&a.json), "print the summary as one JSON object");
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
    if (const std::string w = stray_word(parsed); !w.empty())
      throw po::error(fmt::format("unexpected argument '{}'", w));
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm sim: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (a.run.engine == "help") {
    std::cout << routing::engine_listing();
    return 0;
  }
  bool level_ok = false;
  a.run.log_level = sm::parse_level(a.log_level, &level_ok);
  std::string bad;
  if (!a.topology.empty() && !a.fat_tree.empty()) bad = "give --topology or --fat-tree, not both";
  else if (!level_ok) bad = fmt::format("bad --log-level '{}'", a.log_level);
  else if (a.run.window < 1) bad = fmt::format("--window {}: must be 1 or more", a.run.window);
  else if (a.run.lmc < 0 || a.run.lmc > 7) bad = fmt::format("--lmc {}: must be 0..7", a.run.lmc);
  else if (!(a.run.loss >= 0 && a.run.loss < 1)) bad = fmt::format("--loss {}: must be in [0, 1)", a.run.loss);
  else if (a.run.max_sweeps < 1) bad = fmt::format("--max-sweeps {}: must be 1 or more", a.run.max_sweeps);
  else if (a.protect < 0 || a.protect > 1)
    bad = fmt::format("--m-key-protection-level {}: 0 or 1 with per-port keys", a.protect);
  else if (!(a.run.steady_s >= 0 && a.run.steady_s <= 86400))
    bad = fmt::format("--steady {}: must be 0..86400 seconds", a.run.steady_s);
  else if (a.run.resweep && a.run.steady_s <= 0)
    bad = "--resweep: needs --steady SECONDS (the time it is timed over)";
  else if (a.run.flaps < 0 || a.run.flaps > 10000) bad = fmt::format("--flaps {}: must be 0..10000", a.run.flaps);
  else if (a.run.flaps > 0 && a.run.steady_s <= 0) bad = "--flaps: needs --steady SECONDS (the time the flaps are spread over)";
  else if (vm.count("perfmgr") && a.run.counter_sweeps < 1)
    bad = fmt::format("--perfmgr {}: must be 1 or more", a.run.counter_sweeps);
  else if (!a.serve.empty() && !a.compare.empty()) bad = "--serve shows one run: not with --compare";
  else if (!a.token_file.empty() && a.serve.empty()) bad = "--web-token-file goes with --serve";
  else if (!(a.message_size > 0) || !std::isfinite(a.message_size))
    bad = fmt::format("--message-size {}: must be above 0", a.message_size);
  else if (a.bisections < 1) bad = fmt::format("--bisections {}: must be 1 or more", a.bisections);
  else if (a.run.traffic.pattern.empty() && a.run.traffic.adaptive) bad = "--adaptive needs --traffic";
  else if (vm.count("adapt") && a.run.adapt_rounds < 1) bad = "--adapt: 1 round or more";
  else if (a.run.adapt_rounds > 0 && a.run.traffic.pattern.empty()) bad = "--adapt needs --traffic";
  else if (a.run.adapt_rounds > 0 && (a.run.engine != "adaptive-hint" || !a.compare.empty()))
    bad = "--adapt re-routes with traffic hints: it needs --routing adaptive-hint (and no --compare)";
  else if (a.run.adapt_rounds > 0 && a.run.traffic.adaptive)
    bad = "--adapt moves the static routes: not with --adaptive switches";
  else if (!a.run.traffic.pattern.empty())
    if (auto p = sim::traffic::parse_pattern(a.run.traffic.pattern); !p) bad = p.error().message;
  SimServeOptions serve;
  if (bad.empty() && !a.serve.empty()) {
    auto at = parse_listen_address(a.serve);
    if (!at) bad = fmt::format("--serve {}: {}", a.serve, at.error().message);
    else serve.at = *at;
  }
  std::vector<std::string> engines;
  if (bad.empty()) {
    if (a.compare.empty()) {
      engines.push_back(a.run.engine);
    } else {
      engines = split_list(a.compare, true);  // engines (each checked below) and lfts:FILE dumps
    }
    if (!a.import_lfts.empty()) {
      if (!a.compare.empty()) bad = "--import-lfts: in --compare, name the dump as an entry lfts:FILE";
      else engines = {"lfts:" + a.import_lfts + (a.import_sls.empty() ? "" : "+sls:" + a.import_sls)};
    } else if (!a.import_sls.empty() && bad.empty()) {
      bad = "--import-sls goes with --import-lfts: its SLIDs and DLIDs are the dump's LIDs";
    }
    for (const auto& e : engines)
      if (e.starts_with("lfts:")) {
        if ((e.size() == 5 || e.starts_with("lfts:+sls:")) && bad.empty()) bad = "lfts: names a dump file (lfts:FILE)";
        if (const size_t at = e.find("+sls:"); at != std::string::npos && at + 5 == e.size() && bad.empty())
          bad = "+sls: names an SL file (lfts:FILE+sls:FILE)";
        // Both address ports by this SM's LIDs, which the dump replaces.
        if (bad.empty() && (a.run.counter_sweeps > 0 || a.run.traffic.adaptive || a.run.adapt_rounds > 0))
          bad = "an imported dump (--import-lfts, lfts:) goes without --perfmgr, --adaptive and --adapt: they need this SM's LIDs";
      } else if (auto c = routing::parse_chain(e); !c && bad.empty()) {
        bad = c.error().message;
      }
  }
  if (!bad.empty()) {
    fmt::print(stderr, "fabricsm sim: {}\n", bad);
    return kExitUsage;
  }
  if (!a.secret_file.empty()) {
    auto secret = sm::mkey::read_secret_file(a.secret_file);
    if (!secret) {
      fmt::print(stderr, "fabricsm sim: {}\n", secret.error().message);
      return 1;
    }
    a.run.m_key_secret = std::move(*secret);
  }
  a.run.m_key_protect = static_cast<uint8_t>(a.protect);
  if (!a.token_file.empty()) {
    auto token = read_web_token(a.token_file);
    if (!token) {
      fmt::print(stderr, "fabricsm sim: --web-token-file: {}\n", token.error().message);
      return 1;
    }
    serve.token = std::move(*token);
  }
  if (!a.serve.empty() && !serve.at.loopback && serve.token.empty()) {
    fmt::print(stderr, "fabricsm sim: --serve {} is not a loopback address: give --web-token-file too\n", serve.at.str());
    return kExitUsage;
  }
  if (!a.serve.empty())
    a.run.serve = [serve](const service::Service& svc, const sim::SimFabric& f, const SimOutcome& out) {
      return serve_sim(svc, f, out, serve);
    };
  a.run.traffic.message_bytes = a.message_size;
  a.run.traffic.bisections = static_cast<size_t>(a.bisections);
  a.run.traffic.seed = a.run.seed;
  if (!a.link_loads.empty() || !a.plot.empty()) a.run.metrics = a.run.link_loads = true;
  if (!a.compare.empty()) a.run.metrics = true;
  a.run.progress = isatty(STDERR_FILENO) != 0;

  std::string label;
  auto spec = load_spec(a, label);
  if (!spec) {  // a --fat-tree that cannot be built is a usage error; a net file that cannot be read is not
    fmt::print(stderr, "fabricsm sim: {}\n", spec.error().message);
    return spec.error().code == mad::Errc::invalid ? kExitUsage : 1;
  }
  if (!a.run.traffic.pattern.empty()) {  // a flows file is read before anything runs
    if (auto p = check_pattern(a.run.traffic.pattern, *spec); !p) {
      fmt::print(stderr, "fabricsm sim: {}\n", p.error().message);
      return 1;
    }
  }
  std::vector<SimOutcome> runs;
  for (const auto& engine : engines) {
    SimRunOptions o = a.run;
    o.engine = engine;
    o.bounds = runs.empty();  // the same fabric for every engine: its bounds once
    if (engine.starts_with("lfts:")) {  // brought up by the default chain, then the dump's routes
      o.engine = a.run.engine;
      o.import_lfts = engine.substr(5);
      if (const size_t at = o.import_lfts.find("+sls:"); at != std::string::npos) {
        o.import_sls = o.import_lfts.substr(at + 5);
        o.import_lfts.resize(at);
      }
    }
    auto r = run_sim(*spec, o);
    if (!r) {
      fmt::print(stderr, "fabricsm sim: {}\n", r.error().message);
      return 1;
    }
    if (r->imported) {  // lfts:FILE names the column, not the chain that brought the fabric up
      r->engine = "lfts:" + std::filesystem::path(o.import_lfts).filename().string();
      r->sweep.engine = "(imported)";
    }
    runs.push_back(std::move(*r));
  }
  const long rss = peak_rss_kb();
  if (a.json) {
    fmt::print("{}\n", json_summary(label, runs, rss));
  } else if (runs.size() == 1) {
    fmt::print("{}", text_summary(label, runs.front(), rss));
  } else {
    fmt::print("{}", text_comparison(label, runs));
  }
  if (!a.link_loads.empty() && !write_file(a.link_loads, csv_link_loads(runs))) return 1;
  if (!a.plot.empty()) {
    std::vector<LoadSeries> series;
    const bool traffic = !a.run.traffic.pattern.empty();
    for (const auto& o : runs) {
      LoadSeries s{o.engine, {}, o.up ? "" : "failed"};
      if (traffic && o.traffic) {  // every channel's utilisation, the idle ones too
        for (const auto& p : o.traffic->ports) s.loads.push_back(p.utilisation);
        s.loads.resize(std::max(s.loads.size(), o.traffic->channels), 0.0);
      } else {
        for (const auto& l : o.links) s.loads.push_back(static_cast<double>(l.routes));
      }
      series.push_back(std::move(s));
    }
    const std::string svg =
        traffic ? svg_load_plot(fmt::format("Link utilisation under {}: {}", a.run.traffic.pattern, label), series,
                                PlotAxes{.x = "directed links (CA links included), busiest first (share of all)",
                                         .y = "utilisation (share of the link rate)", .decimals = 1})
                : svg_load_plot(fmt::format("All-to-all link loads: {}", label), series);
    if (!write_file(a.plot, svg)) return 1;
  }
  bool ok = true;
  for (const auto& o : runs) ok = ok && o.ok();
  return ok ? 0 : 1;
}

}  // namespace cli
