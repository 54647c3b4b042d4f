// Effective bisection bandwidth (Hoefler et al., "Multistage Switches are not Crossbars",
// 2008), defined so that figures compare across tools: for each of N seeded bisections the CAs
// are shuffled and split into halves, paired, each pair sending both ways; rates are max-min
// fair over every directed channel, the CA links included; a bisection's figure is its mean
// flow rate relative to the source's link rate, and the EBB is the mean over the bisections.
// Bisections run on threads; each one's seed depends only on (seed, its index), so the result
// does not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/traffic/net.h"
#include "sim/traffic/traffic.h"

namespace sim::traffic {

struct EbbOptions {
  size_t bisections = 20;
  uint64_t seed = 1;
  unsigned threads = 0;  // 0: one per core
  Placement placement;   // adaptive switches (its seed is each bisection's)
};

struct EbbResult {
  size_t bisections = 0;
  uint64_t seed = 0;
  double mean = 0, min = 0, max = 0, stddev = 0;  // over the bisections
  uint64_t unrouted = 0;                           // flows without a route, all bisections
  std::vector<double> per_bisection;
};

// The seed of bisection `index` (also for a single random-bisection pattern: index 0).
uint64_t bisection_seed(uint64_t seed, size_t index);

EbbResult effective_bisection_bandwidth(const Net& net, const EbbOptions& opts);

}  // namespace sim::traffic
