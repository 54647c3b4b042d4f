// VLArbitrationTable (attribute 0x0018, IBA 1.3 vol 1 14.2.5.9): 32 (VL, weight) entries.
// AttributeModifier bits 16-31: block (1 = low priority 0-31, 2 = low 32-63, 3 = high 0-31,
// 4 = high 32-63); bits 0-15: port number on a switch, 0 otherwise.
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

struct VlArbEntry {
  uint8_t vl = 0;      // 4 bits
  uint8_t weight = 0;  // units of 64 bytes; 0 = skip
  bool operator==(const VlArbEntry&) const = default;
};

struct VlArbTable {
  static constexpr uint16_t kAttrId = attr::vl_arb_table;
  static constexpr size_t kSize = 64;
  static constexpr size_t kEntries = 32;

  std::array<VlArbEntry, kEntries> entries{};

  void encode(std::span<uint8_t> out) const;
  static Result<VlArbTable> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const VlArbTable&) const = default;
};

namespace vl_arb_block {
inline constexpr uint16_t low_0_31 = 1;
inline constexpr uint16_t low_32_63 = 2;
inline constexpr uint16_t high_0_31 = 3;
inline constexpr uint16_t high_32_63 = 4;
}  // namespace vl_arb_block

constexpr uint32_t vl_arb_attr_mod(uint16_t block, PortNum port = PortNum(0)) {
  return (static_cast<uint32_t>(block) << 16) | port.value();
}
constexpr uint16_t vl_arb_block_of_mod(uint32_t attr_mod) {
  return static_cast<uint16_t>(attr_mod >> 16);
}
constexpr PortNum vl_arb_port_of_mod(uint32_t attr_mod) {
  return PortNum(static_cast<uint8_t>(attr_mod & 0xFF));
}

}  // namespace mad
