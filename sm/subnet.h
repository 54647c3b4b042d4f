// What a sweep left the subnet as, published at its end as one immutable value shared by
// pointer: the topology, the LIDs, the routing tables, what the SM knows every switch's LFT and
// MFT and every port's P_Key table hold, every node's attributes as last read or written, and
// the SM's own state. The store, the SA and the metrics endpoint read this value, never the SM
// object, so nothing holds a pointer into state a later sweep replaces. Publishing shares what
// did not change with the subnet before (CowMap), so it costs a pointer per node, not a copy.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ha/role.h"
#include "mad/sm_info.h"
#include "routing/tables.h"
#include "sm/fabric_model.h"
#include "sm/lid_manager.h"
#include "sm/memory.h"
#include "sm/sweep_report.h"

namespace sm {

// The SM as it answered SMInfo when the sweep ended.
struct SmView {
  mad::SmState state = mad::SmState::not_active;
  mad::SmInfo info;  // as SMInfo is answered without the SM_Key
  Guid port_guid;
  Lid lid;
  bool up = false;  // SUBNET UP reached by this SM as master
  uint64_t sweeps = 0;
  std::vector<ha::Peer> peers;
  // M_Key: violations counted on ports holding this SM's key, Bad M_Key traps from others,
  // ports left alone for a key this SM does not know.
  uint64_t mkey_violations = 0;
  uint64_t bad_mkey_traps = 0;
  size_t mkey_refusing = 0;
};

struct Subnet {
  SweepReport sweep;
  std::shared_ptr<const Topology> topology;  // as walked, with the LIDs assigned
  // The tables this sweep programmed; null when it configured nothing (not master, or it
  // failed before routing).
  std::shared_ptr<const routing::RoutingTables> tables;
  // Tables with SLs (VL layers, sm/program/vl_plan.h): the SL multicast groups are answered
  // with, whose VL no unicast layer uses; none: the group's own SL.
  std::optional<uint8_t> multicast_sl;
  std::shared_ptr<const LidMap> lids;  // every GUID -> LID remembered, absent ports included
  // By NodeId of `topology`; null where nothing is known.
  std::vector<std::shared_ptr<const NodeRec>> nodes;
  std::vector<std::shared_ptr<const SwitchMemory>> lfts;
  std::vector<std::shared_ptr<const NodePKeys>> pkeys;
  std::vector<std::shared_ptr<const MftSwitchMemory>> mfts;
  SmView sm;

  bool configured() const { return tables != nullptr; }
  const NodeRec* node(NodeId id) const { return id < nodes.size() ? nodes[id].get() : nullptr; }
  const SwitchMemory* lft(NodeId id) const { return id < lfts.size() ? lfts[id].get() : nullptr; }
  const NodePKeys* pkeys_of(NodeId id) const { return id < pkeys.size() ? pkeys[id].get() : nullptr; }
  const MftSwitchMemory* mft(NodeId id) const { return id < mfts.size() ? mfts[id].get() : nullptr; }
};

}  // namespace sm
