// LMC > 0: each LID of a port on another way where the fabric has one (OpenSM prefers another
// system image for each LID of a port). The engines that grow a tree per destination LID
// (lash, dfsssp, cdg) weigh, for a port's next LID, the arcs this returns more than any load.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric_view.h"

namespace routing {

// The arcs toward the neighbour an earlier LID's tree leaves a switch by (`earlier`: each
// tree's arc per switch, `none` where it has none), at the switches that have another
// neighbour as close (in hops) to the destination's switch `root`: where a switch's single
// short way is taken, it stays (no detour). An arc appears once per earlier tree using it.
std::vector<uint32_t> lmc_avoid_arcs(const FabricView& fv, SwIdx root,
                                     std::span<const std::span<const uint32_t>> earlier, uint32_t none);

}  // namespace routing
