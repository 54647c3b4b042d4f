// Multicast for the SM: the group registry (groups.h), its SA face (MCMemberRecord,
// mcmember.h), the groups the partitions keep (the IPoIB broadcast group of every ipoib
// partition, mgid= lines), and the MFTs
// (tree.h, mft.h). The SubnetManager programs the MFTs through sm::MulticastTables after the
// LFTs of each sweep (the topology may have changed) and, between sweeps, at the next tick
// after joins or leaves changed a group, so a burst of joins costs one pass. The owner (the
// service stack, tests) keeps it alive as long as the SM and the SA server that borrow it.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/multicast/groups.h"
#include "sm/multicast/mcmember.h"
#include "sm/multicast/mft.h"
#include "sm/multicast_tables.h"
#include "sm/partitions/partitions.h"
#include "sm/smp_client.h"
#include "sm/types.h"

namespace sm::multicast {

struct MulticastConfig {
  McMemberConfig sa;
  PartitionSet partitions = PartitionSet::defaults();
};

class Multicast final : public MulticastTables {
 public:
  Multicast(Logger& log, MulticastConfig cfg = {});

  sa::Handler& mcmember_handler() { return handler_; }
  Registry& groups() { return groups_; }
  const Registry& groups() const { return groups_; }

  // Groups as the store kept them (encode_group records), before the first sweep so their
  // MLIDs are taken before anything new is created, or on a takeover: they replace every group
  // held (what switches hold is still known, so the next pass writes only differences). A bad
  // record is logged and skipped. Returns how many came back.
  size_t restore(std::span<const std::vector<uint8_t>> records);
  // Creates the groups the partitions keep (IPoIB broadcast groups, mgid= lines) that do not exist yet.
  void ensure_partition_groups();
  // A new partition set (SIGHUP): new partition groups are created; a group the partitions no
  // longer name is no longer kept, and goes when it has no full member.
  void set_partitions(PartitionSet partitions);

  // After a sweep: members whose port is no longer in the fabric leave every group (as if
  // they had sent a leave; a group left with no full member goes unless kept). Returns how
  // many memberships ended.
  size_t drop_absent_members(const Topology& topo);
  // sm::MulticastTables. While a pass runs, the next waits for it. `after_sweep`: the
  // topology was just read (a switch that reads LinearFDBTop 0 was reset: it holds nothing).
  bool wants_programming() const override { return planned_version_ != groups_.version(); }
  void program(const Topology& topo, FabricModel& model, SmpClient& client, bool after_sweep,
               std::function<void(const Outcome&)> done) override;
  void topology_changed() override { trees_.clear(); }
  void forget_tables() override { memory_.clear(); }
  std::shared_ptr<const MftSwitchMemory> memory_of(Guid sw) const override { return memory_.share(sw); }
  bool busy() const { return writer_ && writer_->busy(); }
  const MftMemory& memory() const { return memory_; }
  const MftStats& last_stats() const { return last_; }

  // Groups changed since the last call, for the store: (key = MGID, record; empty = gone).
  std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> take_store_changes();

 private:
  void run(MftPlan plan, std::function<void(const Outcome&)> done);

  Logger& log_;
  MulticastConfig cfg_;
  Registry groups_;
  McMemberHandler handler_;
  MftMemory memory_;
  TreeCache trees_;
  std::unique_ptr<MftWriter> writer_;
  std::deque<std::pair<MftPlan, std::function<void(const Outcome&)>>> queued_;
  uint64_t planned_version_ = UINT64_MAX;
  MftStats last_;
};

}  // namespace sm::multicast
