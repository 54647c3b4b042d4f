// Deadlock freedom per VL on the simulated fabric (fabric/vl_cdg.h): the simulated switches'
// own LFTs, their own SL-to-VL tables (one per input port, as sma.cpp keeps them) and
// OperationalVLs, and the SLs the SA handed out (sim/sl_query.h), not what an engine meant.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric/vl_cdg.h"
#include "sim/fabric.h"

namespace sim {

// The SL of packets to each LID by the switch they enter the fabric at: by NodeIdx of the
// ingress switch, then by LID (absent: SL 0).
struct SlTable {
  std::vector<std::vector<uint8_t>> by_switch;
  uint8_t sl(NodeIdx sw, uint16_t lid) const {
    return sw < by_switch.size() && lid < by_switch[sw].size() ? by_switch[sw][lid] : 0;
  }
};

// The VL a simulated switch gives `sl` from input port `in` to output port `out`.
uint8_t sim_sl2vl(const SimNode& sw, uint8_t in, uint8_t out, uint8_t sl);

fabric::VlCdgReport verify_vls(const SimFabric& f, const SlTable& sls);

}  // namespace sim
