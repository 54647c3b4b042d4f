// SMInfo (attribute 0x0020, IBA 1.3 vol 1 14.2.5.13): an SM's identity, priority and state,
// read and set between SMs during election and handover.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

enum class SmState : uint8_t { not_active = 0, discovering = 1, standby = 2, master = 3 };
std::string_view sm_state_name(SmState s);

// AttributeModifier of an SMInfo Set: the control packet (IBA 14.4.1).
namespace sm_info_ctl {
inline constexpr uint32_t handover = 1;
inline constexpr uint32_t acknowledge = 2;
inline constexpr uint32_t disable = 3;
inline constexpr uint32_t standby = 4;
inline constexpr uint32_t discover = 5;
}  // namespace sm_info_ctl

struct SmInfo {
  static constexpr uint16_t kAttrId = attr::sm_info;
  static constexpr size_t kSize = 21;

  Guid guid;             // port GUID of the SM
  uint64_t sm_key = 0;   // 0 when the requester is not authenticated
  uint32_t act_count = 0;
  uint8_t priority = 0;  // 4 bits
  SmState state = SmState::not_active;  // 4 bits on the wire; decode refuses > 3

  void encode(std::span<uint8_t> out) const;
  static Result<SmInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const SmInfo&) const = default;
};

}  // namespace mad
