#include "sm/partitions/membership.h"

namespace sm {

namespace {

bool names(const PartitionMember& m, const Topology& topo, NodeId id, PortNum port, Guid guid) {
  using Who = PartitionMember::Who;
  switch (m.who) {
    case Who::guid: return m.port_guid == guid;
    case Who::all: return true;
    case Who::all_cas: return !topo.node(id).is_switch();
    case Who::all_switches: return topo.node(id).is_switch();
    case Who::self: return id == topo.sm_node() && port == topo.sm_port();
  }
  return false;
}

}  // namespace

std::vector<PortPKeys> resolve_pkeys(const Topology& topo, const PartitionSet& set) {
  std::vector<PortPKeys> out;
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const bool sw = topo.node(id).is_switch();
    for (const Port& p : topo.ports(id)) {
      if (sw ? p.num.value() != 0 : p.num.value() == 0) continue;
      if (p.guid.is_zero()) continue;  // not seen
      PortPKeys pk{id, p.num, p.guid, {}};
      for (const Partition& part : set.partitions) {
        Membership got = Membership::none;
        for (const PartitionMember& m : part.members)
          if (names(m, topo, id, p.num, p.guid)) got = m.membership;
        const uint16_t key = part.pkey & 0x7FFF;
        if (got == Membership::full || got == Membership::both) pk.pkeys.push_back(key | 0x8000);
        if (got == Membership::limited || got == Membership::both) pk.pkeys.push_back(key);
      }
      out.push_back(std::move(pk));
    }
  }
  return out;
}

}  // namespace sm
