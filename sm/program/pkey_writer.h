// Sends a sweep's P_Key plan (pkey_plan.h) through the shared windowed sender: stage 1 the
// table blocks (read back where unknown, written where they differ), stage 2 the enforcement
// bits of the switch ports facing CAs. What the ports answered goes into PKeyMemory and the
// model.
#pragma once

#include <functional>
#include <memory>
#include <set>

#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/memory.h"
#include "sm/program/pkey_plan.h"
#include "sm/program/sender.h"
#include "sm/smp_client.h"

namespace sm {

struct PKeyStats {
  uint64_t blocks_written = 0;
  uint64_t blocks_read = 0;
  uint64_t ports_written = 0;      // ports with at least one block written
  uint64_t enforcement_sets = 0;   // PortInfo Sets for the enforcement bits
  uint64_t failures = 0;
  bool operator==(const PKeyStats&) const = default;
};

class PKeyWriter {
 public:
  PKeyWriter(SmpClient& client, Logger& log, PKeyMemory& memory, FabricModel& model)
      : client_(client), log_(log), memory_(memory), model_(model), sender_(client.transactions()) {}

  // The topology is kept until `done` runs.
  // `plan` from plan_pkeys() over the same topology (on the worker: it grows with the fabric).
  void start(std::shared_ptr<const Topology> topo, PKeyPlan plan, std::function<void()> done);
  const PKeyStats& stats() const { return stats_; }
  bool ok() const { return stats_.failures == 0; }
  // The nodes a read or Set failed on.
  std::set<Guid> failed_nodes() const;

 private:
  void tables_done();
  void finish();
  void read_block(uint32_t t, uint16_t block);
  void write_block(uint32_t t, uint16_t block);
  void set_enforcement(uint32_t t);
  uint32_t attr_mod(const PKeyTarget& t, uint16_t block) const;
  mad::DrPath path(const PKeyTarget& t) const { return topo_->path_to_port(t.node, t.port); }
  PKeyPortMemory& mem(const PKeyTarget& t) { return memory_.edit_or_add(topo_->node(t.node).guid)[t.port.value()]; }
  void forget(const PKeyTarget& t);
  void fail(uint32_t t, std::string what);

  SmpClient& client_;
  Logger& log_;
  PKeyMemory& memory_;
  FabricModel& model_;
  Sender sender_;
  std::shared_ptr<const Topology> topo_;
  PKeyPlan plan_;
  std::vector<uint8_t> written_, failed_;  // per target
  std::vector<uint32_t> enforce_;
  std::function<void()> done_;
  PKeyStats stats_;
  RateLimit fail_log_{10}, warn_log_{10};
};

}  // namespace sm
