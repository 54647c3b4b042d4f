// Up*/down* routing over an orientation of the switch graph: every link points "up" one way
// (toward the roots, ties in rank broken by GUID), and a legal route never goes down then up,
// which keeps the channel dependency graph acyclic (deadlock freedom by construction).
// updn orients by BFS rank from its roots, ftree by fat-tree level.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/candidates.h"
#include "routing/fabric_view.h"

namespace routing {

class Orientation {
 public:
  // rank: 0 = a root; larger = further down. Equal ranks are ordered by switch index, which
  // is GUID order, so every link gets a direction.
  explicit Orientation(std::span<const uint32_t> rank);
  // The move from -> to goes up.
  bool up(SwIdx from, SwIdx to) const { return key_[to] < key_[from]; }
  // Switches from the most "up" to the most "down".
  std::span<const SwIdx> top_down() const { return order_; }

 private:
  std::vector<uint64_t> key_;
  std::vector<SwIdx> order_;
};

// The cost of the route from every switch to every destination switch t, in one cell:
//  - kDown | h: the switch reaches t going only down, in h hops; it must route down, since a
//    switch above may have sent the packet down to it already;
//  - h: it must first go up; h hops on the shortest legal path through up-neighbours;
//  - kFar: no legal path.
class UpDownCosts {
 public:
  static constexpr uint16_t kDown = 0x8000;
  static constexpr uint16_t kFar = 0x7FFF;
  static bool down(uint16_t c) { return (c & kDown) != 0; }
  static uint16_t hops(uint16_t c) { return static_cast<uint16_t>(c & 0x7FFF); }

  static UpDownCosts compute(const FabricView& fv, const Orientation& o, unsigned threads);

  size_t size() const { return n_; }
  // Before transpose(): cells of every switch toward destination t. After: cells of switch s
  // toward every destination.
  std::span<const uint16_t> row(SwIdx i) const { return {c_.data() + i * n_, n_}; }
  void transpose(unsigned threads);
  bool by_source() const { return by_source_; }

 private:
  size_t n_ = 0;
  std::vector<uint16_t> c_;
  bool by_source_ = false;
};

// Where up/down has no legal path, some entries may still take the shortest path without
// risking deadlock, because no CA traffic ever uses them: every suffix of a legal route is
// legal, so a CA's packet never reaches a switch that lacks a legal path to its destination.
// The fill uses this for (1) routes from switches without CAs (spines: their traps reach the
// SM), and (2) routes to switches' own LIDs (spine to spine is down then up in any tree), which
// carry management traffic. A switch with CAs and no legal path to a CA stays unrouted and is
// reported. Built from the costs before transpose(); one BFS per destination switch that some
// switch cannot reach legally.
class SwitchFallback {
 public:
  static SwitchFallback compute(const FabricView& fv, const UpDownCosts& by_destination,
                                unsigned threads);
  // The shortest-path ports of s toward switch t; false when t needs no fallback or s cannot
  // reach it at all.
  bool candidates(const FabricView& fv, SwIdx s, SwIdx t, std::vector<uint8_t>& out) const;

 private:
  size_t n_ = 0, need_ = 0;
  std::vector<int32_t> row_of_;  // per destination switch: its column in hops_, or -1
  std::vector<uint8_t> hops_;
};

// The legal next hops of s toward every destination (costs must be transposed).
void updown_candidates(const FabricView& fv, const Orientation& o, const UpDownCosts& costs,
                       SwIdx s, CandidateLists& out);

}  // namespace routing
