// What the SM needs of multicast (sm/multicast/ implements it, a library above this one): the
// MFTs programmed after every sweep's LFTs (the topology may have changed), passes between
// sweeps when joins and leaves changed a group, and what the switches' MFTs hold for the
// subnet a sweep publishes.
#pragma once

#include <functional>
#include <memory>
#include <set>

#include "sm/fabric_model.h"
#include "sm/memory.h"
#include "sm/smp_client.h"

namespace sm {

class MulticastTables {
 public:
  struct Outcome {
    uint64_t blocks_written = 0;
    uint64_t failures = 0;
    std::set<Guid> failed;  // the switches a Set failed on
  };
  virtual ~MulticastTables() = default;
  // A sweep read the fabric again: no tree of the old topology is used from now on.
  virtual void topology_changed() = 0;
  // What switches hold is no longer known (this SM stood by; another may have written).
  virtual void forget_tables() = 0;
  // Groups changed since the last pass.
  virtual bool wants_programming() const = 0;
  // Plans every switch's MFT and writes the blocks that differ; `done` (may be empty) runs
  // when the answers are in. `after_sweep`: the topology was just read.
  virtual void program(const Topology& topo, FabricModel& model, SmpClient& client, bool after_sweep,
                       std::function<void(const Outcome&)> done) = 0;
  // A switch's MFT as this SM knows it (null: unknown or empty), for a published subnet.
  virtual std::shared_ptr<const MftSwitchMemory> memory_of(Guid sw) const = 0;
};

}  // namespace sm
