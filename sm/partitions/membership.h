// Which P_Keys each end port holds: a pure function of the subnet and the partitions. End
// ports are CA ports and switch port 0 (what a port GUID names); a switch's external port
// facing a CA enforces that CA port's table (sm/partitions/pkey_programmer.h).
#pragma once

#include <cstdint>
#include <vector>

#include "sm/partitions/partitions.h"
#include "sm/types.h"

namespace sm {

struct PortPKeys {
  NodeId node = kNoNode;
  PortNum port;
  Guid guid;                   // the port's GUID
  std::vector<uint16_t> pkeys; // table order: its indx0 partition, Default, then file order; bit 15 = full
};

// Every end port with a GUID, in NodeId then port order, with its P_Keys: for each partition
// the port belongs to (the last member entry naming it decides how), P_Key | 0x8000 for a
// full member, the bare P_Key for a limited one, both (full first) for =both. SELF is the SM's
// port. The partition of the last indx0 entry naming the port comes first (index 0), unless a
// later entry of that partition named the port without indx0 (OpenSM then puts no P_Key of the
// file's choosing there). A port in no partition gets an empty list.
std::vector<PortPKeys> resolve_pkeys(const Topology& topo, const PartitionSet& set);

}  // namespace sm
