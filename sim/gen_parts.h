// The parts every switch-graph generator (torus, HyperX, random, Dragonfly) builds alike: the
// CAs first, named H<index>, and cables at 4x HDR; a grid switch named by its coordinates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>

#include <fmt/format.h>

#include "sim/spec.h"

namespace sim::gen {

// Digits of the largest index below `count`, at least `least`.
inline int index_width(uint64_t count, int least) {
  return std::max<int>(least, static_cast<int>(fmt::formatted_size("{}", count ? count - 1 : 0)));
}

// `count` one-port CAs H00000.. (at least 5 digits), appended to the spec's nodes.
inline void add_cas(FabricSpec& spec, uint64_t count) {
  const int width = index_width(count, 5);
  for (uint64_t i = 0; i < count; ++i) {
    SpecNode n;
    n.num_ports = 1;
    n.name = fmt::format("H{:0{}}", i, width);
    spec.nodes.push_back(std::move(n));
  }
}

inline void add_switch(FabricSpec& spec, std::string name, uint64_t ports) {
  SpecNode n;
  n.type = mad::NodeType::sw;
  n.num_ports = static_cast<uint8_t>(ports);
  n.name = std::move(name);
  spec.nodes.push_back(std::move(n));
}

// S_<c0>_<c1>.. for the switch at `coords` of a grid with sides `dims` (each at least 2 digits).
template <typename Coord>
std::string grid_name(std::span<const uint32_t> dims, Coord coord) {
  std::string name = "S";
  for (size_t d = 0; d < dims.size(); ++d) name += fmt::format("_{:0{}}", coord(d), index_width(dims[d], 2));
  return name;
}

// A cable between two nodes of the spec (indices and ports range-checked by the caller).
inline void add_link(FabricSpec& spec, uint64_t a, uint64_t pa, uint64_t b, uint64_t pb) {
  SpecLink l{static_cast<uint32_t>(a), static_cast<uint8_t>(pa), static_cast<uint32_t>(b), static_cast<uint8_t>(pb)};
  l.speed_ext = speed::hdr;
  spec.links.push_back(l);
}

}  // namespace sim::gen
