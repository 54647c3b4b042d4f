// SLtoVLMappingTable (attribute 0x0017, IBA 1.3 vol 1 14.2.5.8): the VL each of the 16 SLs
// uses, 4 bits each, SL0 in the high nibble of byte 0. On a switch the AttributeModifier
// names the input port (bits 8-15) and output port (bits 0-7); 0 on a CA or router.
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

struct Sl2VlTable {
  static constexpr uint16_t kAttrId = attr::sl2vl_table;
  static constexpr size_t kSize = 8;
  static constexpr size_t kEntries = 16;

  std::array<uint8_t, kEntries> vl{};  // vl[sl], 0..15 (15 = drop)

  void encode(std::span<uint8_t> out) const;
  static Result<Sl2VlTable> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const Sl2VlTable&) const = default;
};

constexpr uint32_t sl2vl_attr_mod(PortNum in_port, PortNum out_port) {
  return (static_cast<uint32_t>(in_port.value()) << 8) | out_port.value();
}
constexpr PortNum sl2vl_in_port_of_mod(uint32_t attr_mod) {
  return PortNum(static_cast<uint8_t>((attr_mod >> 8) & 0xFF));
}
constexpr PortNum sl2vl_out_port_of_mod(uint32_t attr_mod) {
  return PortNum(static_cast<uint8_t>(attr_mod & 0xFF));
}

}  // namespace mad
