// Dragonfly and Dragonfly+: groups of routers joined by global cables (rules in generators.h).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/gen_parts.h"
#include "sim/generators.h"

namespace sim {
mad::Result<FabricSpec> make_dragonfly(const DragonflyParams& f) {
  if (f.p == 0 || f.a == 0 || f.h == 0)
    return mad::fail(mad::Errc::invalid, "dragonfly: p, a and h must be at least 1");
  if (!f.plus && f.spines != 0)
    return mad::fail(mad::Errc::invalid, "dragonfly: spines are for Dragonfly+ only");
  // Each bounded by the radix before any product is taken.
  const uint64_t p = f.p, a = f.a, h = f.h, spines = f.plus ? (f.spines ? f.spines : a) : 0;
  const uint64_t ports = f.plus ? std::max(p + spines, a + h) : p + a - 1 + h;
  if (ports > 254)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("dragonfly: routers would need {} ports (at most 254)", ports));
  const uint64_t global_routers = f.plus ? spines : a;  // per group
  const uint64_t slots = global_routers * h;            // global ports per group
  const uint64_t g = f.groups ? f.groups : slots + 1;
  if (g < 2 || g > slots + 1)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("dragonfly: {} groups; {} global ports a group allow 2..{}", g,
                                 slots, slots + 1));
  const uint64_t per_group = a + spines;  // routers
  const uint64_t cas = g * a * p;
  if (cas + g * per_group > kMaxGeneratedNodes)
    return mad::fail(mad::Errc::exhausted, fmt::format("dragonfly: more than {} nodes", kMaxGeneratedNodes));

  FabricSpec spec;
  spec.nodes.reserve(cas + g * per_group);
  gen::add_cas(spec, cas);
  const int gw = gen::index_width(g, 2);
  auto add_router = [&](std::string_view prefix, uint64_t grp, uint64_t i, uint64_t count) {
    gen::add_switch(spec, fmt::format("{}_{:0{}}_{:0{}}", prefix, grp, gw, i, gen::index_width(count, 2)), ports);
  };
  // Leaves (every router of a plain Dragonfly), group by group, then the spines.
  for (uint64_t grp = 0; grp < g; ++grp)
    for (uint64_t i = 0; i < a; ++i) add_router(f.plus ? "S1" : "S", grp, i, a);
  for (uint64_t grp = 0; grp < g; ++grp)
    for (uint64_t i = 0; i < spines; ++i) add_router("S2", grp, i, spines);
  auto leaf = [&](uint64_t grp, uint64_t i) { return cas + grp * a + i; };
  auto spine = [&](uint64_t grp, uint64_t i) { return cas + g * a + grp * spines + i; };

  auto add = [&](uint64_t x, uint64_t px, uint64_t y, uint64_t py) { gen::add_link(spec, x, px, y, py); };
  for (uint64_t grp = 0; grp < g; ++grp) {
    for (uint64_t i = 0; i < a; ++i)
      for (uint64_t c = 0; c < p; ++c) add((grp * a + i) * p + c, 1, leaf(grp, i), c + 1);
    if (f.plus) {
      for (uint64_t i = 0; i < a; ++i)
        for (uint64_t s = 0; s < spines; ++s) add(leaf(grp, i), p + s + 1, spine(grp, s), i + 1);
    } else {
      // Router r's group peers in increasing order: q > r is its (q-1)-th, r is q's r-th.
      for (uint64_t r = 0; r < a; ++r)
        for (uint64_t q = r + 1; q < a; ++q) add(leaf(grp, r), p + q, leaf(grp, q), p + r + 1);
    }
  }
  // Global ports: slot j of a group is its router j / h, port base + j % h + 1.
  const uint64_t base = f.plus ? a : p + a - 1;
  auto global_end = [&](uint64_t grp, uint64_t j, uint64_t& node, uint64_t& port) {
    node = f.plus ? spine(grp, j / h) : leaf(grp, j / h);
    port = base + j % h + 1;
  };
  const uint64_t per_pair = slots / (g - 1);
  for (uint64_t i = 0; i < g; ++i)
    for (uint64_t t = i + 1; t < g; ++t)
      for (uint64_t m = 0; m < per_pair; ++m) {
        // t is the (t-1)-th other group of i; i is the i-th other group of t.
        uint64_t ni, pi, nt, pt;
        global_end(i, m * (g - 1) + t - 1, ni, pi);
        global_end(t, m * (g - 1) + i, nt, pt);
        add(ni, pi, nt, pt);
      }
  assign_guids(spec);
  canonicalise_links(spec);
  return spec;
}

}  // namespace sim
