// Tori and meshes of switches (1 to 3 dimensions), CAs on every switch.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/gen_parts.h"
#include "sim/generators.h"

namespace sim {

mad::Result<FabricSpec> make_torus(const TorusParams& t) {
  const size_t nd = t.dims.size();
  if (nd < 1 || nd > 3)
    return mad::fail(mad::Errc::invalid, fmt::format("torus: {} dimensions (1..3)", nd));
  uint64_t switches = 1;
  for (uint32_t d : t.dims) {
    if (d < 2) return mad::fail(mad::Errc::invalid, "torus: every dimension needs size >= 2");
    switches *= d;
    if (switches > kMaxGeneratedNodes) break;
  }
  if (t.cas_per_switch == 0)
    return mad::fail(mad::Errc::invalid, "torus: needs at least one CA per switch");
  uint64_t total = switches * (1 + uint64_t{t.cas_per_switch});
  if (switches > kMaxGeneratedNodes || total > kMaxGeneratedNodes)
    return mad::fail(mad::Errc::exhausted, fmt::format("torus: more than {} nodes", kMaxGeneratedNodes));
  uint64_t need = t.cas_per_switch + 2 * nd;
  uint64_t ports = t.ports ? t.ports : need;
  if (ports < need || ports > 254)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("torus: switches need {} ports; {} given (at most 254)", need, ports));

  // Switch s has coordinates c[0..nd) with c[0] most significant.
  std::vector<uint64_t> stride(nd, 1);
  for (size_t d = nd - 1; d > 0; --d) stride[d - 1] = stride[d] * t.dims[d];
  auto coord = [&](uint64_t s, size_t d) { return (s / stride[d]) % t.dims[d]; };
  const uint64_t cas = switches * t.cas_per_switch;
  auto sw_node = [&](uint64_t s) { return static_cast<uint32_t>(cas + s); };

  FabricSpec spec;
  spec.nodes.reserve(cas + switches);
  gen::add_cas(spec, cas);
  for (uint64_t s = 0; s < switches; ++s)
    gen::add_switch(spec, gen::grid_name(t.dims, [&](size_t d) { return coord(s, d); }), ports);
  auto add = [&](uint32_t a, uint64_t pa, uint32_t b, uint64_t pb) { gen::add_link(spec, a, pa, b, pb); };
  for (uint64_t s = 0; s < switches; ++s) {
    for (uint64_t c = 0; c < t.cas_per_switch; ++c)
      add(static_cast<uint32_t>(s * t.cas_per_switch + c), 1, sw_node(s), c + 1);
    for (size_t d = 0; d < nd; ++d) {
      uint64_t x = coord(s, d), k = t.dims[d];
      // The cable from s towards +1; the last switch wraps to the first in a torus, except
      // when the dimension has only two (that cable is already there).
      bool last = x + 1 == k;
      if (last && (t.mesh || k == 2)) continue;
      uint64_t next = last ? s - x * stride[d] : s + stride[d];
      add(sw_node(s), t.cas_per_switch + 2 * d + 1, sw_node(next), t.cas_per_switch + 2 * d + 2);
    }
  }
  assign_guids(spec);
  canonicalise_links(spec);
  return spec;
}

}  // namespace sim
