// bench/reroute: how fast and how quietly the SM re-routes around a failed link on the
// 3-level radix-32 fat tree (9,472 nodes) in the simulator. For a link in each tier it cuts
// the link, lets the SM react to the traps, and prints: SM time (wall clock of the reaction,
// coalescing window included on the fabric clock), LFT blocks written against a full
// reprogram, SMPs, and that every pair is routed again; then the same for the link's return.
// The SM time is split into its phases (discovery = re-reading the trapped switches and the
// topology snapshot, routing = repair or full route, programming = planning the diff and
// writing it). CPU ms is the process's CPU time from the fault to the end of the reaction's
// last sweep (SM and simulator together): on a busy machine, a steadier figure than wall.
// Usage: reroute [RADIX [ENGINE [--full] [-v]]]; --full: repair off, every sweep routes in full.
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <string>

#include "sim/verifier.h"
#include "bench/sim_fat_tree.h"
#include "mad/reactor.h"
#include "sm/subnet_manager.h"

namespace {

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Reaction {
  double wall_ms = 0, fabric_ms = 0, cpu_ms = 0, cpu_done = 0;
  double discovery_ms = 0, lids_ms = 0, routing_ms = 0, programming_ms = 0;
  bool repaired = false;
  mad::Nanos done{0};  // fabric clock at the end of the last sweep
  uint64_t blocks = 0, smps = 0, sweeps = 0, heavy = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const unsigned radix = argc > 1 ? static_cast<unsigned>(std::stoul(argv[1])) : 32;
  const std::string engine = argc > 2 ? argv[2] : "ftree";
  auto tree = bench::SimFatTree::make(radix);
  if (!tree) return 1;
  sim::SimFabric* fabric = tree->fabric.get();
  sim::SimTransport& t = *tree->transport;
  bool verbose = false, full_routes = false;
  for (int i = 3; i < argc; ++i) (std::string(argv[i]) == "--full" ? full_routes : verbose) = true;
  sm::Logger log(verbose ? sm::Level::info : sm::Level::warn);
  sm::SmConfig cfg;
  cfg.routing_engine = engine;
  cfg.repair_routes = !full_routes;
  sm::SubnetManager m(t, cfg, log);
  m.start();
  (void)mad::run_loop(m, t, [&] { return !m.sweeping() && m.subnet_up(); });
  uint64_t full = 0;
  for (const auto& n : fabric->nodes())
    if (n.is_switch()) full += n.sw->lft.size() / 64;
  fmt::print("3-level fat tree radix {} ({} nodes), {}{}: a full reprogram is {} LFT blocks\n", radix,
             fabric->nodes().size(), engine, full_routes ? " (repair off)" : "", full);
  fmt::print("{:<26} {:>8} {:>30} {:>7} {:>10} {:>7} {:>7} {:>6} {:>6} {}\n", "event", "SM ms",
             "(disc / LIDs / route / prog)", "CPU ms", "fabric ms", "blocks", "% full", "SMPs", "sweeps",
             "all pairs routed");

  Reaction cur;
  m.on_sweep_done = [&](const std::shared_ptr<const sm::Subnet>& s) {
    const sm::SweepReport& r = s->sweep;
    cur.wall_ms += r.total.wall_ms;
    cur.discovery_ms += r.discovery.wall_ms;
    cur.lids_ms += r.lid_assignment.wall_ms;
    cur.routing_ms += r.routing.wall_ms;
    cur.programming_ms += r.programming.wall_ms;
    cur.repaired = cur.repaired || r.repaired;
    cur.blocks += r.program.lft_blocks_written;
    cur.smps += r.smps_sent;
    ++cur.sweeps;
    cur.heavy += r.heavy ? 1 : 0;
    cur.done = t.clock().now();
    cur.cpu_done = cpu_ms();
  };
  auto react = [&](const std::string& what, auto fault) {
    cur = Reaction{};
    const mad::Nanos t0 = t.clock().now();
    const double cpu0 = cpu_ms();
    if (auto r = fault(); !r) {
      fmt::print(stderr, "{}: {}\n", what, r.error().message);
      return;
    }
    const mad::Nanos end = t0 + std::chrono::seconds(2);
    (void)mad::run_loop(m, t, [&] { return t.clock().now() >= end && !m.sweeping(); });
    cur.cpu_ms = cur.cpu_done - cpu0;
    cur.fabric_ms = static_cast<double>((cur.done - t0).count()) / 1e6;
    const auto v = sim::verify_routing(*fabric);
    const std::string phases = fmt::format("{:.1f} / {:.1f} / {:.1f}{} / {:.1f}", cur.discovery_ms, cur.lids_ms,
                                           cur.routing_ms, cur.repaired ? "r" : "", cur.programming_ms);
    fmt::print("{:<26} {:>8.1f} {:>30} {:>7.1f} {:>10.2f} {:>7} {:>6.2f}% {:>6} {:>6} {}\n", what, cur.wall_ms,
               phases, cur.cpu_ms, cur.fabric_ms, cur.blocks, 100.0 * static_cast<double>(cur.blocks) / static_cast<double>(full),
               cur.smps, cur.sweeps, v.all_routed() && v.ports_not_active == 0 ? "yes" : "NO");
  };
  struct Cut {
    std::string label, node;
    uint8_t port;
  };
  const std::string pod = radix >= 20 ? "_00_00" : "_00_00";
  const uint8_t up = static_cast<uint8_t>(radix / 2 + 1);
  for (const Cut& c : {Cut{"leaf uplink", "S1" + pod, up}, Cut{"aggregation uplink", "S2" + pod, up}}) {
    const auto node = fabric->find(c.node);
    if (!node) continue;
    react(c.label + " down", [&] { return fabric->link_down(*node, c.port); });
    react(c.label + " back", [&] { return fabric->link_up(*node, c.port); });
  }
  return 0;
}
