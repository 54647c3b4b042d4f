// Random irregular switch graphs: connected by construction (a random spanning tree first).
#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/gen_parts.h"
#include "sim/generators.h"
#include "sim/rng.h"

namespace sim {

mad::Result<FabricSpec> make_random(const RandomParams& r) {
  const uint64_t n = r.switches;
  if (n == 0) return mad::fail(mad::Errc::invalid, "random: needs at least one switch");
  if (r.cas_per_switch == 0)
    return mad::fail(mad::Errc::invalid, "random: needs at least one CA per switch");
  if (r.ports > 254 || r.cas_per_switch >= r.ports)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("random: {} ports (at most 254) must leave room for switch "
                                 "cables after {} CAs", r.ports, r.cas_per_switch));
  uint64_t degree = r.degree ? r.degree : r.ports - r.cas_per_switch;
  if (r.cas_per_switch + degree > r.ports)
    return mad::fail(mad::Errc::invalid, fmt::format("random: {} CAs + degree {} exceed {} ports",
                                                     r.cas_per_switch, degree, r.ports));
  // A tree needs a switch with two cables once there are three switches.
  if (n >= 3 && degree < 2)
    return mad::fail(mad::Errc::invalid, "random: degree must be at least 2 to connect 3+ switches");
  if (n * (1 + uint64_t{r.cas_per_switch}) > kMaxGeneratedNodes)
    return mad::fail(mad::Errc::exhausted, fmt::format("random: more than {} nodes", kMaxGeneratedNodes));

  const uint64_t cas = n * r.cas_per_switch;
  FabricSpec spec;
  spec.nodes.reserve(cas + n);
  gen::add_cas(spec, cas);
  const int sw_width = gen::index_width(n, 3);
  for (uint64_t s = 0; s < n; ++s) gen::add_switch(spec, fmt::format("S_{:0{}}", s, sw_width), r.ports);
  auto link = [&](uint64_t a, uint64_t pa, uint64_t b, uint64_t pb) { gen::add_link(spec, a, pa, b, pb); };
  for (uint64_t s = 0; s < n; ++s)
    for (uint64_t c = 0; c < r.cas_per_switch; ++c) link(s * r.cas_per_switch + c, 1, cas + s, c + 1);

  SplitMix64 rng(r.seed);
  std::vector<uint64_t> used(n, 0);           // switch cables per switch
  std::unordered_set<uint64_t> cabled;        // switch pairs, lo * n + hi (lookups only)
  std::vector<uint64_t> open;                 // switches with a free cable slot
  auto connect = [&](uint64_t a, uint64_t b) {
    link(cas + a, r.cas_per_switch + ++used[a], cas + b, r.cas_per_switch + ++used[b]);
    cabled.insert(std::min(a, b) * n + std::max(a, b));
  };
  auto close_full = [&](size_t at) {
    if (used[open[at]] < degree) return;
    open[at] = open.back();
    open.pop_back();
  };

  // Spanning tree: switches join in a random order, each cabled to a random earlier one with
  // a free slot (one always exists when degree >= 2).
  std::vector<uint64_t> order(n);
  for (uint64_t i = 0; i < n; ++i) order[i] = i;
  for (uint64_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  open.push_back(order[0]);
  for (uint64_t i = 1; i < n; ++i) {
    size_t at = static_cast<size_t>(rng.below(open.size()));
    uint64_t parent = open[at];
    connect(order[i], parent);
    close_full(at);
    open.push_back(order[i]);
    close_full(open.size() - 1);
  }
  // Extra cables between random pairs with free slots; stop after many misses in a row.
  const uint64_t max_misses = 64 + 8 * n;
  for (uint64_t misses = 0; open.size() >= 2 && misses < max_misses;) {
    size_t i = static_cast<size_t>(rng.below(open.size()));
    size_t j = static_cast<size_t>(rng.below(open.size() - 1));
    if (j >= i) ++j;
    uint64_t a = open[i], b = open[j];
    if (cabled.contains(std::min(a, b) * n + std::max(a, b))) {
      ++misses;
      continue;
    }
    misses = 0;
    connect(a, b);
    close_full(std::max(i, j));  // the higher slot first, so the lower one stays valid
    close_full(std::min(i, j));
  }
  assign_guids(spec);
  canonicalise_links(spec);
  return spec;
}

}  // namespace sim
