#include "sm/partitions/membership.h"

#include <cstdint>
#include <unordered_map>

namespace sm {

namespace {

// One partition's members (or only its indx0 ones), looked up per port without scanning the
// list: the last entry that names a port decides. A partitions file may list thousands of
// GUIDs, and every sweep resolves every end port.
struct MemberIndex {
  std::unordered_map<Guid, const PartitionMember*> by_guid;  // the last entry naming each GUID
  std::vector<const PartitionMember*> wild;                  // ALL, ALL_CAS, ..., SELF

  MemberIndex(const Partition& part, bool indx0_only) {
    for (const PartitionMember& m : part.members) {
      if (indx0_only && !m.indx0) continue;
      if (m.who == PartitionMember::Who::guid) by_guid[m.port_guid] = &m;
      else wild.push_back(&m);
    }
  }

  // The last entry naming the port, or nullptr.
  const PartitionMember* of(const Topology& topo, NodeId id, PortNum port, Guid guid) const {
    using Who = PartitionMember::Who;
    const PartitionMember* got = nullptr;
    if (auto it = by_guid.find(guid); it != by_guid.end()) got = it->second;
    const mad::NodeType type = topo.node(id).type;
    for (const PartitionMember* m : wild) {
      if (got && m->seq < got->seq) continue;
      bool named = false;
      switch (m->who) {
        case Who::all: named = true; break;
        case Who::all_cas: named = type == mad::NodeType::ca; break;
        case Who::all_switches: named = type == mad::NodeType::sw; break;
        case Who::all_routers: named = type == mad::NodeType::router; break;
        case Who::self: named = id == topo.sm_node() && port == topo.sm_port(); break;
        case Who::guid: break;
      }
      if (named) got = m;
    }
    return got;
  }
};

void push_keys(std::vector<uint16_t>& out, uint16_t pkey, Membership how, bool allow_both) {
  const uint16_t key = pkey & 0x7FFF;
  if (how == Membership::both && !allow_both) how = Membership::full;
  if (how == Membership::full || how == Membership::both) out.push_back(key | 0x8000);
  if (how == Membership::limited || how == Membership::both) out.push_back(key);
}

}  // namespace

std::vector<PortPKeys> resolve_pkeys(const Topology& topo, const PartitionSet& set) {
  std::vector<MemberIndex> members, indx0;
  members.reserve(set.partitions.size());
  indx0.reserve(set.partitions.size());
  for (const Partition& part : set.partitions) {
    members.emplace_back(part, false);
    indx0.emplace_back(part, true);
  }
  std::vector<PortPKeys> out;
  std::vector<const PartitionMember*> decided(set.partitions.size());
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const bool sw = topo.node(id).is_switch();
    for (const Port& p : topo.ports(id)) {
      if (sw ? p.num.value() != 0 : p.num.value() == 0) continue;
      if (p.guid.is_zero()) continue;  // not seen
      // indx0, as OpenSM: the partition of the last indx0 entry naming the port, unless a later
      // entry of that partition named it without indx0.
      constexpr size_t kNoIndx0 = SIZE_MAX;
      size_t first = kNoIndx0;
      uint32_t last_indx0 = 0;
      for (size_t i = 0; i < set.partitions.size(); ++i) {
        decided[i] = members[i].of(topo, id, p.num, p.guid);
        const PartitionMember* x = indx0[i].of(topo, id, p.num, p.guid);
        if (x && x->seq > last_indx0) {
          last_indx0 = x->seq;
          first = i;
        }
      }
      if (first != kNoIndx0 && !decided[first]->indx0) first = kNoIndx0;
      PortPKeys pk{id, p.num, p.guid, {}};
      if (first != kNoIndx0) push_keys(pk.pkeys, set.partitions[first].pkey, decided[first]->membership, set.allow_both_pkeys);
      for (size_t i = 0; i < set.partitions.size(); ++i)
        if (decided[i] && i != first) push_keys(pk.pkeys, set.partitions[i].pkey, decided[i]->membership, set.allow_both_pkeys);
      out.push_back(std::move(pk));
    }
  }
  return out;
}

}  // namespace sm
