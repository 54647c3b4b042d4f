// bench_routing: compute time and peak RSS of one routing engine on one generated fabric.
// Figures, not pass/fail. Run one engine per process (peak RSS is per process):
//   bench_routing <engine> <fabric> [threads [max_vls [metrics]]]
// fabric: ft3-r<k> (3-level k-ary fat tree, sim::make_fat_tree), ft3-r<k>-d<pct> (the same with
// pct% of the switch links removed, seed 3), torus<x>x<y> (2 CAs per switch), or a path to a
// net file. Prints one line: engine, fabric, switches, CAs, LIDs, build and route seconds, peak
// RSS before and after routing, unrouted CA pairs, VLs used (engines with SLs).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "routing/engine.h"
#include "sim/generators.h"
#include "sim/netfile.h"
#include "fabric/metrics.h"
#include "fabric/topology.h"
#include "sim/spec_topology.h"

namespace {

long peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

mad::Result<sim::FabricSpec> make_fabric(const std::string& name) {
  unsigned radix = 0, pct = 0, x = 0, y = 0;
  if (std::sscanf(name.c_str(), "ft3-r%u-d%u", &radix, &pct) == 2) {
    auto spec = sim::make_fat_tree(3, radix);
    if (!spec) return spec;
    if (auto r = sim::drop_switch_links(*spec, pct / 100.0, 3); !r)
      return std::unexpected(r.error());
    return spec;
  }
  if (std::sscanf(name.c_str(), "ft3-r%u", &radix) == 1) return sim::make_fat_tree(3, radix);
  if (std::sscanf(name.c_str(), "torus%ux%u", &x, &y) == 2)
    return sim::make_torus({.dims = {x, y}, .cas_per_switch = 2});
  return sim::load_netfile(name);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <engine> <fabric> [threads [max_vls [metrics]]]\n", argv[0]);
    return 2;
  }
  const std::string engine_name = argv[1], fabric_name = argv[2];
  routing::RoutingOptions opts;
  opts.threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 0;
  if (argc > 4) opts.max_vls = static_cast<unsigned>(std::atoi(argv[4]));
  const bool metrics = argc > 5 && std::string(argv[5]) == "metrics";

  const auto t0 = std::chrono::steady_clock::now();
  auto spec = make_fabric(fabric_name);
  auto built = spec ? sim::topology_of(std::move(*spec)) : mad::Result<fabric::Topology>(std::unexpected(spec.error()));
  if (!built) {
    std::fprintf(stderr, "%s: %s\n", fabric_name.c_str(), built.error().message.c_str());
    return 1;
  }
  const fabric::Topology& topo = *built;
  const auto t1 = std::chrono::steady_clock::now();
  const long rss_before = peak_rss_mb();

  auto engine = routing::make_engine(engine_name);
  if (!engine) {
    std::fprintf(stderr, "%s\n", engine.error().message.c_str());
    return 1;
  }
  auto tables = (*engine)->compute(topo, opts);
  const auto t2 = std::chrono::steady_clock::now();
  const auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  if (!tables) {
    std::printf("%-13s %-16s refused: %s\n", engine_name.c_str(), fabric_name.c_str(),
                tables.error().message.c_str());
    return 0;
  }
  std::printf("%-13s %-16s switches %5zu CAs %6zu max LID %5u  build %6.2f s  route %7.3f s  "
              "peak RSS %5ld MB (before routing %5ld MB)  unrouted CA pairs %lu  VLs %u\n",
              engine_name.c_str(), fabric_name.c_str(), topo.switches().size(), topo.cas().size(),
              tables->max_lid().value(), secs(t0, t1), secs(t1, t2), peak_rss_mb(), rss_before,
              static_cast<unsigned long>(tables->diagnostics().unrouted_ca_pairs), tables->vls_used());
  // The tables' fingerprint (FNV-1a over every switch's LFT and SLs in NodeId order), so that a
  // faster engine can be shown to compute the same tables bit for bit.
  uint64_t h = 0xcbf29ce484222325ull;
  const auto mix = [&](uint8_t b) { h = (h ^ b) * 0x100000001b3ull; };
  for (fabric::NodeId sw : topo.switches()) {
    for (uint8_t b : tables->lft(sw)) mix(b);
    if (tables->has_sls())
      for (uint32_t l = 0; l <= tables->max_lid().value(); ++l)
        mix(tables->sl(sw, mad::Lid(static_cast<uint16_t>(l))));
  }
  std::printf("  tables %016llx\n", static_cast<unsigned long long>(h));
  if (!tables->diagnostics().notes.empty()) std::printf("  %s\n", tables->diagnostics().notes.front().c_str());
  if (metrics) {
    std::vector<std::span<const uint8_t>> lfts(topo.node_count());
    for (fabric::NodeId sw : topo.switches()) lfts[sw] = tables->lft(sw);
    const fabric::MetricsReport m = fabric::measure_routing(topo, lfts);
    std::printf("  max all-to-all %lu  shift congestion %.3f\n", static_cast<unsigned long>(m.max_link_load),
                m.shift_congestion);
  }
  return 0;
}
