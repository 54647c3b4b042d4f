// LinearForwardingTable (attribute 0x0019, IBA 1.3 vol 1 14.2.5.10): one block of 64 LFT
// entries. AttributeModifier = block number; block b holds LIDs 64*b .. 64*b+63.
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

struct LinearForwardingTable {
  static constexpr uint16_t kAttrId = attr::linear_fwd_table;
  static constexpr size_t kSize = 64;
  static constexpr size_t kEntries = 64;
  static constexpr PortNum kUnreachable{0xFF};  // "drop": no route to this LID

  std::array<PortNum, kEntries> ports{};  // ports[i]: output port for LID 64*block + i

  void encode(std::span<uint8_t> out) const;
  static Result<LinearForwardingTable> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const LinearForwardingTable&) const = default;
};

// The block (= attribute modifier) holding a LID's entry, and the entry's index in it.
constexpr uint32_t lft_block_of(Lid lid) { return lid.value() / 64u; }
constexpr size_t lft_index_of(Lid lid) { return lid.value() % 64u; }

}  // namespace mad
