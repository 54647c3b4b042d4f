#include "sim/spec.h"

namespace sim {

void assign_guids(FabricSpec& spec) {
  uint64_t next_switch = 0x200000, next_ca = 0x100000;
  for (SpecNode& n : spec.nodes) {
    if (!n.node_guid.is_zero()) continue;
    if (n.type == mad::NodeType::sw) {
      n.node_guid = mad::Guid(next_switch++);
    } else {
      n.node_guid = mad::Guid(next_ca);
      next_ca += n.num_ports + 1u;
    }
  }
  for (SpecNode& n : spec.nodes)
    if (n.system_guid.is_zero()) n.system_guid = n.node_guid;
}

}  // namespace sim
