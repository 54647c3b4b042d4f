// Puts a routed, addressed subnet into the hardware with as few SMPs as possible:
//   stage 1, all at once: SwitchInfo (LinearFDBTop, LifeTime, PortStateChange cleared) where it
//     differs; LFT blocks where they differ from what the switch holds; one PortInfo Set per
//     port carrying its LID, SM LID, link parameters and the Init -> Armed step together;
//   stage 2, once every port is Armed (Active needs the peer Armed): Armed -> Active.
// What a switch holds is known from this SM's last write (LftMemory) while the switch has
// not been reset since, read back when unknown, and assumed empty after a reset.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "routing/tables.h"
#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/smp_client.h"

namespace sm {

struct PortPolicy {
  uint8_t lmc = 0;
  uint8_t sm_sl = 0;
  uint8_t subnet_timeout = 18;     // 4.096 us * 2^18 = 1.07 s (OpenSM's default)
  uint8_t switch_life_time = 18;   // SwitchInfo.LifeTimeValue
  uint8_t hoq_life = 0x13;         // switch-to-switch ports
  uint8_t leaf_hoq_life = 0x10;    // switch ports facing CAs
  uint8_t vl_stall = 7;
  uint8_t max_op_vls = 5;          // VL0-14, capped by both ends' VLCap
  uint64_t m_key = 0;
  uint16_t m_key_lease = 0;
  bool operator==(const PortPolicy&) const = default;
};

// What this SM knows each switch's LFT holds (by switch GUID): a hash of every 64-entry block
// it wrote or read back (0 = unknown). Eight bytes a block, so the largest fabric's memory is
// 20 MB, not 160, and the store can keep it across restarts.
struct SwitchMemory {
  Lid lid;                           // port-0 LID when written: a reset switch loses it
  uint16_t top = 0;                  // LinearFDBTop when written
  std::vector<uint64_t> block_hash;  // per block; 0 = unknown
};
// Never 0 (that means unknown).
uint64_t lft_block_hash(std::span<const uint8_t, 64> entries);
using LftMemory = std::unordered_map<Guid, SwitchMemory>;

struct ProgramStats {
  uint64_t switch_info_sets = 0;
  uint64_t lft_blocks_written = 0;
  uint64_t lft_blocks_read = 0;
  uint64_t port_sets = 0;        // stage 1
  uint64_t activations = 0;      // stage 2
  uint64_t client_reregisters = 0;
  uint64_t failures = 0;
  double stage1_ms = 0, stage2_ms = 0;
};

class Programmer {
 public:
  // `model` receives what every successful Set left in the hardware (its answer), so the
  // next pass compares against the truth without reading it again.
  Programmer(SmpClient& client, Logger& log, LftMemory& memory, FabricModel& model)
      : client_(client), log_(log), memory_(memory), model_(model) {}

  // `topo` (a snapshot of the model) carries the LIDs to set; what the hardware holds now is
  // read from the model. Runs `done` at the end.
  void start(const Topology& topo, const routing::RoutingTables& tables, Lid sm_lid,
             const PortPolicy& policy, std::function<void()> done);
  const ProgramStats& stats() const { return stats_; }
  // Stage 1 (tables and port configuration) or 2 (activation), and its planned items done.
  struct Progress {
    int stage = 0;
    size_t done = 0, total = 0;
  };
  Progress progress() const {
    return Progress{stage_, next_ - std::min(next_, pending_), work_.size()};
  }
  bool ok() const { return stats_.failures == 0; }

 private:
  struct PortJob {
    NodeId node;
    PortNum port;
    mad::PortInfo want;       // what the Sets carry ("no change" codes where nothing changes)
    bool configure = false;   // needs the stage-1 Set
    bool activate = false;    // needs Armed -> Active in stage 2
  };
  // Work is planned in full but handed to the transaction layer only as the window frees up,
  // so 2.5 million LFT blocks never sit in a queue at once.
  struct Work {
    enum class Kind : uint8_t { switch_info, lft_write, lft_read, port_set, activate };
    Kind kind;
    uint32_t id;     // NodeId, or index into jobs_
    uint32_t block;  // LFT block
  };
  void pump();
  void issue(const Work& w);
  void plan_ports();
  void plan_switch(NodeId sw);
  void set_switch_info(NodeId sw);
  void write_block(NodeId sw, uint32_t block);
  void read_back(NodeId sw, uint32_t block);
  std::array<uint8_t, 64> wanted_block(NodeId sw, uint32_t block) const;
  void set_port(size_t job, int attempt);
  void activate_port(size_t job, int attempt);
  void begin() { ++pending_; }
  void end();
  void fail(std::string what);
  // Stores what a port answered; with `sent`, also learns which fields it does not keep.
  void record_port(NodeId node, PortNum port, const mad::Smp& answer, const mad::PortInfo* sent);
  const FabricModel::NodeRec& record(NodeId id) const;

  SmpClient& client_;
  Logger& log_;
  LftMemory& memory_;
  FabricModel& model_;
  const Topology* topo_ = nullptr;
  const routing::RoutingTables* tables_ = nullptr;
  std::vector<const FabricModel::NodeRec*> records_;  // by NodeId
  Lid sm_lid_;
  PortPolicy policy_;
  std::function<void()> done_;
  std::vector<PortJob> jobs_;
  std::vector<Work> work_;
  size_t next_ = 0;
  size_t pending_ = 0;
  int stage_ = 0;
  int64_t stage_start_ns_ = 0;
  ProgramStats stats_;
  RateLimit fail_log_{10};
};

}  // namespace sm
