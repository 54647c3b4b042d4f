// The output of routing: for every switch, a linear forwarding table (LID -> output port) and,
// optionally, per-destination sets of equally good ports (adaptive-routing hints). Indexed by
// the Topology's NodeId; CAs have empty tables. Diagnostics say what an engine could not route.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fabric/ar_table.h"
#include "fabric/topology.h"

namespace routing {

inline constexpr uint8_t kNoRoute = 0xFF;  // LFT entry that drops

// A switch that has no route to a live destination port (no legal path under the engine's
// rules, or none at all). One entry per (switch, destination port), not per LID of its LMC range.
struct UnroutedPair {
  fabric::NodeId from;        // the switch without a route
  fabric::NodeId to;          // the destination's node (CA, router or switch)
  mad::PortNum to_port;   // its port (0 for a switch)
  mad::Lid lid;           // its base LID
  bool operator==(const UnroutedPair&) const = default;
};

// What the SM logs after routing. The listed pairs are capped (the first kMaxListed in
// (switch NodeId, LID) order); the counts are exact.
struct RoutingDiagnostics {
  static constexpr size_t kMaxListed = 1000;
  std::vector<UnroutedPair> unrouted;
  uint64_t unrouted_pairs = 0;     // all (switch, destination port) pairs without a route
  uint64_t unrouted_ca_pairs = 0;  // (source CA port, destination port) pairs among them
  // Up/down engines: (switch, destination port) pairs the rule has no path for that got the
  // shortest path instead, because no CA traffic can take them: routes to switch LIDs (spine
  // to spine) and routes from switches without CAs. See routing/updown.h.
  uint64_t fallback_pairs = 0;
  std::vector<std::string> notes;  // engine decisions worth a log line (roots chosen, ...)
  bool operator==(const RoutingDiagnostics&) const = default;

  // Puts a note before the others (an engine's summary line goes first).
  void note_first(std::string line);
};

// "switch 'S1_00_00' (0x...) has no route to 'H00012' port 1 (LID 13)".
std::string describe(const fabric::Topology& topo, const UnroutedPair& p);

class RoutingTables {
 public:
  RoutingTables() = default;
  // Tables for `node_count` nodes, each switch's LFT covering LIDs 0..max_lid, all kNoRoute;
  // `threads` write them (157 MB at 43,011 nodes: the page faults are most of the time).
  RoutingTables(const fabric::Topology& topo, mad::Lid max_lid, unsigned threads = 1);

  mad::Lid max_lid() const { return max_lid_; }
  bool has_table(fabric::NodeId sw) const { return sw < lft_.size() && !lft_[sw].empty(); }
  std::span<const uint8_t> lft(fabric::NodeId sw) const { return lft_[sw]; }
  std::span<uint8_t> lft(fabric::NodeId sw) { return lft_[sw]; }
  uint8_t port(fabric::NodeId sw, mad::Lid dst) const { return lft_[sw][dst.value()]; }
  void set(fabric::NodeId sw, mad::Lid dst, uint8_t port) { lft_[sw][dst.value()] = port; }

  // Adaptive-routing hints: the equally good output ports of a switch for a destination.
  // Stored as hardware AR does: per switch a few port groups, and per LID a group number, so
  // a large fabric costs two bytes per LFT entry, not a list.
  bool has_alternatives() const { return !alt_group_.empty(); }
  std::span<const uint8_t> alternatives(fabric::NodeId sw, mad::Lid dst) const;
  // Replaces the hints with `ports[sw][lid]` lists (engines that compute them call this once).
  void set_alternatives(const std::vector<std::vector<std::vector<uint8_t>>>& ports);
  // Sets one switch's hints: `groups` (group 0 should be empty: no alternatives) and the group
  // of every LID 0..max_lid. Safe to call concurrently for different switches once
  // reserve_alternatives() has run.
  void reserve_alternatives();
  void set_alternative_groups(fabric::NodeId sw, const std::vector<std::vector<uint8_t>>& groups,
                              std::vector<uint16_t> group_of_lid);
  // One switch's hints as an AR table (empty when it has none).
  fabric::ArTable ar_table(fabric::NodeId sw) const;

  // Engines that spread routes over virtual lanes (vls() > 1): the SL a packet to `dst` carries
  // when it enters the fabric at switch `sw` (a CA's packets enter at its switch; a switch's
  // own at itself). The SM programs SL2VL so that SL i rides VL i and the SA answers
  // PathRecord with this SL. Without layers (has_sls() false) every SL is 0.
  bool has_sls() const { return !sl_.empty(); }
  uint8_t sl(fabric::NodeId sw, mad::Lid dst) const {
    return sw < sl_.size() && dst.value() < sl_[sw].size() ? sl_[sw][dst.value()] : 0;
  }
  // Allocates the SLs of every switch (all 0); then set_sl() for different switches may run
  // concurrently.
  void reserve_sls();
  void set_sl(fabric::NodeId sw, mad::Lid dst, uint8_t sl) { sl_[sw][dst.value()] = sl; }
  // The number of VLs the SLs use: the highest SL + 1 (1 without layers).
  unsigned vls_used() const;

  RoutingDiagnostics& diagnostics() { return diag_; }
  const RoutingDiagnostics& diagnostics() const { return diag_; }

  bool operator==(const RoutingTables&) const = default;

 private:
  mad::Lid max_lid_;
  std::vector<std::vector<uint8_t>> lft_;
  // Per switch: the group of every LID, and the groups as CSR (offsets into ports).
  std::vector<std::vector<uint16_t>> alt_group_;
  std::vector<std::vector<uint32_t>> alt_group_off_;
  std::vector<std::vector<uint8_t>> alt_group_ports_;
  std::vector<std::vector<uint8_t>> sl_;  // per switch, by destination LID; empty: all SL 0
  RoutingDiagnostics diag_;
};

}  // namespace routing
