// What the web view needs of a Subnet beyond the Subnet itself, built once per sweep (on the
// HTTP side, when a request first sees the new value): every cable once, the cables that were
// there before and are gone (failed), tiers and groups for drawing, LIDs to ports, and a
// search by GUID, LID or node description. Immutable once built; shared by pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/metrics.h"
#include "sm/subnet.h"

namespace web {

using fabric::NodeId;

// A cable of the current topology, from its lower (NodeId, port) end.
struct Cable {
  NodeId a;
  uint8_t a_port;
  NodeId b;
  uint8_t b_port;
};

// A cable seen before and not now: by GUIDs, with the names it had.
struct GoneCable {
  mad::Guid a;
  uint8_t a_port = 0;
  std::string a_name;
  mad::Guid b;
  uint8_t b_port = 0;
  std::string b_name;
  int64_t last_seen_ms = 0;  // 0: not known (before this process)
  auto key() const { return std::tuple(a.value(), a_port, b.value(), b_port); }
};

// Switches drawn together when the fabric is too large to draw one by one.
struct Group {
  std::string name;  // "pod 3", "spines 2", "part 7"
  int tier = 0;      // the lowest tier of its switches
  std::vector<NodeId> switches;
  size_t cas = 0;
};

class FabricIndex {
 public:
  // Switch count up to which the topology is drawn switch by switch without groups.
  static constexpr size_t kDrawAll = 256;

  // `before`: the index of the previous Subnet (its cables that are gone now become failed
  // ones); `seed`: cables known to be gone before (the store's), for the first index.
  static std::shared_ptr<const FabricIndex> build(std::shared_ptr<const sm::Subnet> s, const FabricIndex* before,
                                                  std::span<const GoneCable> seed, int64_t now_ms);

  const sm::Subnet& subnet() const { return *subnet_; }
  const fabric::Topology& topo() const { return *subnet_->topology; }
  std::span<const Cable> cables() const { return cables_; }
  std::span<const GoneCable> gone() const { return gone_; }
  std::span<const Group> groups() const { return groups_; }
  int tier(NodeId n) const { return tier_[n]; }      // CAs: -1
  int group(NodeId n) const { return group_[n]; }    // a CA: its switch's; -1 unlinked
  int max_tier() const { return max_tier_; }
  bool tree() const { return tree_; }                // every switch link joins adjacent tiers
  size_t cas_of(NodeId sw) const { return ca_count_[sw]; }
  // The node and port that hold a LID (every LID of an LMC range).
  std::optional<std::pair<NodeId, uint8_t>> by_lid(uint32_t lid) const;
  // Nodes matching a GUID (node or port, with or without 0x), a LID, or a piece of their
  // description (any case); at most `max`, in NodeId order.
  std::vector<NodeId> search(std::string_view q, size_t max) const;
  // A node named by GUID, LID or exact description.
  std::optional<NodeId> resolve(std::string_view what) const;
  // The routing metrics of the tables this subnet's sweep programmed (fabric/metrics.h),
  // computed on first demand (seconds on the largest fabric) and kept; null without tables.
  const fabric::RoutingFigures* routing_figures() const;

 private:
  void index_cables(const FabricIndex* before, std::span<const GoneCable> seed, int64_t now_ms);
  void assign_tiers();
  void assign_groups();

  std::shared_ptr<const sm::Subnet> subnet_;
  std::vector<Cable> cables_;
  std::vector<GoneCable> gone_;
  std::vector<Group> groups_;
  std::vector<int> tier_, group_;
  std::vector<uint32_t> ca_count_;
  std::vector<std::pair<NodeId, uint8_t>> lid_owner_;  // by LID; kNoNode: none
  std::vector<std::string> lower_desc_;
  int max_tier_ = 0;
  bool tree_ = false;
  mutable std::once_flag figures_once_;
  mutable std::optional<fabric::RoutingFigures> figures_;
};

// "0x0002c90300a1b2c3" (the form every fabricsm output uses).
std::string guid_text(mad::Guid g);
// A GUID as typed: with or without 0x, any case; none when it is not one.
std::optional<uint64_t> parse_guid(std::string_view s);

}  // namespace web
