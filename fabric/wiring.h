// A fabric's switches and cables as the forwarding hardware sees them, for walking LFTs:
// switches densely numbered in NodeId order, each switch port a slot saying what a packet sent
// out of it meets (a switch-to-switch link with an id, a CA port, or nothing usable), and the
// CA ports in leaf order (switches in NodeId order, then by switch port). The one walker of
// the routing metrics (fabric/metrics.cpp) and the simulator's traffic model (sim/traffic/).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "fabric/topology.h"

namespace fabric {

inline constexpr uint32_t kNoWire = UINT32_MAX;  // no switch, no link, no CA

// A link is up when both ports are cabled and Init or better.
bool link_up(const Topology& t, const Port& p);

// What a packet sent out of one switch port meets.
struct Slot {
  uint32_t link = kNoWire;   // the directed switch-to-switch link, when the port has one up
  uint32_t to = kNoWire;     // the switch at its far end
  const Port* ca = nullptr;  // or the CA port at the far end of an up link
  uint32_t ca_index = kNoWire;  // ... its index in Wiring::cas
  bool usable = false;       // up and Active at both ends
};

struct WiredCa {
  uint32_t leaf;  // its switch
  Lid lid;        // base LID
  uint8_t lmc;
  NodeId node;
  PortNum port;
  uint32_t slot;  // the leaf's slot that leads to it
};

struct WiredLink {
  NodeId from;
  PortNum from_port;
  NodeId to;
  PortNum to_port;
};

struct Wiring {
  std::vector<uint32_t> sw_of;      // NodeId -> switch, kNoWire for CAs
  std::vector<NodeId> node_of;      // switch -> NodeId
  std::vector<uint32_t> slot_base;  // switch -> slot of its port 0
  std::vector<uint8_t> port_count;  // switch -> ports
  std::vector<Slot> slots;
  std::vector<WiredLink> links;
  std::vector<uint32_t> link_to;    // link -> switch at its far end
  std::vector<std::span<const uint8_t>> lft;  // switch -> LFT
  std::vector<WiredCa> cas;

  const Slot* slot(uint32_t s, uint8_t port) const {
    return port >= 1 && port <= port_count[s] ? &slots[slot_base[s] + port] : nullptr;
  }
  uint8_t out(uint32_t s, uint16_t lid) const { return lid < lft[s].size() ? lft[s][lid] : 0xFF; }
  // Whether `lid` belongs to the CA port a slot leads to.
  static bool owns(const Slot& sl, uint16_t lid) {
    const uint32_t base = sl.ca->lid.value();
    return base != 0 && lid >= base && lid < base + (1u << sl.ca->lmc);
  }
};

// `lfts[id]`: the LFT of switch `id` (entry l = output port for LID l), empty or absent for CAs.
Wiring wire(const Topology& t, std::span<const std::span<const uint8_t>> lfts);

}  // namespace fabric
