// Puts the partitions into the hardware: every end port's P_Key table (CA ports, switch port
// 0), and on each switch port facing a CA that CA port's table with partition enforcement
// inbound and outbound, where the switch's PartitionEnforcementCap holds the table (else
// enforcement off there, and a warning). Tables go out in blocks of 32 entries, only the blocks
// that differ from what the port holds: known from this SM's last write or read (PKeyMemory),
// read back when unknown. Enforcement bits are set after the tables, so a port never enforces
// a table that is not there yet.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/partitions/membership.h"
#include "sm/smp_client.h"

namespace sm {

struct PKeyPortMemory {
  std::vector<uint16_t> table;    // the whole table as known; its size is the port's capacity
  bool enforcement_kept = true;   // false: the port dropped the enforcement bits (not re-sent)
};
// By node GUID and port number; std::map so that walks over it are in a fixed order.
using PKeyMemory = std::map<std::pair<Guid, uint8_t>, PKeyPortMemory>;

// Forgets what ports that may have been reset hold: a CA or switch external port read in a
// state before Armed, every port of a switch whose port 0 was read without a LID. Call with
// the model as discovery left it (before the Programmer records its Sets).
void forget_reset_ports(PKeyMemory& memory, const FabricModel& model);

struct PKeyStats {
  uint64_t blocks_written = 0;
  uint64_t blocks_read = 0;
  uint64_t ports_written = 0;      // ports with at least one block written
  uint64_t enforcement_sets = 0;   // PortInfo Sets for the enforcement bits
  uint64_t failures = 0;
  bool operator==(const PKeyStats&) const = default;
};

class PKeyProgrammer {
 public:
  PKeyProgrammer(SmpClient& client, Logger& log, PKeyMemory& memory, FabricModel& model)
      : client_(client), log_(log), memory_(memory), model_(model) {}

  // `topo` must stay alive until `done` runs.
  void start(const Topology& topo, const PartitionSet& set, std::function<void()> done);
  const PKeyStats& stats() const { return stats_; }
  bool ok() const { return stats_.failures == 0; }

 private:
  struct Target {
    NodeId node;
    PortNum port;
    std::vector<uint16_t> want;  // padded to the port's capacity
    bool external = false;       // a switch port facing a CA
    bool enforce = false;        // (external) enforcement wanted
    bool failed = false;
  };
  struct Work {
    enum class Kind : uint8_t { read, write, enforce };
    Kind kind;
    uint32_t target;
    uint16_t block;
  };
  void plan(const std::vector<PortPKeys>& ports);
  void add_target(Target t);
  void pump();
  void issue(const Work& w);
  void read_block(uint32_t t, uint16_t block);
  void write_block(uint32_t t, uint16_t block);
  void set_enforcement(uint32_t t);
  uint32_t attr_mod(const Target& t, uint16_t block) const;
  mad::DrPath path(const Target& t) const;
  PKeyPortMemory& mem(const Target& t);
  void begin() { ++pending_; }
  void end();
  void fail(uint32_t t, std::string what);

  SmpClient& client_;
  Logger& log_;
  PKeyMemory& memory_;
  FabricModel& model_;
  const Topology* topo_ = nullptr;
  std::function<void()> done_;
  std::vector<Target> targets_;
  std::vector<uint8_t> written_;  // per target: a block was written
  std::vector<Work> work_;
  size_t next_ = 0;
  size_t pending_ = 0;
  int stage_ = 0;  // 1: tables, 2: enforcement
  PKeyStats stats_;
  RateLimit fail_log_{10}, warn_log_{10};
};

}  // namespace sm
