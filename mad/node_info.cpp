#include "mad/node_info.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

// Offsets: IBA 1.3 vol 1 Table 145.
void NodeInfo::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_u8(0, base_version);
  w.write_u8(1, class_version);
  w.write_u8(2, static_cast<uint8_t>(node_type));
  w.write_u8(3, num_ports);
  w.write_be64(4, system_image_guid.value());
  w.write_be64(12, node_guid.value());
  w.write_be64(20, port_guid.value());
  w.write_be16(28, partition_cap);
  w.write_be16(30, device_id);
  w.write_be32(32, revision);
  w.write_u8(36, local_port_num.value());
  w.write_be24(37, vendor_id);
}

Result<NodeInfo> NodeInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("NodeInfo needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  NodeInfo n;
  n.base_version = r.read_u8(0);
  n.class_version = r.read_u8(1);
  const uint8_t type = r.read_u8(2);
  if (type < 1 || type > 3) return fail(Errc::invalid, fmt::format("NodeInfo: node type {}", type));
  n.node_type = static_cast<NodeType>(type);
  n.num_ports = r.read_u8(3);
  n.system_image_guid = Guid(r.read_be64(4));
  n.node_guid = Guid(r.read_be64(12));
  n.port_guid = Guid(r.read_be64(20));
  n.partition_cap = r.read_be16(28);
  n.device_id = r.read_be16(30);
  n.revision = r.read_be32(32);
  n.local_port_num = PortNum(r.read_u8(36));
  n.vendor_id = r.read_be24(37);
  if (!r.ok()) return fail(Errc::truncated, "NodeInfo truncated");
  return n;
}

std::string NodeInfo::to_string() const {
  std::string s;
  append_format(s, "BaseVers: {}\n", base_version);
  append_format(s, "ClassVers: {}\n", class_version);
  append_format(s, "NodeType: {} ({})\n", node_type_name(node_type),
                 static_cast<unsigned>(node_type));
  append_format(s, "NumPorts: {}\n", num_ports);
  append_format(s, "SystemGuid: {}\n", system_image_guid);
  append_format(s, "Guid: {}\n", node_guid);
  append_format(s, "PortGuid: {}\n", port_guid);
  append_format(s, "PartCap: {}\n", partition_cap);
  append_format(s, "DevId: 0x{:04x}\n", device_id);
  append_format(s, "Revision: 0x{:08x}\n", revision);
  append_format(s, "LocalPort: {}\n", local_port_num);
  append_format(s, "VendorId: 0x{:06x}", vendor_id);
  return s;
}

}  // namespace mad
