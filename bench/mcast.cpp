// bench/mcast: what multicast costs the SM on a large fabric in the simulator. Brings a
// 3-level fat tree up, then every CA joins the IPoIB broadcast group (straight into the
// registry: the SA path is timed by bench/sa-load.sh) and the SM programs the MFTs; then one
// member leaves, then a burst of 64 small groups is created. Prints, per pass, the wall time of
// planning (trees and MFT diff) plus writing, MFT blocks written and switches on the tree.
// Usage: mcast [RADIX]
#include <fmt/format.h>

#include <chrono>
#include <string>

#include "bench/sim_fat_tree.h"
#include "mad/reactor.h"
#include "sm/multicast/multicast.h"
#include "sm/multicast/tree.h"
#include "sm/subnet_manager.h"

int main(int argc, char** argv) {
  const unsigned radix = argc > 1 ? static_cast<unsigned>(std::stoul(argv[1])) : 32;
  auto bed = bench::SimFatTree::make(radix);
  if (!bed) return 1;
  sim::SimTransport& t = *bed->transport;
  sm::Logger log(sm::Level::warn);
  sm::SmConfig cfg;
  cfg.routing_engine = "ftree";
  sm::multicast::Multicast mc(log);
  sm::SubnetManager m(t, cfg, log);
  m.set_multicast(&mc);
  m.start();
  (void)mad::run_loop(m, t, [&] { return !m.sweeping() && m.subnet_up(); });
  const auto subnet = m.subnet();  // keeps its topology alive
  const fabric::Topology& topo = *subnet->topology;
  fmt::print("3-level fat tree radix {} ({} nodes, {} switches, {} CAs); first sweep wrote {} MFT blocks\n", radix,
             topo.node_count(), topo.switches().size(), topo.cas().size(), m.last_sweep().mft_blocks);
  fmt::print("{:<34} {:>9} {:>9} {:>12}\n", "pass", "wall ms", "blocks", "tree switches");

  const mad::Gid bc = mad::ipoib_broadcast_mgid(0x7FFF);
  // The SM programs the MFTs at its next tick after groups changed (as after SA joins).
  auto pass = [&](const char* what) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool changed = mc.wants_programming();
    (void)mad::run_loop(m, t, [&] { return !mc.wants_programming() && !mc.busy(); });
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto tree = sm::multicast::build_tree(topo, *mc.groups().find(bc));
    fmt::print("{:<34} {:>9.1f} {:>9} {:>12}\n", what, ms, changed ? mc.last_stats().blocks_written : 0,
               tree.switches.size());
  };
  for (fabric::NodeId ca : topo.cas())
    mc.groups().set_member(bc, mad::Gid(mad::kDefaultGidPrefix, topo.port(ca, mad::PortNum(1)).guid.value()),
                           mad::join_state::full);
  pass("every CA joins the broadcast group");
  const fabric::NodeId last = topo.cas().back();
  mc.groups().set_member(bc, mad::Gid(mad::kDefaultGidPrefix, topo.port(last, mad::PortNum(1)).guid.value()), 0);
  pass("one member leaves");
  for (uint32_t i = 0; i < 64; ++i) {
    const mad::Gid g(0xFF12A01B00000000ULL, 0x1000 + i);
    sm::multicast::GroupParams p;
    p.qkey = 1;
    p.pkey = 0xFFFF;
    if (auto made = mc.groups().create(g, p, false); made)
      for (size_t k = 0; k < 8; ++k) {
        const fabric::NodeId ca = topo.cas()[(i * 131 + k * 977) % topo.cas().size()];
        mc.groups().set_member(g, mad::Gid(mad::kDefaultGidPrefix, topo.port(ca, mad::PortNum(1)).guid.value()),
                               mad::join_state::full);
      }
  }
  pass("64 groups of 8 members created");
  return 0;
}
