// Puts a routed, addressed subnet into the hardware with as few SMPs as possible, through the
// shared windowed sender: stage 1, all at once, the LFT plan (SwitchInfo Sets, LFT blocks read
// back or written) and the port plan's Sets; stage 2, once every port is Armed, Armed ->
// Active. What each Set left in the hardware (its answer) goes into the model and LftMemory,
// so the next sweep plans against the truth without reading it again.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "routing/tables.h"
#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/memory.h"
#include "sm/program/lft_plan.h"
#include "sm/program/port_plan.h"
#include "sm/program/sender.h"
#include "sm/smp_client.h"

namespace sm {

struct ProgramStats {
  uint64_t switch_info_sets = 0;
  uint64_t lft_blocks_written = 0;
  uint64_t lft_blocks_read = 0;
  uint64_t port_sets = 0;        // stage 1
  uint64_t activations = 0;      // stage 2
  uint64_t client_reregisters = 0;
  uint64_t failures = 0;
  uint64_t lft_blocks_tampered = 0;  // read back unlike what this SM wrote (then rewritten)
};

// LFT blocks found unlike what this SM wrote, by switch: a security event (someone else
// writes the tables), rewritten.
using Tampered = std::map<Guid, std::vector<uint32_t>>;

// What a sweep writes, planned against what the model and the memory say the hardware holds:
// a pure function of them (they must not change while it runs), so it runs off the loop.
struct ProgramPlans {
  LftPlan lfts;
  PortPlan ports;
};
ProgramPlans plan_programming(const Topology& topo, const routing::RoutingTables& tables, const FabricModel& model,
                              const LftMemory& memory, Lid sm_lid, const PortPolicy& policy, bool verify,
                              const mkey::KeyRing* keys);

class Programmer {
 public:
  Programmer(SmpClient& client, Logger& log, LftMemory& memory, FabricModel& model)
      : client_(client), log_(log), memory_(memory), model_(model), sender_(client.transactions()) {}

  // The topology carries the LIDs to set; both it and the tables are kept until `done` runs.
  // `plans` from plan_programming() over the same topology and tables.
  void start(std::shared_ptr<const Topology> topo, std::shared_ptr<const routing::RoutingTables> tables,
             ProgramPlans plans, std::function<void()> done);
  const ProgramStats& stats() const { return stats_; }
  bool ok() const { return stats_.failures == 0; }
  // The nodes a Set failed on: what a retry re-reads and programs again.
  const std::set<Guid>& failed_nodes() const { return failed_; }
  const Tampered& tampered() const { return tampered_; }
  // Stage 1 (tables and port configuration) or 2 (activation), and its items settled.
  struct Progress {
    int stage = 0;
    size_t done = 0, total = 0;
  };
  Progress progress() const;

 private:
  void stage1();
  void stage2();
  void finish();
  void set_switch_info(const LftPlan::SwitchInfoSet& s);
  void write_block(NodeId sw, uint32_t block);
  void read_back(NodeId sw, uint32_t block, uint64_t expect);
  void set_port(size_t job, int attempt);
  void activate_port(size_t job, int attempt);
  void fail(Guid node, std::string what);
  // Stores what a port answered; with `sent`, also learns which fields it does not keep.
  void record_port(NodeId node, PortNum port, const mad::Smp& answer, const mad::PortInfo* sent);
  SwitchMemory& memory_of(NodeId sw) { return memory_.edit_or_add(topo_->node(sw).guid); }
  void remember_block(NodeId sw, uint32_t block, uint64_t hash);

  SmpClient& client_;
  Logger& log_;
  LftMemory& memory_;
  FabricModel& model_;
  Sender sender_;
  std::shared_ptr<const Topology> topo_;
  std::shared_ptr<const routing::RoutingTables> tables_;
  LftPlan lfts_;
  PortPlan ports_;
  std::function<void()> done_;
  int stage_ = 0;
  ProgramStats stats_;
  std::set<Guid> failed_;
  Tampered tampered_;
  RateLimit fail_log_{10};
};

}  // namespace sm
