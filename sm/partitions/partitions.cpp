#include "sm/partitions/partitions.h"

namespace sm {

PartitionSet PartitionSet::defaults() {
  Partition d;
  d.name = "Default";
  d.pkey = 0x7FFF;
  d.ipoib = true;
  d.members.push_back(PartitionMember{PartitionMember::Who::all, {}, Membership::full});
  return PartitionSet{{std::move(d)}};
}

}  // namespace sm
