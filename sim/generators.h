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

// A HyperX (Ahn et al. 2009) of 2 or 3 dimensions: a switch at every coordinate, cabled to every
// switch that differs from it in exactly one coordinate (each dimension fully connected), with
// `trunk` parallel cables per such pair. Switch S_<x>_<y>[_<z>] (dimension 0 first, the most
// significant, as the torus): ports 1..C for its CAs, then dimension 0's peers, then dimension
// 1's, ...; in dimension d the peers in increasing coordinate, `trunk` consecutive ports each:
// the peer at coordinate y of a switch at x is on ports base_d + trunk * (y < x ? y : y - 1)
// + 1 .. + trunk, with base_d = C + trunk * (the sum of S_e - 1 over e < d).
// Switch-to-switch diameter: the number of dimensions.
struct HyperXParams {
  std::vector<uint32_t> dims;  // sizes S1, S2[, S3], each >= 2
  uint32_t trunk = 1;          // parallel cables per pair of switches
  uint32_t cas_per_switch = 1;
  uint32_t ports = 0;          // ports per switch; 0 = C + trunk * sum(S_d - 1)
};
mad::Result<FabricSpec> make_hyperx(const HyperXParams& params);

// A Dragonfly (Kim et al. 2008): g groups of a routers, each router with p CAs and h global
// cables, the routers of a group fully connected. Router S_<group>_<r>: ports 1..p for its CAs,
// then p+1..p+a-1 to the other routers of its group in increasing r, then p+a..p+a+h-1 global.
// Global cables by the absolute arrangement: group i's global ports are numbered
// j = r * h + k (router r, its k-th global port); port j goes to the other group of rank
// j mod (g-1) (the other groups in increasing number), for j < M * (g-1) with
// M = floor(a*h / (g-1)) cables between every pair of groups; the remaining global ports are
// left free. g = a*h + 1 (the default, the most) gives every pair exactly one cable; p = h,
// a = 2h is the balanced case. Any two CAs are at most 3 router hops apart (local, global,
// local).
// Dragonfly+ (`plus`, Shpiner et al. 2017): each group a two-level fat tree of a leaf routers
// (with the CAs) and `spines` spine routers (with the global cables, h each), every leaf cabled
// to every spine, the groups joined spine to spine by the rule above with a*h replaced by
// spines*h (and router r = a spine). Leaf S1_<group>_<i>: ports 1..p CAs, then p+1..p+spines to
// the spines; spine S2_<group>_<i>: ports 1..a to the leaves, then a+1..a+h global. All leaves
// come before all spines. Leaves are at most 3 router hops apart (up, global, down).
// Every router has the ports the busiest one needs (plain: p + a - 1 + h; plus:
// max(p + spines, a + h)).
struct DragonflyParams {
  uint32_t p = 0, a = 0, h = 0;
  uint32_t groups = 0;  // 0 = the most: a*h + 1 (plus: spines*h + 1)
  bool plus = false;
  uint32_t spines = 0;  // plus only: spine routers per group; 0 = a
};
mad::Result<FabricSpec> make_dragonfly(const DragonflyParams& params);

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
