// The plan of a sweep's P_Key tables, a pure function of the topology, the partitions, what
// the ports answered (the model) and what this SM knows their tables hold (PKeyMemory): every
// end port's table (CA ports, switch port 0), and on each switch port facing a CA that CA
// port's table with partition enforcement, where the switch's PartitionEnforcementCap holds it
// (else enforcement off there, and a warning). Tables go out in blocks of 32 entries, only the
// blocks that differ from what the port holds; unknown ones are read back first. Enforcement
// bits are planned after the tables are in (plan_enforcement), so a port never enforces a
// table that is not there yet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sm/fabric_model.h"
#include "sm/memory.h"
#include "sm/partitions/partitions.h"

namespace sm {

struct PKeyTarget {
  NodeId node;
  PortNum port;
  std::vector<uint16_t> want;  // padded to the port's capacity
  bool external = false;       // a switch port facing a CA
  bool enforce = false;        // (external) enforcement wanted
};

struct PKeyPlan {
  struct Op {
    enum class Kind : uint8_t { read, write };
    Kind kind;
    uint32_t target;
    uint16_t block;
  };
  std::vector<PKeyTarget> targets;
  std::vector<Op> ops;
  // Ports that cannot hold what their partitions need: (enforcement, what to say).
  std::vector<std::pair<bool, std::string>> warnings;
};

PKeyPlan plan_pkeys(const Topology& topo, const FabricModel& model, const PKeyMemory& memory,
                    const PartitionSet& partitions);

// The external targets whose enforcement bits differ from what the port holds, once the
// tables are written (`failed`: targets whose table did not go in are left alone).
std::vector<uint32_t> plan_enforcement(const Topology& topo, const PKeyPlan& plan, const std::vector<uint8_t>& failed,
                                       const FabricModel& model, const PKeyMemory& memory);

// Forgets what ports that may have been reset hold: a CA or switch external port read in a
// state before Armed, every port of a switch whose port 0 was read without a LID. Call with
// the model as discovery left it (before the programmer records its Sets).
void forget_reset_ports(PKeyMemory& memory, const FabricModel& model);

// The P_Keys of a table block: 32 entries, or fewer at the end.
std::span<const uint16_t> pkey_block(const std::vector<uint16_t>& table, uint16_t block);
size_t pkey_blocks(size_t entries);

}  // namespace sm
