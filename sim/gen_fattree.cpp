// Fat trees: the PGFT builder (notation in generators.h) and the two families built on it,
// k-ary n-level trees by radix and two-level leaf/spine trees.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/generators.h"

namespace sim {
namespace {

int digits(uint64_t n) {  // decimal digits of n (1 for 0)
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

std::string padded(uint64_t n, int min_width, uint64_t count) {
  return fmt::format("{:0{}}", n, std::max(min_width, digits(count ? count - 1 : 0)));
}

// products with the node cap as an overflow guard
bool mul_capped(uint64_t& x, uint64_t y) {
  x *= y;
  return x <= kMaxGeneratedNodes;
}

}  // namespace

mad::Result<FabricSpec> make_pgft(const PgftParams& in) {
  const size_t h = in.m.size();
  if (h == 0) return mad::fail(mad::Errc::invalid, "pgft: needs at least one level (h >= 1)");
  if (in.w.size() != h || (!in.p.empty() && in.p.size() != h))
    return mad::fail(mad::Errc::invalid,
                     fmt::format("pgft: h = {} needs {} values for each of m, w and p", h, h));
  // 1-based as in the notation: m[l], w[l], p[l] for l = 1..h.
  std::vector<uint64_t> m(h + 1), w(h + 1), p(h + 1, 1);
  for (size_t l = 1; l <= h; ++l) {
    m[l] = in.m[l - 1];
    w[l] = in.w[l - 1];
    if (!in.p.empty()) p[l] = in.p[l - 1];
    if (m[l] == 0 || w[l] == 0 || p[l] == 0)
      return mad::fail(mad::Errc::invalid, "pgft: every m, w and p must be at least 1");
  }

  // Nodes per level, and the ports each level uses.
  std::vector<uint64_t> count(h + 1);
  uint64_t total = 0;
  for (size_t l = 0; l <= h; ++l) {
    uint64_t n = 1;
    bool ok = true;
    for (size_t i = l + 1; i <= h; ++i) ok = ok && mul_capped(n, m[i]);
    for (size_t i = 1; i <= l; ++i) ok = ok && mul_capped(n, w[i]);
    total += n;
    if (!ok || total > kMaxGeneratedNodes)
      return mad::fail(mad::Errc::exhausted,
                       fmt::format("pgft: more than {} nodes", kMaxGeneratedNodes));
    count[l] = n;
  }
  auto down = [&](size_t l) -> uint64_t { return l == 0 ? 0 : m[l] * p[l]; };
  auto up = [&](size_t l) -> uint64_t { return l == h ? 0 : w[l + 1] * p[l + 1]; };
  uint64_t need = 0;
  for (size_t l = 1; l <= h; ++l) need = std::max(need, down(l) + up(l));
  uint64_t radix = in.radix ? in.radix : need;
  if (radix < need || radix > 254)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("pgft: switches need {} ports; radix {} (at most 254)", need, radix));
  if (up(0) > 254)
    return mad::fail(mad::Errc::invalid, fmt::format("pgft: CAs would need {} ports", up(0)));

  FabricSpec spec;
  spec.nodes.reserve(total);
  std::vector<uint64_t> first(h + 2, 0);  // index of level l's first node
  for (size_t l = 0; l <= h; ++l) {
    first[l + 1] = first[l] + count[l];
    for (uint64_t i = 0; i < count[l]; ++i) {
      SpecNode n;
      if (l == 0) {
        n.type = mad::NodeType::ca;
        n.num_ports = static_cast<uint8_t>(up(0));
        n.name = "H" + padded(i, 5, count[0]);
      } else {
        n.type = mad::NodeType::sw;
        n.num_ports = static_cast<uint8_t>(radix);
        if (h <= 2) {
          n.name = fmt::format("S{}_{}", l, padded(i, 3, count[l]));
        } else if (l < h) {  // S<l>_<pod>_<index in pod>
          uint64_t per_pod = count[l] / m[h];
          n.name = fmt::format("S{}_{}_{}", l, padded(i / per_pod, 2, m[h]),
                               padded(i % per_pod, 2, per_pod));
        } else {
          n.name = fmt::format("S{}_{}", l, padded(i, 4, count[l]));
        }
      }
      spec.nodes.push_back(std::move(n));
    }
  }

  // Child i at level l-1 has digits (A: a_h..a_{l+1}, a_l, bb: b_1..b_{l-1}); its parent for
  // b_l is (A, bb, b_l) at level l.
  for (size_t l = 1; l <= h; ++l) {
    uint64_t below = 1;  // w_1 * ... * w_{l-1}
    for (size_t i = 1; i < l; ++i) below *= w[i];
    for (uint64_t i = 0; i < count[l - 1]; ++i) {
      uint64_t bb = i % below, t = i / below;
      uint64_t a_l = t % m[l], a = t / m[l];
      for (uint64_t b = 0; b < w[l]; ++b) {
        uint64_t parent = (a * below + bb) * w[l] + b;
        for (uint64_t k = 0; k < p[l]; ++k) {
          SpecLink link{static_cast<uint32_t>(first[l - 1] + i),
                        static_cast<uint8_t>(down(l - 1) + b * p[l] + k + 1),
                        static_cast<uint32_t>(first[l] + parent),
                        static_cast<uint8_t>(a_l * p[l] + k + 1)};
          link.speed_ext = speed::hdr;
          spec.links.push_back(link);
        }
      }
    }
  }
  assign_guids(spec);
  canonicalise_links(spec);
  return spec;
}

mad::Result<FabricSpec> make_fat_tree(uint32_t levels, uint32_t radix) {
  if (levels < 2 || levels > 4)
    return mad::fail(mad::Errc::invalid, fmt::format("fat-tree: levels {} (2..4)", levels));
  if (radix < 2 || radix > 254 || radix % 2)
    return mad::fail(mad::Errc::invalid, fmt::format("fat-tree: radix {} (even, 2..254)", radix));
  PgftParams p;
  for (uint32_t l = 1; l <= levels; ++l) {
    p.m.push_back(l == levels ? radix : radix / 2);
    p.w.push_back(l == 1 ? 1 : radix / 2);
  }
  p.radix = radix;
  return make_pgft(p);
}

mad::Result<FabricSpec> make_two_level(const TwoLevelParams& t) {
  if (t.leaves == 0 || t.spines == 0 || t.cas_per_leaf == 0)
    return mad::fail(mad::Errc::invalid, "two-level: leaves, spines and CAs per leaf must be >= 1");
  if (t.radix > 254 || t.cas_per_leaf >= t.radix)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("two-level: radix {} must be at most 254 and leave leaf ports "
                                 "for spines after {} CAs", t.radix, t.cas_per_leaf));
  uint32_t parallel = std::min((t.radix - t.cas_per_leaf) / t.spines, t.radix / t.leaves);
  if (parallel == 0)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("two-level: radix {} cannot cable {} leaves with {} CAs each to "
                                 "{} spines", t.radix, t.leaves, t.cas_per_leaf, t.spines));
  PgftParams p;
  p.m = {t.cas_per_leaf, t.leaves};
  p.w = {1, t.spines};
  p.p = {1, parallel};
  p.radix = t.radix;
  return make_pgft(p);
}

}  // namespace sim
