// GUIDInfo (attribute 0x0014, IBA 1.3 vol 1 14.2.5.5): one block of 8 port GUIDs
// (AttributeModifier = block; GUID 0 of block 0 is the port GUID).
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

struct GuidInfo {
  static constexpr uint16_t kAttrId = attr::guid_info;
  static constexpr size_t kSize = 64;
  static constexpr size_t kEntries = 8;

  std::array<Guid, kEntries> guids{};

  void encode(std::span<uint8_t> out) const;
  static Result<GuidInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const GuidInfo&) const = default;
};

constexpr uint32_t guid_info_block_of(uint32_t guid_index) { return guid_index / 8u; }

}  // namespace mad
