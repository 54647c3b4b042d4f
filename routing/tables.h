// The output of routing: for every switch, a linear forwarding table (LID -> output port) and,
// optionally, per-destination sets of equally good ports (adaptive-routing hints). Indexed by
// the Topology's NodeId; CAs have empty tables.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sm/topology.h"

namespace routing {

inline constexpr uint8_t kNoRoute = 0xFF;  // LFT entry that drops

class RoutingTables {
 public:
  RoutingTables() = default;
  // Tables for `node_count` nodes, each switch's LFT covering LIDs 0..max_lid, all kNoRoute.
  RoutingTables(const sm::Topology& topo, mad::Lid max_lid);

  mad::Lid max_lid() const { return max_lid_; }
  bool has_table(sm::NodeId sw) const { return sw < lft_.size() && !lft_[sw].empty(); }
  std::span<const uint8_t> lft(sm::NodeId sw) const { return lft_[sw]; }
  std::span<uint8_t> lft(sm::NodeId sw) { return lft_[sw]; }
  uint8_t port(sm::NodeId sw, mad::Lid dst) const { return lft_[sw][dst.value()]; }
  void set(sm::NodeId sw, mad::Lid dst, uint8_t port) { lft_[sw][dst.value()] = port; }

  // Adaptive-routing hints: the equally good output ports of a switch for a destination.
  bool has_alternatives() const { return !alt_offsets_.empty(); }
  std::span<const uint8_t> alternatives(sm::NodeId sw, mad::Lid dst) const;
  // Replaces the hints with `ports[sw][lid]` lists (engines that compute them call this once).
  void set_alternatives(const std::vector<std::vector<std::vector<uint8_t>>>& ports);

  bool operator==(const RoutingTables&) const = default;

 private:
  mad::Lid max_lid_;
  std::vector<std::vector<uint8_t>> lft_;
  // CSR per switch: alt_offsets_[sw][lid]..[lid+1] index alt_ports_[sw].
  std::vector<std::vector<uint32_t>> alt_offsets_;
  std::vector<std::vector<uint8_t>> alt_ports_;
};

}  // namespace routing
