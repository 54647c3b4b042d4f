// fabricsm sim: the whole SM against the in-process simulated fabric, then the simulator's
// own verifier over the switches' LFTs, and a summary (text or one JSON object).
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>

#include "sim/generators.h"
#include "sim/netfile.h"
#include "sim/sim_transport.h"
#include "sim/verifier.h"
#include "sm/cli/commands.h"
#include "sm/cli/progress.h"
#include "sm/event_loop.h"
#include "sm/subnet_manager.h"

namespace po = boost::program_options;

namespace cli {

namespace {

struct SimArgs {
  std::string topology;
  std::string fat_tree;  // "LEVELS,RADIX"
  std::string routing = "minhop";
  std::string sm_node;
  std::string log_level = "warn";
  bool json = false;
  int window = 256;
  double loss = 0.0;
  uint64_t seed = 1;
  int max_sweeps = 5;
};

long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

mad::Result<sim::FabricSpec> load_spec(const SimArgs& a, std::string& label) {
  if (!a.topology.empty()) {
    label = a.topology;
    return sim::load_netfile(a.topology);
  }
  unsigned levels = 3, radix = 16;  // the built-in default: 320 switches, 1,024 CAs
  if (!a.fat_tree.empty() && std::sscanf(a.fat_tree.c_str(), "%u,%u", &levels, &radix) != 2)
    return mad::fail(mad::Errc::parse, fmt::format("--fat-tree wants LEVELS,RADIX, not '{}'", a.fat_tree));
  label = fmt::format("{}-level fat tree, radix {}", levels, radix);
  return sim::make_fat_tree(levels, radix);
}

std::string json_summary(const SimArgs& a, const std::string& label, const sm::SweepReport& r,
                         const mad::TransactionStats& mads, const sim::VerifyReport& v,
                         bool up, double sm_s, double verify_s, double build_s, long rss_kb) {
  auto phase = [](const sm::PhaseTime& p) {
    return fmt::format("{{\"wall_ms\": {:.3f}, \"fabric_ms\": {:.3f}}}", p.wall_ms, p.fabric_ms);
  };
  return fmt::format(
      "{{\"fabric\": \"{}\", \"routing\": \"{}\", \"switches\": {}, \"cas\": {}, \"links\": {}, "
      "\"lids\": {}, \"max_lid\": {}, \"subnet_up\": {}, \"sweeps\": {}, \"pairs\": {}, "
      "\"routed\": {}, \"unrouted\": {}, \"loops\": {}, \"ports_not_active\": {}, "
      "\"max_hops\": {}, \"mean_hops\": {:.4f}, "
      "\"mads\": {{\"sent\": {}, \"retried\": {}, \"lost\": {}, \"per_second\": {:.0f}}}, "
      "\"lft_blocks_written\": {}, \"port_sets\": {}, "
      "\"phases\": {{\"discovery\": {}, \"lids\": {}, \"routing\": {}, \"programming\": {}, "
      "\"verify\": {{\"wall_ms\": {:.3f}}}}}, "
      "\"build_s\": {:.3f}, \"sm_s\": {:.3f}, \"wall_s\": {:.3f}, \"peak_rss_kb\": {}}}",
      label, a.routing, r.switches, r.cas, r.links, r.lids.lids.size(), r.max_lid, up ? "true" : "false",
      r.number, v.pairs, v.routed, v.unrouted, v.loops, v.ports_not_active, v.max_hops, v.mean_hops,
      mads.sent, mads.retried, mads.timed_out, sm_s > 0 ? static_cast<double>(mads.sent) / sm_s : 0.0,
      r.program.lft_blocks_written, r.program.port_sets, phase(r.discovery), phase(r.lid_assignment),
      phase(r.routing), phase(r.programming), verify_s * 1e3, build_s, sm_s,
      build_s + sm_s + verify_s, rss_kb);
}

}  // namespace

int cmd_sim(int argc, char** argv) {
  SimArgs a;
  po::options_description opts("fabricsm sim [options]\n\nRuns the SM against a simulated "
                               "fabric until SUBNET UP, then walks the simulated switches' LFTs "
                               "for every CA pair.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("topology,t", po::value(&a.topology), "net file (ibnetdiscover/ibsim format)")
      ("fat-tree", po::value(&a.fat_tree), "generate a k-ary fat tree: LEVELS,RADIX (default 3,16)")
      ("routing,R", po::value(&a.routing)->default_value(a.routing), "routing engine or chain, e.g. ftree,updn,minhop")
      ("sm-node", po::value(&a.sm_node), "node the SM is attached to (default: the first node, as ibsim)")
      ("window", po::value(&a.window)->default_value(a.window), "SMPs in flight")
      ("loss", po::value(&a.loss)->default_value(a.loss), "fraction of MADs lost on every link traversal")
      ("seed", po::value(&a.seed)->default_value(a.seed), "seed for losses")
      ("max-sweeps", po::value(&a.max_sweeps)->default_value(a.max_sweeps), "give up after this many sweeps")
      ("log-level", po::value(&a.log_level)->default_value(a.log_level), "error, warn, info or debug")
      ("json", po::bool_switch(&a.json), "print the summary as one JSON object");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm sim: {}\n", e.what());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (!a.topology.empty() && !a.fat_tree.empty()) {
    fmt::print(stderr, "fabricsm sim: give --topology or --fat-tree, not both\n");
    return 2;
  }
  bool level_ok = false;
  sm::Logger log(sm::parse_level(a.log_level, &level_ok));
  if (!level_ok) {
    fmt::print(stderr, "fabricsm sim: bad --log-level '{}'\n", a.log_level);
    return 2;
  }
  if (a.window < 1 || a.loss < 0 || a.loss >= 1 || a.max_sweeps < 1) {
    fmt::print(stderr, "fabricsm sim: --window must be >= 1, --loss in [0, 1), --max-sweeps >= 1\n");
    return 2;
  }
  if (auto chain = routing::parse_chain(a.routing); !chain) {
    fmt::print(stderr, "fabricsm sim: {}\n", chain.error().message);
    return 2;
  }

  const auto t_build = std::chrono::steady_clock::now();
  std::string label;
  auto spec = load_spec(a, label);
  if (!spec) {
    fmt::print(stderr, "fabricsm sim: {}\n", spec.error().message);
    return 1;
  }
  std::string first_name = spec->nodes.empty() ? "" : spec->nodes.front().name;
  auto fabric = sim::SimFabric::build(std::move(*spec), sim::SimConfig{.drop_rate = a.loss, .seed = a.seed});
  if (!fabric) {
    fmt::print(stderr, "fabricsm sim: {}\n", fabric.error().message);
    return 1;
  }
  sim::SimFabric& f = **fabric;
  const std::string sm_name = a.sm_node.empty() ? first_name : a.sm_node;
  auto sm_at = f.find(sm_name);
  if (!sm_at) {
    fmt::print(stderr, "fabricsm sim: no node \"{}\" in the fabric\n", sm_name);
    return 1;
  }
  auto ep = f.attach(*sm_at, f.node(*sm_at).is_switch() ? 0 : 1);
  if (!ep) {
    fmt::print(stderr, "fabricsm sim: {}\n", ep.error().message);
    return 1;
  }
  f.set_is_sm(*ep, true);
  const double build_s = seconds_since(t_build);

  sim::SimTransport transport(f, *ep);
  sm::SmConfig cfg;
  cfg.routing_engine = a.routing;
  cfg.mads.window = a.window;
  sm::SubnetManager manager(transport, cfg, log);
  Progress progress(isatty(STDERR_FILENO) != 0);
  const auto t_sm = std::chrono::steady_clock::now();
  manager.start();
  auto loop = sm::run_loop(manager, transport, [&] {
    progress.update(manager);
    if (manager.sweeping()) return false;
    return manager.subnet_up() || manager.sweeps() >= static_cast<uint64_t>(a.max_sweeps);
  });
  const double sm_s = seconds_since(t_sm);
  progress.phase("verifying");
  const auto t_verify = std::chrono::steady_clock::now();
  const sim::VerifyReport v = sim::verify_routing(f);
  const double verify_s = seconds_since(t_verify);
  progress.done();
  if (!loop) log.error(107, "transport failed: {}", loop.error().message);

  const sm::SweepReport& r = manager.last_sweep();
  const mad::TransactionStats& mads = manager.mad_stats();
  const bool up = manager.subnet_up();
  const long rss = peak_rss_kb();
  if (a.json) {
    fmt::print("{}\n", json_summary(a, label, r, mads, v, up, sm_s, verify_s, build_s, rss));
  } else {
    fmt::print("fabric      {}: {} switches, {} CAs, {} links (SM on {})\n", label, r.switches,
               r.cas, r.links, sm_name);
    fmt::print("subnet      {} after {} sweep(s); LIDs 1..{} ({} ports), routing {}\n",
               up ? "UP" : "NOT UP", r.number, r.max_lid, r.lids.lids.size(), r.engine);
    fmt::print("SMPs        {} sent, {} resent, {} lost for good; {:.0f} SMPs/s\n", mads.sent,
               mads.retried, mads.timed_out, sm_s > 0 ? static_cast<double>(mads.sent) / sm_s : 0.0);
    fmt::print("programmed  {} LFT blocks, {} port Sets, {} activations\n",
               r.program.lft_blocks_written, r.program.port_sets, r.program.activations);
    fmt::print("phases ms   discovery {:.1f}, LIDs {:.1f}, routing {:.1f}, programming {:.1f}, "
               "verify {:.1f}\n",
               r.discovery.wall_ms, r.lid_assignment.wall_ms, r.routing.wall_ms,
               r.programming.wall_ms, verify_s * 1e3);
    fmt::print("fabric time {:.1f} ms on the simulated clock\n", r.total.fabric_ms);
    fmt::print("verified    {} CA pairs: {} routed, {} unrouted, {} in loops; hops max {}, mean {:.2f}\n",
               v.pairs, v.routed, v.unrouted, v.loops, v.max_hops, v.mean_hops);
    for (const auto& s : v.samples) fmt::print("  {}\n", s);
    fmt::print("total       {:.2f} s wall (build {:.2f}, SM {:.2f}, verify {:.2f}), peak RSS {} MB\n",
               build_s + sm_s + verify_s, build_s, sm_s, verify_s, rss / 1024);
  }
  return up && v.all_routed() && v.ports_not_active == 0 ? 0 : 1;
}

}  // namespace cli
