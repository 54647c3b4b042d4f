// bench/store-commit: what committing a sweep costs. Brings a 3-level fat tree up in the
// simulator (radix 32 by default: 9,472 nodes), then times the first commit into a fresh
// database (everything written), a commit of an unchanged sweep, and one after a link failed.
// Prints wall and CPU milliseconds and rows written.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bench/sim_fat_tree.h"
#include "mad/reactor.h"
#include "sm/store/store.h"
#include "sm/subnet_manager.h"

namespace {
double cpu_ms() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return (static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
          static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}
}  // namespace

int main(int argc, char** argv) {
  const unsigned radix = argc > 1 ? static_cast<unsigned>(std::stoul(argv[1])) : 32;
  const std::string path = argc > 2 ? argv[2] : "/tmp/fabricsm-store-bench.db";
  for (const char* ext : {"", "-wal", "-shm"}) std::remove((path + ext).c_str());
  auto tree = bench::SimFatTree::make(radix);
  if (!tree) return 1;
  sim::SimFabric* fabric = tree->fabric.get();
  sim::SimTransport& t = *tree->transport;
  sm::Logger log(sm::Level::warn);
  sm::SmConfig cfg;
  cfg.routing_engine = "ftree";
  sm::SubnetManager m(t, cfg, log);
  m.start();
  (void)mad::run_loop(m, t, [&] { return !m.sweeping() && m.subnet_up(); });
  auto store = sm::store::Store::open({.path = path});
  if (!store) {
    fmt::print(stderr, "{}\n", store.error().message);
    return 1;
  }
  fmt::print("3-level fat tree radix {}: {} nodes; database {}\n", radix, m.subnet()->topology->node_count(), path);
  auto commit = [&](const char* what) {
    const double c0 = cpu_ms();
    auto r = (*store)->commit(*m.subnet(), 1);
    const double c1 = cpu_ms();
    if (!r) {
      fmt::print(stderr, "{}\n", r.error().message);
      return;
    }
    fmt::print("{:<28} wall {:7.1f} ms  cpu {:7.1f} ms  rows: {} nodes {} ports {} links {} LIDs {} LFTs\n", what,
               r->ms, c1 - c0, r->nodes, r->ports, r->links, r->lids, r->switches);
  };
  commit("first sweep (all rows)");
  m.request_sweep("bench");
  (void)mad::run_loop(m, t, [&] { return !m.sweeping(); });
  commit("unchanged sweep");
  (void)fabric->link_down(*fabric->find("S1_00_00"), static_cast<uint8_t>(radix / 2 + 1));
  const auto end = t.clock().now() + std::chrono::seconds(1);
  (void)mad::run_loop(m, t, [&] { return t.clock().now() >= end && !m.sweeping(); });
  commit("after one link failed");
  return 0;
}
