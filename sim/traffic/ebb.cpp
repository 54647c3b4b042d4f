#include "sim/traffic/ebb.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "sim/rng.h"
#include "sim/traffic/patterns.h"
#include "sim/traffic/traffic.h"

namespace sim::traffic {

uint64_t bisection_seed(uint64_t seed, size_t index) {
  SplitMix64 rng(seed ^ (0xD1B54A32D192ED03ULL * (index + 1)));
  return rng.next();
}

EbbResult effective_bisection_bandwidth(const Net& net, const EbbOptions& opts) {
  EbbResult r;
  r.bisections = opts.bisections;
  r.seed = opts.seed;
  r.per_bisection.assign(opts.bisections, 0.0);
  std::vector<uint64_t> unrouted(opts.bisections, 0);
  const size_t n = net.cas().size();
  if (n < 2 || opts.bisections == 0) return r;
  std::atomic<size_t> next{0};
  auto work = [&] {
    Routes routes;
    Allocation a;
    SolverScratch scratch;
    for (size_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < opts.bisections;) {
      const uint64_t seed = bisection_seed(opts.seed, b);
      const std::vector<Flow> flows = random_bisection(n, seed);
      Placement how = opts.placement;
      how.seed = seed;
      route_flows(net, flows, how, routes);
      solve_routes(net, routes, a, scratch);
      double sum = 0;  // an unrouted flow counts as 0
      for (size_t k = 0; k < routes.flow.size(); ++k)
        sum += a.rate[k] / net.channels()[net.cas()[flows[routes.flow[k]].src].up].gbps;
      r.per_bisection[b] = flows.empty() ? 0.0 : sum / static_cast<double>(flows.size());
      unrouted[b] = routes.unrouted;
    }
  };
  unsigned threads = opts.threads ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, opts.bisections));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  r.min = *std::min_element(r.per_bisection.begin(), r.per_bisection.end());
  r.max = *std::max_element(r.per_bisection.begin(), r.per_bisection.end());
  double sum = 0, sq = 0;
  for (double v : r.per_bisection) sum += v;
  r.mean = sum / static_cast<double>(opts.bisections);
  for (double v : r.per_bisection) sq += (v - r.mean) * (v - r.mean);
  r.stddev = std::sqrt(sq / static_cast<double>(opts.bisections));
  for (uint64_t u : unrouted) r.unrouted += u;
  return r;
}

}  // namespace sim::traffic
