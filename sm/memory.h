// What the SM knows the hardware holds, so that a sweep writes only what differs: each
// switch's LFT (a hash per 64-entry block), each port's P_Key table, each switch's MFT blocks.
// Known from this SM's own writes and reads; unknown (and read back or written in full) after
// a reset, a restart without a store, or another SM's turn. Kept in CowMaps so that the
// subnet a sweep publishes (subnet.h) shares them instead of copying them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "sm/cow_map.h"
#include "sm/types.h"

namespace sm {

// One switch's LFT: eight bytes a block, so the largest fabric's memory is 20 MB, not 160,
// and the store can keep it across restarts.
struct SwitchMemory {
  Lid lid;                           // port-0 LID when written: a reset switch loses it
  uint16_t top = 0;                  // LinearFDBTop when written
  std::vector<uint64_t> block_hash;  // per block; 0 = unknown
  bool operator==(const SwitchMemory&) const = default;
};
// Never 0 (that means unknown).
uint64_t lft_block_hash(std::span<const uint8_t, 64> entries);
using LftMemory = CowMap<Guid, SwitchMemory>;

struct PKeyPortMemory {
  std::vector<uint16_t> table;    // the whole table as known; its size is the port's capacity
  bool enforcement_kept = true;   // false: the port dropped the enforcement bits (not re-sent)
  bool operator==(const PKeyPortMemory&) const = default;
};
using NodePKeys = std::map<uint8_t, PKeyPortMemory>;  // by port number, in order
using PKeyMemory = CowMap<Guid, NodePKeys>;           // by node GUID

using MftBlock = std::array<uint16_t, 32>;  // port masks of 32 MLIDs at one position of 16 ports
struct MftSwitchMemory {
  std::map<uint32_t, MftBlock> blocks;  // (block << 4 | position) -> as written; absent: zeros
};
using MftMemory = CowMap<Guid, MftSwitchMemory>;

}  // namespace sm
