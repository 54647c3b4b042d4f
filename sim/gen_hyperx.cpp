// HyperX: 2 or 3 dimensions, each fully connected, optionally trunked (port rule in generators.h).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/gen_parts.h"
#include "sim/generators.h"

namespace sim {

mad::Result<FabricSpec> make_hyperx(const HyperXParams& x) {
  const size_t nd = x.dims.size();
  if (nd < 2 || nd > 3)
    return mad::fail(mad::Errc::invalid, fmt::format("hyperx: {} dimensions (2 or 3)", nd));
  uint64_t switches = 1, peers = 0;  // peers: other switches in a switch's lines
  for (uint32_t d : x.dims) {
    if (d < 2) return mad::fail(mad::Errc::invalid, "hyperx: every dimension needs size >= 2");
    if (d > kMaxGeneratedNodes)
      return mad::fail(mad::Errc::exhausted, fmt::format("hyperx: more than {} nodes", kMaxGeneratedNodes));
    switches *= d;
    peers += d - 1;
  }
  if (x.trunk == 0) return mad::fail(mad::Errc::invalid, "hyperx: trunk must be at least 1");
  if (x.cas_per_switch == 0)
    return mad::fail(mad::Errc::invalid, "hyperx: needs at least one CA per switch");
  if (switches > kMaxGeneratedNodes || switches * (1 + uint64_t{x.cas_per_switch}) > kMaxGeneratedNodes)
    return mad::fail(mad::Errc::exhausted, fmt::format("hyperx: more than {} nodes", kMaxGeneratedNodes));
  const uint64_t cpp = x.cas_per_switch;
  const uint64_t need = cpp + uint64_t{x.trunk} * peers;
  const uint64_t ports = x.ports ? x.ports : need;
  if (ports < need || ports > 254)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("hyperx: switches need {} ports; {} given (at most 254)", need, ports));

  // Switch s has coordinates c[0..nd) with c[0] most significant; base[d] = the port before
  // dimension d's first.
  std::vector<uint64_t> stride(nd, 1), base(nd, cpp);
  for (size_t d = nd - 1; d > 0; --d) stride[d - 1] = stride[d] * x.dims[d];
  for (size_t d = 1; d < nd; ++d) base[d] = base[d - 1] + uint64_t{x.trunk} * (x.dims[d - 1] - 1);
  auto coord = [&](uint64_t s, size_t d) { return (s / stride[d]) % x.dims[d]; };
  const uint64_t cas = switches * cpp;

  FabricSpec spec;
  spec.nodes.reserve(cas + switches);
  gen::add_cas(spec, cas);
  for (uint64_t s = 0; s < switches; ++s)
    gen::add_switch(spec, gen::grid_name(x.dims, [&](size_t d) { return coord(s, d); }), ports);
  auto add = [&](uint64_t a, uint64_t pa, uint64_t b, uint64_t pb) { gen::add_link(spec, a, pa, b, pb); };
  for (uint64_t s = 0; s < switches; ++s) {
    for (uint64_t c = 0; c < cpp; ++c) add(s * cpp + c, 1, cas + s, c + 1);
    // Each pair once, from the switch with the lower coordinate: its peer at y > c sits at
    // rank y - 1 in its list, and it sits at rank c in the peer's.
    for (size_t d = 0; d < nd; ++d) {
      uint64_t c = coord(s, d);
      for (uint64_t y = c + 1; y < x.dims[d]; ++y) {
        uint64_t t = s + (y - c) * stride[d];
        for (uint64_t k = 1; k <= x.trunk; ++k)
          add(cas + s, base[d] + x.trunk * (y - 1) + k, cas + t, base[d] + x.trunk * c + k);
      }
    }
  }
  assign_guids(spec);
  canonicalise_links(spec);
  return spec;
}

}  // namespace sim
