// Degraded fabrics: a seeded, reproducible choice of switch-to-switch links to remove.
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/generators.h"
#include "sim/rng.h"

namespace sim {

mad::Result<size_t> drop_switch_links(FabricSpec& spec, double fraction, uint64_t seed) {
  if (!(fraction >= 0.0 && fraction <= 1.0))  // also refuses NaN
    return mad::fail(mad::Errc::invalid, fmt::format("drop fraction {} (0..1)", fraction));
  std::vector<size_t> candidates;
  for (size_t i = 0; i < spec.links.size(); ++i) {
    const SpecLink& l = spec.links[i];
    if (spec.nodes[l.a].type == mad::NodeType::sw && spec.nodes[l.b].type == mad::NodeType::sw)
      candidates.push_back(i);
  }
  auto drop = static_cast<size_t>(std::llround(fraction * static_cast<double>(candidates.size())));
  // Partial Fisher-Yates: the first `drop` candidates after shuffling are removed.
  SplitMix64 rng(seed);
  std::vector<bool> removed(spec.links.size(), false);
  for (size_t i = 0; i < drop; ++i) {
    size_t j = i + static_cast<size_t>(rng.below(candidates.size() - i));
    std::swap(candidates[i], candidates[j]);
    removed[candidates[i]] = true;
  }
  size_t out = 0;
  for (size_t i = 0; i < spec.links.size(); ++i)
    if (!removed[i]) spec.links[out++] = spec.links[i];
  spec.links.resize(out);
  return drop;
}

}  // namespace sim
