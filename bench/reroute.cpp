// bench/reroute: how fast and how quietly the SM re-routes around a failed link on the
// 3-level radix-32 fat tree (9,472 nodes) in the simulator. For a link in each tier it cuts
// the link, lets the SM react to the traps, and prints: SM time (wall clock of the reaction,
// coalescing window included on the fabric clock), LFT blocks written against a full
// reprogram, SMPs, and that every pair is routed again; then the same for the link's return.
#include <fmt/format.h>

#include <chrono>
#include <string>

#include "sim/generators.h"
#include "sim/sim_transport.h"
#include "sim/verifier.h"
#include "sm/event_loop.h"
#include "sm/subnet_manager.h"

namespace {

struct Reaction {
  double wall_ms = 0, fabric_ms = 0;
  mad::Nanos done{0};  // fabric clock at the end of the last sweep
  uint64_t blocks = 0, smps = 0, sweeps = 0, heavy = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const unsigned radix = argc > 1 ? static_cast<unsigned>(std::stoul(argv[1])) : 32;
  const std::string engine = argc > 2 ? argv[2] : "ftree";
  auto spec = sim::make_fat_tree(3, radix);
  if (!spec) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return 1;
  }
  auto fabric = std::move(*sim::SimFabric::build(std::move(*spec)));
  auto ep = *fabric->attach(0, 1);
  fabric->set_is_sm(ep, true);
  sim::SimTransport t(*fabric, ep);
  sm::Logger log(argc > 3 ? sm::Level::info : sm::Level::warn);
  sm::SmConfig cfg;
  cfg.routing_engine = engine;
  sm::SubnetManager m(t, cfg, log);
  m.start();
  (void)sm::run_loop(m, t, [&] { return !m.sweeping() && m.subnet_up(); });
  uint64_t full = 0;
  for (const auto& n : fabric->nodes())
    if (n.is_switch()) full += n.sw->lft.size() / 64;
  fmt::print("3-level fat tree radix {} ({} nodes), {}: a full reprogram is {} LFT blocks\n", radix,
             fabric->nodes().size(), engine, full);
  fmt::print("{:<34} {:>9} {:>10} {:>8} {:>7} {:>8} {:>7} {}\n", "event", "SM ms", "fabric ms",
             "blocks", "% full", "SMPs", "sweeps", "all pairs routed");

  Reaction cur;
  m.on_sweep_done = [&](const sm::SweepReport& r) {
    cur.wall_ms += r.total.wall_ms;
    cur.blocks += r.program.lft_blocks_written;
    cur.smps += r.smps_sent;
    ++cur.sweeps;
    cur.heavy += r.heavy ? 1 : 0;
    cur.done = t.clock().now();
  };
  auto react = [&](const std::string& what, auto fault) {
    cur = Reaction{};
    const mad::Nanos t0 = t.clock().now();
    if (auto r = fault(); !r) {
      fmt::print(stderr, "{}: {}\n", what, r.error().message);
      return;
    }
    const mad::Nanos end = t0 + std::chrono::seconds(2);
    (void)sm::run_loop(m, t, [&] { return t.clock().now() >= end && !m.sweeping(); });
    cur.fabric_ms = static_cast<double>((cur.done - t0).count()) / 1e6;
    const auto v = sim::verify_routing(*fabric);
    fmt::print("{:<34} {:>9.1f} {:>10.2f} {:>8} {:>6.2f}% {:>8} {:>7} {}\n", what, cur.wall_ms, cur.fabric_ms,
               cur.blocks, 100.0 * static_cast<double>(cur.blocks) / static_cast<double>(full), cur.smps,
               cur.sweeps, v.all_routed() && v.ports_not_active == 0 ? "yes" : "NO");
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
