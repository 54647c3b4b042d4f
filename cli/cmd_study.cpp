// fabricsm study: failure campaigns for routing research (the fail-in-place workflow of Domke
// et al., SC14, without patching ibsim or OpenSM): fabrics x fractions of links failed x seeds x
// engines x traffic patterns, each a whole `fabricsm sim` run (bring-up, verifier, metrics,
// traffic), run in parallel over the cores; one CSV row per run in a fixed order whatever the
// threads did, and an SVG of EBB (or the mean flow rate) against the failures, per engine.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "cli/commands.h"
#include "cli/sim_run.h"
#include "cli/study_plot.h"
#include "cli/usage.h"
#include "routing/engine.h"
#include "sim/generators.h"
#include "sim/netfile.h"
#include "sim/traffic/patterns.h"

namespace po = boost::program_options;

namespace cli {

namespace {

struct StudyRun {
  size_t fabric;
  double fail;
  uint64_t seed;
  std::string engine, pattern;
  bool adaptive;
};

struct StudyRow {
  size_t links_failed = 0;
  std::optional<SimOutcome> out;
  std::string error;
  double wall_s = 0;
};

mad::Result<sim::FabricSpec> load_fabric(const std::string& f) {
  unsigned levels = 0, radix = 0;
  char extra = 0;
  if (std::sscanf(f.c_str(), "%u,%u%c", &levels, &radix, &extra) == 2) return sim::make_fat_tree(levels, radix);
  return sim::load_netfile(f);
}

// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string fixed(double v, int places) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, places) : ""; }

// The CSV's row of one run (the header names the columns).
constexpr const char* kHeader =
    "fabric,failed_fraction,links_failed,seed,engine,pattern,adaptive,subnet_up,unrouted_pairs,ebb,ebb_min,ebb_max,"
    "mean_flow_rate,throughput_gbps,completion_ms,max_link_load,shift_congestion,deadlock_free,routing_ms,wall_s";

std::string csv_row(const std::string& fabric, const StudyRun& r, const StudyRow& row) {
  std::string s = fmt::format("{},{},{},{},{},{},{}", csv_field(fabric), r.fail, row.links_failed, r.seed,
                              csv_field(r.engine), csv_field(r.pattern),
                              r.adaptive ? 1 : 0);
  if (!row.out) return s + ",error,,,,,,,,,,,," + fixed(row.wall_s, 2);
  const SimOutcome& o = *row.out;
  const auto& t = o.traffic;
  const auto* e = t && t->ebb ? &*t->ebb : nullptr;
  s += fmt::format(",{},{},{},{},{},{},{},{},{}", o.up ? 1 : 0, o.verify.unrouted + o.verify.loops,
                   e ? fixed(e->mean, 4) : "", e ? fixed(e->min, 4) : "", e ? fixed(e->max, 4) : "",
                   t ? fixed(t->result.mean_rate, 4) : "", t ? fixed(t->result.aggregate_gbps, 1) : "",
                   t ? fixed(t->result.completion_s * 1e3, 4) : "", o.metrics ? std::to_string(o.metrics->max_link_load) : "");
  s += fmt::format(",{},{},{},{}", o.metrics ? fixed(o.metrics->shift_congestion, 3) : "",
                   o.metrics ? (o.metrics->cdg_acyclic ? "1" : "0") : "", fixed(o.sweep.routing.wall_ms, 1),
                   fixed(row.wall_s, 2));
  return s;
}

}  // namespace

int cmd_study(int argc, char** argv) {
  std::vector<std::string> fabrics;
  std::string fail = "0", engines = "ftree,updn", patterns = "random-bisection", csv, plot;
  int seeds = 3, bisections = 20, jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool adaptive = false;
  double message_size = 1 << 20;
  po::options_description opts(
      "fabricsm study --fabric FILE|LEVELS,RADIX [--fabric ...] [--fail F1,F2,...] [--seeds N]\n"
      "               [--engines E1,E2,...] [--patterns P1,...] [--bisections N] [--adaptive]\n"
      "               [--jobs N] [--csv FILE] [--plot FILE.svg]\n\n"
      "A failure campaign: every fabric with each fraction of its switch-to-switch links failed\n"
      "(seeded), each engine and traffic pattern, as `fabricsm sim` runs them; one CSV row per run.\n\nOptions");
  opts.add_options()("help,h", "this help")(
      "fabric", po::value(&fabrics), "a net file, or LEVELS,RADIX for a generated fat tree (repeat for several)")(
      "fail", po::value(&fail)->default_value(fail), "fractions of the switch-to-switch links failed, e.g. 0,0.01,0.05")(
      "seeds", po::value(&seeds)->default_value(seeds), "seeds per fraction (which links fail, which bisections)")(
      "engines", po::value(&engines)->default_value(engines), "routing engines, each run on its own")(
      "patterns", po::value(&patterns)->default_value(patterns), "traffic patterns, as sim --traffic names them")(
      "bisections", po::value(&bisections)->default_value(bisections), "random-bisection: bisections per EBB")(
      "message-size", po::value(&message_size)->default_value(message_size), "bytes per flow, for completion times")(
      "adaptive", po::bool_switch(&adaptive), "each run also with adaptive switches (fed adaptive-hint's groups)")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "runs at once")(
      "csv", po::value(&csv), "write the rows here (default: standard output)")(
      "plot", po::value(&plot), "draw EBB (or the mean flow rate) against the failed fraction to this SVG file");
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
    if (const std::string w = stray_word(parsed); !w.empty()) throw po::error(fmt::format("unexpected argument '{}'", w));
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm study: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  auto usage = [](const std::string& m) {
    fmt::print(stderr, "fabricsm study: {}\n", m);
    return kExitUsage;
  };
  if (fabrics.empty()) return usage("give at least one --fabric (a net file, or LEVELS,RADIX)");
  std::vector<double> fails;
  for (const auto& f : split_list(fail)) {
    char* end = nullptr;
    const double v = std::strtod(f.c_str(), &end);
    if (*end != '\0' || !(v >= 0 && v < 1)) return usage(fmt::format("--fail {}: fractions in [0, 1)", f));
    fails.push_back(v);
  }
  if (fails.empty()) return usage("--fail: at least one fraction");
  if (seeds < 1 || bisections < 1 || jobs < 1) return usage("--seeds, --bisections and --jobs: 1 or more");
  if (!(message_size > 0)) return usage("--message-size: above 0");
  const auto engine_list = split_list(engines), pattern_list = split_list(patterns);
  if (engine_list.empty() || pattern_list.empty()) return usage("--engines and --patterns: at least one each");
  for (const auto& e : engine_list)
    if (auto c = routing::parse_chain(e); !c) return usage(c.error().message);
  for (const auto& p : pattern_list)
    if (auto c = sim::traffic::parse_pattern(p); !c) return usage(c.error().message);
  std::vector<sim::FabricSpec> specs;
  for (const auto& f : fabrics) {
    auto s = load_fabric(f);
    if (!s) {
      fmt::print(stderr, "fabricsm study: {}\n", s.error().message);
      return s.error().code == mad::Errc::invalid ? kExitUsage : 1;
    }
    specs.push_back(std::move(*s));
  }

  std::vector<StudyRun> runs;
  for (size_t fi = 0; fi < specs.size(); ++fi)
    for (double fr : fails)
      for (int sd = 1; sd <= seeds; ++sd)
        for (const auto& e : engine_list)
          for (const auto& p : pattern_list)
            for (bool ar : adaptive ? std::vector<bool>{false, true} : std::vector<bool>{false})
              runs.push_back({fi, fr, static_cast<uint64_t>(sd), e, p, ar});
  std::vector<StudyRow> rows(runs.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < runs.size();) {
      const StudyRun& r = runs[i];
      const auto t0 = std::chrono::steady_clock::now();
      sim::FabricSpec spec = specs[r.fabric];
      if (r.fail > 0) {
        auto n = sim::drop_switch_links(spec, r.fail, r.seed);
        if (!n) {
          rows[i].error = n.error().message;
          continue;
        }
        rows[i].links_failed = *n;
      }
      SimRunOptions o;
      o.engine = r.engine;
      o.seed = r.seed;
      o.metrics = true;
      o.log_level = sm::Level::error;
      o.traffic = {.pattern = r.pattern, .message_bytes = message_size, .bisections = static_cast<size_t>(bisections),
                   .seed = r.seed, .adaptive = r.adaptive};
      auto out = run_sim(spec, o);
      if (out) rows[i].out = std::move(*out);
      else rows[i].error = out.error().message;
      rows[i].wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const size_t n = done.fetch_add(1) + 1;
      if (tty) fmt::print(stderr, "\rfabricsm study: {}/{} runs", n, runs.size());
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::min<int>(jobs, static_cast<int>(runs.size())); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (tty) fmt::print(stderr, "\n");

  std::string text = std::string(kHeader) + "\n";
  int errors = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    text += csv_row(fabrics[runs[i].fabric], runs[i], rows[i]) + "\n";
    if (!rows[i].error.empty()) {
      ++errors;
      fmt::print(stderr, "fabricsm study: run {} ({} {} fail {} seed {}): {}\n", i + 1, runs[i].engine, fabrics[runs[i].fabric],
                 runs[i].fail, runs[i].seed, rows[i].error);
    }
  }
  if (csv.empty()) {
    fmt::print("{}", text);
  } else {
    std::ofstream f(csv, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) return fmt::print(stderr, "fabricsm study: cannot write {}\n", csv), 1;
  }
  if (!plot.empty()) {
    // Per series (engine, +AR, pattern and fabric where several), per fraction: over the seeds.
    std::map<std::string, std::map<double, std::vector<double>>> acc;
    bool all_ebb = true;
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto& o = rows[i].out;
      if (!o || !o->traffic) continue;
      const StudyRun& r = runs[i];
      std::string key = r.engine + (r.adaptive ? "+AR" : "");
      if (pattern_list.size() > 1) key += " " + r.pattern;
      if (fabrics.size() > 1) key += " " + std::filesystem::path(fabrics[r.fabric]).filename().string();
      all_ebb = all_ebb && o->traffic->ebb.has_value();
      acc[key][r.fail].push_back(o->traffic->ebb ? o->traffic->ebb->mean : o->traffic->result.mean_rate);
    }
    std::vector<StudySeries> series;
    for (const auto& [label, by_fail] : acc) {
      StudySeries s{label, {}};
      for (const auto& [x, ys] : by_fail) {
        double sum = 0;
        for (double y : ys) sum += y;
        s.points.push_back({x, sum / static_cast<double>(ys.size()), *std::min_element(ys.begin(), ys.end()),
                            *std::max_element(ys.begin(), ys.end())});
      }
      series.push_back(std::move(s));
    }
    std::ofstream f(plot, std::ios::binary | std::ios::trunc);
    f << svg_study_plot(fmt::format("{} against failed links ({} seed(s))", all_ebb ? "EBB" : "Mean flow rate", seeds),
                        all_ebb ? "effective bisection bandwidth" : "mean flow rate / link rate", series);
    if (!f) return fmt::print(stderr, "fabricsm study: cannot write {}\n", plot), 1;
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace cli
