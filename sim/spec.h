// A fabric as a net file describes it: nodes by name, their ports, and the cables between
// them. The parser (netfile.h) and the generators produce it; SimFabric is built from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mad/types.h"

namespace sim {

// Link width and speed as PortInfo encodes them (LinkWidthActive, LinkSpeedActive and
// LinkSpeedExtActive), so they pass straight into the simulated ports.
namespace width {
inline constexpr uint8_t x1 = 1, x4 = 2, x8 = 4, x12 = 8, x2 = 16;
}
namespace speed {
inline constexpr uint8_t sdr = 1, ddr = 2, qdr = 4;           // LinkSpeedActive
inline constexpr uint8_t ext_none = 0, fdr = 1, edr = 2, hdr = 4, ndr = 8;  // LinkSpeedExtActive
}

struct SpecNode {
  mad::NodeType type = mad::NodeType::ca;
  std::string name;          // the quoted node id of the net file: unique
  std::string description;   // NodeDescription; empty = the name
  uint8_t num_ports = 0;     // physical ports, 1..254
  mad::Guid node_guid;       // 0 = assign (as ibsim does: see assign_guids)
  mad::Guid system_guid;     // 0 = the node GUID
  uint32_t vendor_id = 0;    // 0 = default
  uint16_t device_id = 0;    // 0 = default

  bool operator==(const SpecNode&) const = default;
};

struct SpecLink {
  uint32_t a;         // node index
  uint8_t port_a;
  uint32_t b;         // node index
  uint8_t port_b;
  uint8_t width = width::x4;
  uint8_t speed = speed::qdr;
  uint8_t speed_ext = speed::ext_none;

  bool operator==(const SpecLink&) const = default;
};

struct FabricSpec {
  std::vector<SpecNode> nodes;
  std::vector<SpecLink> links;  // each cable once (net-file order: see canonicalise_links)

  bool operator==(const FabricSpec&) const = default;
};

// What a spec holds, by kind: for `fabricsm topo check` and for tests.
struct SpecCounts {
  size_t switches = 0, cas = 0, routers = 0;
  size_t links = 0;
  size_t switch_links = 0;  // links with a switch at both ends
  size_t components = 0;    // subnets: pieces joined by switches (CAs and routers do not
                            // forward, so a dual-rail CA can sit in two); 1 = one subnet
};
SpecCounts count_spec(const FabricSpec& spec);

// Puts the links in the order a net file lists them, so equal fabrics compare equal: each
// link's end (a, port_a) is the one whose (node index, port) comes first, links sorted by it.
void canonicalise_links(FabricSpec& spec);

// Gives every node whose GUID is 0 one, as ibsim 0.10 does, so the same file has the same
// GUIDs in both simulators: switches from 0x200000 up, one GUID each (ports share it); CAs and
// routers from 0x100000 up, node GUID = base and port p = base + p, reserving ports + 1 GUIDs.
// (ibsim counts routers apart, from 0; write_netfile puts rtguid= before such routers, so a
// written file still has these GUIDs in both simulators.)
void assign_guids(FabricSpec& spec);

// The GUID of port `p` of a node, by the rule above (switch ports share the node GUID).
inline mad::Guid port_guid(const SpecNode& n, uint8_t p) {
  if (n.type == mad::NodeType::sw) return n.node_guid;
  return mad::Guid(n.node_guid.value() + p);
}

}  // namespace sim
