// What a walk could not read: a probe through a live port, a PortInfo, a SwitchInfo or a
// NodeDescription that stayed unanswered after every resend. Lost or hung, such a part of the
// fabric is unknown, not gone: a heavy walk keeps what the SM knew of it from before, so a lost
// SMP never reads as a smaller fabric (nothing is dropped, unassigned or re-routed for it),
// and the sweep does not call the subnet up while holes remain.
#pragma once

#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sm/fabric_model.h"

namespace sm {

struct Hole {
  // node_info: a probe through a port; at_route: a partial walk's NodeInfo of a known node.
  enum class Kind : uint8_t { node_info, port_info, switch_info, description, at_route };
  Guid node;         // node_info: the node probed from (zero: the SM's own node)
  uint8_t port = 0;  // node_info: the port probed through; port_info: the port not read
  Kind kind = Kind::node_info;
  auto operator<=>(const Hole&) const = default;
  std::string str() const;
};
using HoleSet = std::set<Hole>;

struct Kept {
  std::vector<Guid> nodes;  // taken over whole from before (not reached by this walk)
  size_t attributes = 0;    // PortInfo, SwitchInfo, descriptions of reached nodes, from before
  size_t unknown = 0;       // holes nothing was known of before
};

// Fills `walked` (a heavy walk's model) from `before` where the walk has holes: the nodes behind
// an unanswered probe or an unread port, and everything reachable only through them, as they
// were (with their cables, where the walk left both ends free), and the attributes of reached
// nodes that were not read. Holes in `left_out` are not filled: they stay out.
Kept keep_unanswered(FabricModel& walked, const FabricModel& before, const std::vector<Hole>& holes,
                     const HoleSet& left_out);

}  // namespace sm
