// NodeDescription (attribute 0x0010, IBA 1.3 vol 1 14.2.5.2): a free-form 64-byte name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/smp.h"

namespace mad {

struct NodeDescription {
  static constexpr uint16_t kAttrId = attr::node_description;
  static constexpr size_t kSize = 64;

  // Bytes up to the first NUL (or all 64 when there is none). Not necessarily UTF-8:
  // to_string() escapes what is not printable ASCII.
  std::string text;

  // Writes the first 64 bytes of text, NUL-padded (no terminator when text fills all 64).
  void encode(std::span<uint8_t> out) const;
  static Result<NodeDescription> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const NodeDescription&) const = default;
};

}  // namespace mad
