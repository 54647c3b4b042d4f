// MulticastForwardingTable (attribute 0x001B, IBA 1.3 vol 1 14.2.5.12): one block of 32 port
// masks. AttributeModifier bits 0-8: block (32 multicast LIDs, 0xC000 + 32*block ..);
// bits 28-31: position (mask bit i of position p is port 16*p + i).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

struct MulticastForwardingTable {
  static constexpr uint16_t kAttrId = attr::multicast_fwd_table;
  static constexpr size_t kSize = 64;
  static constexpr size_t kEntries = 32;

  std::array<uint16_t, kEntries> port_masks{};  // [i]: ports for MLID 0xC000 + 32*block + i

  void encode(std::span<uint8_t> out) const;
  static Result<MulticastForwardingTable> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const MulticastForwardingTable&) const = default;
};

inline constexpr uint16_t kMftMaxBlock = 0x1FF;   // 9 bits
inline constexpr uint8_t kMftMaxPosition = 0xF;   // 4 bits

struct MftIndex {
  uint16_t block = 0;    // 0..511
  uint8_t position = 0;  // 0..15
  bool operator==(const MftIndex&) const = default;
};

// Builds the attribute modifier; out-of-range inputs are masked to their field width.
constexpr uint32_t mft_attr_mod(uint16_t block, uint8_t position) {
  return (static_cast<uint32_t>(position & kMftMaxPosition) << 28) | (block & kMftMaxBlock);
}
// The reverse: the block and position an attribute modifier names (other bits ignored).
constexpr MftIndex mft_index_of_mod(uint32_t attr_mod) {
  return MftIndex{static_cast<uint16_t>(attr_mod & kMftMaxBlock),
                  static_cast<uint8_t>((attr_mod >> 28) & kMftMaxPosition)};
}
// The block holding a multicast LID (0xC000..0xFFFE) and its index in that block.
constexpr uint16_t mft_block_of(Lid mlid) {
  return static_cast<uint16_t>((mlid.value() - 0xC000u) / 32u);
}
constexpr size_t mft_index_of(Lid mlid) { return (mlid.value() - 0xC000u) % 32u; }

}  // namespace mad
