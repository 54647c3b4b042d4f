#include "sm/partitions/membership.h"

#include <unordered_map>

namespace sm {

namespace {

// One partition's members, looked up per port without scanning the list: the last entry
// that names a port decides, so each keeps its position in the file. A partitions file may
// list thousands of GUIDs, and every sweep resolves every end port.
struct MemberIndex {
  struct Entry {
    size_t at = 0;
    Membership how = Membership::none;
  };
  std::unordered_map<Guid, Entry> by_guid;                   // the last entry naming each GUID
  std::vector<std::pair<size_t, const PartitionMember*>> wild;  // ALL, ALL_CAS, ALL_SWITCHES, SELF

  explicit MemberIndex(const Partition& part) {
    for (size_t i = 0; i < part.members.size(); ++i) {
      const PartitionMember& m = part.members[i];
      if (m.who == PartitionMember::Who::guid) by_guid[m.port_guid] = Entry{i, m.membership};
      else wild.emplace_back(i, &m);
    }
  }

  Membership of(const Topology& topo, NodeId id, PortNum port, Guid guid) const {
    using Who = PartitionMember::Who;
    Entry got;
    bool found = false;
    if (auto it = by_guid.find(guid); it != by_guid.end()) {
      got = it->second;
      found = true;
    }
    for (const auto& [at, m] : wild) {
      if (found && at < got.at) continue;
      bool named = false;
      switch (m->who) {
        case Who::all: named = true; break;
        case Who::all_cas: named = !topo.node(id).is_switch(); break;
        case Who::all_switches: named = topo.node(id).is_switch(); break;
        case Who::self: named = id == topo.sm_node() && port == topo.sm_port(); break;
        case Who::guid: break;
      }
      if (named) {
        got = Entry{at, m->membership};
        found = true;
      }
    }
    return found ? got.how : Membership::none;
  }
};

}  // namespace

std::vector<PortPKeys> resolve_pkeys(const Topology& topo, const PartitionSet& set) {
  std::vector<MemberIndex> members;
  members.reserve(set.partitions.size());
  for (const Partition& part : set.partitions) members.emplace_back(part);
  std::vector<PortPKeys> out;
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const bool sw = topo.node(id).is_switch();
    for (const Port& p : topo.ports(id)) {
      if (sw ? p.num.value() != 0 : p.num.value() == 0) continue;
      if (p.guid.is_zero()) continue;  // not seen
      PortPKeys pk{id, p.num, p.guid, {}};
      for (size_t i = 0; i < set.partitions.size(); ++i) {
        const Membership got = members[i].of(topo, id, p.num, p.guid);
        const uint16_t key = set.partitions[i].pkey & 0x7FFF;
        if (got == Membership::full || got == Membership::both) pk.pkeys.push_back(key | 0x8000);
        if (got == Membership::limited || got == Membership::both) pk.pkeys.push_back(key);
      }
      out.push_back(std::move(pk));
    }
  }
  return out;
}

}  // namespace sm
