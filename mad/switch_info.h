// SwitchInfo (attribute 0x0012, IBA 1.3 vol 1 14.2.5.4): forwarding table sizes and switch
// capabilities. The SM sets LinearFDBTop, the default ports, LifeTimeValue, clears
// PortStateChange (by writing 1) and sets MulticastFDBTop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

struct SwitchInfo {
  static constexpr uint16_t kAttrId = attr::switch_info;
  static constexpr size_t kSize = 20;

  uint16_t linear_fdb_cap = 0;       // LFT entries the switch has
  uint16_t random_fdb_cap = 0;
  uint16_t multicast_fdb_cap = 0;    // MFT entries (multicast LIDs)
  Lid linear_fdb_top;                // highest LID the LFT forwards
  PortNum default_port;
  PortNum default_mcast_primary_port;
  PortNum default_mcast_not_primary_port;
  uint8_t life_time_value = 0;       // 5 bits
  bool port_state_change = false;    // set by the switch, cleared by the SM writing 1
  uint8_t optimized_sl2vl_programming = 0;  // 2 bits
  uint16_t lids_per_port = 0;
  uint16_t partition_enforcement_cap = 0;
  bool inbound_enforcement_cap = false;
  bool outbound_enforcement_cap = false;
  bool filter_raw_inbound_cap = false;
  bool filter_raw_outbound_cap = false;
  bool enhanced_port0 = false;
  Lid multicast_fdb_top;             // 0 or below 0xC000: no multicast forwarding

  void encode(std::span<uint8_t> out) const;
  static Result<SwitchInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const SwitchInfo&) const = default;
};

}  // namespace mad
