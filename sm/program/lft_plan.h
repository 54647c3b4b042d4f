// The plan of a sweep's LFT writes, a pure function of the tables wanted, what the switches
// answered (the model) and what this SM knows they hold (LftMemory): SwitchInfo Sets where
// LinearFDBTop, LifeTime or PortStateChange need them, and the LFT blocks that differ. A
// switch whose table is unknown but live (LinearFDBTop > 0: another SM's, or this one's before
// a restart) has its blocks read back first, so that blocks already right are not rewritten;
// one that was reset (its port-0 LID or LinearFDBTop moved) is forgotten and written in full.
// With `verify`, blocks known to be right are read back too (a heavy sweep on request and after
// a restart): what was changed behind the SM's back is found and rewritten.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "routing/tables.h"
#include "sm/fabric_model.h"
#include "sm/mkey/key_ring.h"
#include "sm/memory.h"
#include "sm/program/port_plan.h"

namespace sm {

struct LftPlan {
  struct SwitchInfoSet {
    NodeId sw;
    mad::SwitchInfo want;
  };
  struct Block {
    NodeId sw;
    uint32_t block;
    bool read_first;  // unknown but live, or verified: read it, write only if it differs
    uint64_t expect = 0;  // verified: the hash the SM knows it wrote (another one was tampered)
  };
  // What the memory must learn before the writes: a switch's blocks forgotten (it was reset
  // or never known) or grown to the table's size, and its LinearFDBTop known right already.
  struct MemoryEdit {
    NodeId sw;
    size_t blocks;   // the memory's size from now on
    bool forget;     // every block unknown
    bool top_known;  // LinearFDBTop is right: remember it
  };
  uint16_t top = 0;  // LinearFDBTop every switch gets: the highest LID routed
  std::vector<SwitchInfoSet> switch_infos;
  std::vector<Block> blocks;
  std::vector<MemoryEdit> memory;
};

LftPlan plan_lfts(const Topology& topo, const routing::RoutingTables& tables, const FabricModel& model,
                  const LftMemory& memory, const PortPolicy& policy, bool verify = false,
                  const mkey::KeyRing* keys = nullptr);

// The 64 entries of LFT block `b` of switch `sw` as routing wants them (no route past the end).
std::array<uint8_t, 64> wanted_block(const routing::RoutingTables& tables, NodeId sw, uint32_t b);
// A block's entries as a switch answered them, and the attribute that writes them.
std::array<uint8_t, 64> entries_of(const mad::LinearForwardingTable& t);
mad::LinearForwardingTable lft_attr(const std::array<uint8_t, 64>& entries);

}  // namespace sm
