// Fat-tree levels: switches with CAs are the leaves (level 0); every other switch sits at its
// hop distance from the nearest leaf. The switch graph is a fat tree when every usable link
// joins two adjacent levels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "routing/fabric_view.h"

namespace routing {

inline constexpr uint32_t kNoLevel = UINT32_MAX;  // no leaf reachable

struct Levels {
  std::vector<uint32_t> level;  // per switch
  std::vector<SwIdx> leaves;    // in switch-index (GUID) order
  uint32_t top = 0;             // highest level
};

Levels leaf_levels(const FabricView& fv);

// Empty when `lv` makes `fv` a fat tree; otherwise names the first offending link.
std::string fat_tree_violation(const FabricView& fv, const Levels& lv);

// Up-moves by level, for an Orientation: rank 0 at the top.
std::vector<uint32_t> ranks_from_levels(const Levels& lv);

}  // namespace routing
