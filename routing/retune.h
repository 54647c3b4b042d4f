// Retuning: moving the busiest destinations off measured hot channels without routing again.
// Where a switch's tables offer equally good ports for a destination (RoutingTables
// alternatives: adaptive-hint's legal up/down ports on a fat tree, its shortest-path ports
// elsewhere), a destination that crosses a hot channel may take another of them: the rest of
// its route is the next switch's, already in place, so every route stays what the engine
// would allow (the adaptive choices are deadlock-free where the engine's are, and any static
// pick among them too). Heaviest destinations first, each to the alternative that ends least
// busy, and only while a move lowers the busier of the two channels: a balanced channel moves
// nothing, an idle destination never moves, and the fewest entries change.
// The loads come from the PerfMgr (bytes per second, measured); the moves are returned as pins
// that the SM puts back on later full routes while the traffic lasts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mad/error.h"
#include "routing/tables.h"

namespace routing {

// A directed channel by its sending switch port, and what it carries.
struct ChannelRate {
  mad::Guid sw;
  uint8_t port = 0;
  double bytes_per_s = 0;
  bool operator==(const ChannelRate&) const = default;
};

// What a CA port receives: the traffic toward its LIDs.
struct DestinationRate {
  mad::Guid node;
  uint8_t port = 0;
  double bytes_per_s = 0;
  bool operator==(const DestinationRate&) const = default;
};

struct TrafficLoad {
  std::vector<ChannelRate> hot;       // channels to relieve, busiest first
  std::vector<ChannelRate> channels;  // every switch-to-switch channel measured
  std::vector<DestinationRate> destinations;
  bool empty() const { return hot.empty(); }
  bool operator==(const TrafficLoad&) const = default;
};

// One LFT entry moved: switch, destination LID, the port it takes.
struct Pin {
  mad::Guid sw;
  mad::Lid lid;
  uint8_t port = 0;
  bool operator==(const Pin&) const = default;
};

struct Retuned {
  RoutingTables tables;
  std::vector<Pin> moved;
  size_t destinations = 0;  // destination LIDs with an entry moved somewhere
  std::vector<std::string> notes;  // hot channels it could not relieve, and why
};

// Tables over `topo` (whose NodeIds `current` is indexed by) with the moves made.
Retuned retune_routes(const fabric::Topology& topo, const RoutingTables& current, const TrafficLoad& load);

// Puts earlier pins back on `tables` where the port is still one of the destination's
// alternatives there; returns how many went back.
size_t apply_pins(const fabric::Topology& topo, RoutingTables& tables, const std::vector<Pin>& pins);

}  // namespace routing
