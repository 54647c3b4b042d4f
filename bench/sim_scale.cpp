// Builds one large simulated fabric with every switch's LFT allocated to the full LID range,
// and prints how long that took and the process's peak RSS. One fabric per process, so the
// RSS figure is that fabric's alone. Used by bench/sim-scale.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "sim/fabric.h"
#include "sim/generators.h"
#include "sim/netfile.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: sim_scale fat-tree-3-54 | two-level-254 | FILE.net\n");
    return 2;
  }
  const std::string what = argv[1];
  const auto t0 = std::chrono::steady_clock::now();
  mad::Result<sim::FabricSpec> spec =
      what == "fat-tree-3-54"   ? sim::make_fat_tree(3, 54)
      : what == "two-level-254" ? sim::make_two_level({.leaves = 254, .spines = 127, .radix = 254, .cas_per_leaf = 127})
                                : sim::load_netfile(what);
  if (!spec) {
    fmt::print(stderr, "sim_scale: {}\n", spec.error().message);
    return 1;
  }
  const auto t1 = std::chrono::steady_clock::now();
  auto fabric = sim::SimFabric::build(std::move(*spec));
  if (!fabric) {
    fmt::print(stderr, "sim_scale: {}\n", fabric.error().message);
    return 1;
  }
  const auto t2 = std::chrono::steady_clock::now();
  // Every LID a port could hold, one LFT entry each on every switch (as after programming).
  size_t switches = 0, cas = 0, ports = 0;
  for (sim::NodeIdx i = 0; i < (*fabric)->nodes().size(); ++i) {
    sim::SimNode& n = (*fabric)->mutable_node(i);
    ports += n.num_ports;
    if (!n.is_switch()) {
      ++cas;
      continue;
    }
    ++switches;
  }
  const size_t lids = switches + cas;
  const size_t entries = (lids / 64 + 1) * 64;
  for (sim::NodeIdx i = 0; i < (*fabric)->nodes().size(); ++i) {
    sim::SimNode& n = (*fabric)->mutable_node(i);
    if (n.is_switch()) n.sw->lft.assign(entries, 1);
  }
  const auto t3 = std::chrono::steady_clock::now();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  fmt::print("{:<16} {:>6} switches {:>6} CAs {:>7} ports  generate {:>7.1f} ms  build {:>7.1f} ms  "
             "LFTs {:>7.1f} ms  peak RSS {:>6.0f} MB\n",
             what, switches, cas, ports, ms(t0, t1), ms(t1, t2), ms(t2, t3),
             static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}
