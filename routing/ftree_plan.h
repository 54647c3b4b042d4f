// ftree's plan: where each destination's traffic converges. Sources are taken in groups (the
// connected pieces of the tree below its top level: the pods of a 3-level tree, the leaves of
// a 2-level one), weighed by their CA count. Level by level from the leaves up, every switch
// spreads the traffic that must climb past it (destination by destination, in leaf order)
// over its up-links: a destination stays on the least-loaded up-link while it fits that
// switch's fair share, and only the groups that do not fit move to the next one. On a
// complete tree nothing is ever split and each destination gets one main path (d-mod-k); where
// links are missing, a destination's groups split over several main paths, so that a leaf
// with 7 up-links for 8 CAs carries 8/7 of a destination per link instead of 2 on one.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric_view.h"
#include "routing/ftree_slots.h"
#include "routing/hints.h"
#include "routing/levels.h"

namespace routing {

inline constexpr uint32_t kNoGroup = UINT32_MAX;

struct FtreePlan {
  std::vector<uint32_t> group_of;  // per switch; kNoGroup at the top level

  // Per destination (index into the leaf order): the main-path entries, each a switch and its
  // port toward the destination, and the turns: (switch, group) = that group's sources meet
  // the destination's routes at that switch (sorted by switch).
  struct Preset {
    SwIdx sw;
    uint8_t port;
  };
  struct Turn {
    SwIdx sw;
    uint32_t group;
  };
  std::vector<uint32_t> preset_begin, turn_begin;  // size destinations + 1
  std::vector<Preset> presets;
  std::vector<Turn> turns;

  std::span<const Preset> presets_of(size_t d) const {
    return {presets.data() + preset_begin[d], preset_begin[d + 1] - preset_begin[d]};
  }
  std::span<const Turn> turns_of(size_t d) const {
    return {turns.data() + turn_begin[d], turn_begin[d + 1] - turn_begin[d]};
  }
};

// `order`: destinations in leaf order. Switch LIDs weigh nothing (management traffic).
FtreePlan plan_ftree(const FabricView& fv, const Levels& lv, std::span<const Dest> order,
                     const TreeSlots& slots, const PortWeights* weights);

}  // namespace routing
