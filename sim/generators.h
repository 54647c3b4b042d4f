// Topology generators. Deterministic: the same parameters give the same spec, and the same
// bytes through write_netfile. Every spec lists its CAs first (ibsim attaches its unnamed client
// to the first node of the file) and then the switches, leaves first; GUIDs are assigned by
// assign_guids (ibsim's defaults), links are 4x HDR and in net-file order (canonicalise_links).
// Names follow the shared topologies: CAs H00000.., switches S<level>_...
#pragma once

#include <cstdint>
#include <vector>

#include "mad/error.h"
#include "sim/spec.h"

namespace sim {

// Generators refuse to build more nodes than this (a typo in a radix should not eat the RAM).
inline constexpr uint64_t kMaxGeneratedNodes = 1u << 20;

// PGFT(h; m1..mh; w1..wh; p1..ph), the parallel-ports generalised fat tree (Zahavi); XGFT is
// the case p = 1 everywhere.
//   Level 0 holds the CAs, level h the top switches.
//   m_l  children of each level-l switch;
//   w_l  parents of each level-(l-1) node;
//   p_l  parallel cables between a level-(l-1) node and each of its parents.
// Level l holds (m_{l+1} * ... * m_h) * (w_1 * ... * w_l) nodes. A level-l node is labelled
// (a_h, ..., a_{l+1}; b_1, ..., b_l) with a_i < m_i, b_i < w_i, and numbered in that digit
// order (a_h most significant). Its parents are (a_h..a_{l+2}; b_1..b_l, b_{l+1}) for every
// b_{l+1}. Ports: a switch's down ports come first, port a_l*p_l + k + 1 for child a_l and
// parallel cable k, then its up ports, m_l*p_l + b*p_{l+1} + k + 1 for parent b. A CA has
// w_1*p_1 ports, all up; w_1 > 1 makes w_1 separate planes (rails), each its own subnet. Names: with h <= 2, S<l>_<nnn>; with h >= 3, S<l>_<pod>_<nn> below the
// top (pod = a_h) and S<h>_<nnnn> at the top, as in ft3-r8.net.
struct PgftParams {
  std::vector<uint32_t> m, w, p;  // h entries each; p empty = all 1
  uint32_t radix = 0;             // ports per switch; 0 = the most any level uses
};
mad::Result<FabricSpec> make_pgft(const PgftParams& params);

// The k-ary n-level fat tree built from radix-k switches (k even):
// PGFT(n; k/2, ..., k/2, k; 1, k/2, ..., k/2). A 3-level one has k pods of k/2 leaves and k/2
// middle switches, (k/2)^2 top switches and 2*(k/2)^3 CAs (radix 16: 320 switches, 1,024 CAs;
// radix 54: 3,645 switches, 39,366 CAs). levels 2..4.
mad::Result<FabricSpec> make_fat_tree(uint32_t levels, uint32_t radix);

// Two levels: `leaves` leaf switches with `cas_per_leaf` CAs each, every leaf cabled to every
// spine with as many parallel cables as both radices allow (at least one).
// Radix 254, 254 leaves x 127 CAs, 127 spines: 32,258 CAs.
struct TwoLevelParams {
  uint32_t leaves = 0, spines = 0, radix = 0, cas_per_leaf = 0;
};
mad::Result<FabricSpec> make_two_level(const TwoLevelParams& params);

// Removes round(fraction * n) of the n switch-to-switch links, chosen by a seeded splitmix64
// (the same seed removes the same links on every platform). Other links keep their order.
// Returns how many were removed.
mad::Result<size_t> drop_switch_links(FabricSpec& spec, double fraction, uint64_t seed);

// A 1-, 2- or 3-dimensional torus (or mesh) of switches, `cas_per_switch` CAs on each. Switch
// S_<x>_<y>_<z>: ports 1..C for its CAs, then for dimension d port C+2d+1 towards +1 and
// C+2d+2 towards -1. A torus dimension of size 2 has one cable between its two switches.
struct TorusParams {
  std::vector<uint32_t> dims;  // sizes, each >= 2
  bool mesh = false;           // no wrap-around cables
  uint32_t cas_per_switch = 1;
  uint32_t ports = 0;          // ports per switch; 0 = C + 2 * dims
};
mad::Result<FabricSpec> make_torus(const TorusParams& params);

// A random irregular graph of switches, connected: a random spanning tree first, then random
// extra cables (no parallel ones) until every switch has `degree` switch cables or no pair is
// left. Switch S_<nnn>: ports 1..C for its CAs, then its switch cables in the order made.
struct RandomParams {
  uint32_t switches = 0, ports = 0, cas_per_switch = 1;
  uint32_t degree = 0;  // switch-to-switch cables per switch at most; 0 = ports - cas
  uint64_t seed = 1;
};
mad::Result<FabricSpec> make_random(const RandomParams& params);

}  // namespace sim
