// ftree's coordinates of a tree, for index-based choices (d-mod-k) that survive missing links.
//  - A destination's digit at level h: at its own switch, its rank among that switch's LIDs
//    (a leaf's CAs in port order); above, the rank of the piece of the tree below level h that
//    holds it among those of the piece below level h+1 (on a 3-level tree: its leaf's rank in
//    its pod). On a complete k-ary tree these are the digits of its index in base k.
//  - A switch's parents in positions: the switches that share parents (a pod's leaves, the
//    aggregation switches of one column across the pods) order the union of their parents the
//    same way, by the parent's own class, then switch index. A missing cable leaves its
//    position empty instead of renumbering the others, so one lost link moves only the
//    destinations that used it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric_view.h"
#include "routing/levels.h"

namespace routing {

class TreeSlots {
 public:
  // `order`: the destinations in leaf order.
  TreeSlots(const FabricView& fv, const Levels& lv, std::span<const Dest> order);

  // Destination i's digit for a choice at a switch of level h (h >= its switch's level).
  uint32_t digit(size_t i, uint32_t h) const { return digits_[i * stride_ + h]; }
  // The positions switch s's parents may take (0: none), and parent p's.
  uint32_t positions(SwIdx s) const {
    return class_begin_[cls_[s] + 1] - class_begin_[cls_[s]];
  }
  uint32_t position(SwIdx s, SwIdx parent) const;
  // The rank of the piece of the tree below s's level + 1 that holds s, among all of them (on a
  // 3-level tree: a leaf's index among the leaves, an aggregation switch's pod).
  uint32_t home(SwIdx s) const { return home_[s]; }

 private:
  size_t stride_ = 1;
  std::vector<uint32_t> digits_;       // per destination, per level
  std::vector<uint32_t> cls_;          // per switch: its class's index
  std::vector<uint32_t> class_begin_;  // per class: its parents in parents_
  std::vector<SwIdx> parents_;         // per class, in position order
  std::vector<uint32_t> home_;
};

}  // namespace routing
