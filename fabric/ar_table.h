// A switch's adaptive-routing table as hardware AR keeps it: a few port groups, and per LID
// the group of equally good output ports (group 0: none, the LFT's port alone). A routing
// engine's alternatives come out in this form (RoutingTables::ar_table), and an adaptive
// simulated switch chooses from it (sim/traffic/; the SM has no AR MADs, so `fabricsm sim`
// carries the tables to the simulated switches).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fabric {

struct ArTable {
  std::vector<std::vector<uint8_t>> groups;  // groups[0] should be empty
  std::vector<uint16_t> group_of_lid;        // by LID; beyond its end: group 0

  std::span<const uint8_t> ports(uint16_t lid) const {
    if (lid >= group_of_lid.size()) return {};
    const uint16_t g = group_of_lid[lid];
    return g < groups.size() ? std::span<const uint8_t>(groups[g]) : std::span<const uint8_t>{};
  }
  bool empty() const { return groups.size() <= 1; }
};

}  // namespace fabric
