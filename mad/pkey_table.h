// P_KeyTable (attribute 0x0016, IBA 1.3 vol 1 14.2.5.7): one block of 32 partition keys.
// AttributeModifier bits 0-15: block; bits 16-31: port number (switches only; 0 on a CA).
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

struct PKeyTable {
  static constexpr uint16_t kAttrId = attr::pkey_table;
  static constexpr size_t kSize = 64;
  static constexpr size_t kEntries = 32;

  std::array<uint16_t, kEntries> pkeys{};  // bit 15: full member; bits 0-14: the key

  void encode(std::span<uint8_t> out) const;
  static Result<PKeyTable> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const PKeyTable&) const = default;
};

inline constexpr uint16_t kPKeyFullMember = 0x8000;
inline constexpr uint16_t kPKeyBaseMask = 0x7FFF;
inline constexpr uint16_t kDefaultPKey = 0xFFFF;  // default partition, full member
constexpr bool pkey_is_full_member(uint16_t pkey) { return (pkey & kPKeyFullMember) != 0; }
constexpr uint16_t pkey_base(uint16_t pkey) { return pkey & kPKeyBaseMask; }

constexpr uint32_t pkey_attr_mod(uint16_t block, PortNum port = PortNum(0)) {
  return (static_cast<uint32_t>(port.value()) << 16) | block;
}
constexpr uint16_t pkey_block_of_mod(uint32_t attr_mod) {
  return static_cast<uint16_t>(attr_mod & 0xFFFF);
}
constexpr PortNum pkey_port_of_mod(uint32_t attr_mod) {
  return PortNum(static_cast<uint8_t>((attr_mod >> 16) & 0xFF));
}
// The block holding P_Key table entry `index`.
constexpr uint16_t pkey_block_of(uint32_t index) { return static_cast<uint16_t>(index / 32u); }

}  // namespace mad
