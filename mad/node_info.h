// NodeInfo (attribute 0x0011, IBA 1.3 vol 1 14.2.5.3): what a node is. Read-only for the SM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

struct NodeInfo {
  static constexpr uint16_t kAttrId = attr::node_info;
  static constexpr size_t kSize = 40;

  uint8_t base_version = 1;
  uint8_t class_version = 1;
  NodeType node_type = NodeType::ca;  // decode refuses anything but 1..3
  uint8_t num_ports = 0;              // physical ports (a switch's port 0 not counted)
  Guid system_image_guid;
  Guid node_guid;
  Guid port_guid;                     // of the port the SMP came in by (switch: port 0)
  uint16_t partition_cap = 0;         // P_Key table entries per port
  uint16_t device_id = 0;
  uint32_t revision = 0;
  PortNum local_port_num;             // the port the SMP came in by
  uint32_t vendor_id = 0;             // 24 bits

  void encode(std::span<uint8_t> out) const;
  static Result<NodeInfo> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const NodeInfo&) const = default;
};

}  // namespace mad
