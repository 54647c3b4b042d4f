#include "sim/vl_verifier.h"

#include "sim/as_topology.h"

namespace sim {

namespace {

unsigned data_vls(uint8_t op_vls) {
  switch (op_vls) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 4;
    case 4: return 8;
    case 5: return 15;
    default: return 0;
  }
}

}  // namespace

uint8_t sim_sl2vl(const SimNode& sw, uint8_t in, uint8_t out, uint8_t sl) {
  const SimPort& op = sw.ports[out];
  const auto& table = op.sl2vl_by_in.empty() || in >= op.sl2vl_by_in.size() ? op.sl2vl : op.sl2vl_by_in[in];
  const uint8_t b = table[sl / 2];
  return static_cast<uint8_t>(sl % 2 == 0 ? b >> 4 : b & 0xF);
}

fabric::VlCdgReport verify_vls(const SimFabric& f, const SlTable& sls) {
  const AsTopology t = as_topology(f);
  fabric::VlRules rules;
  rules.sl = [&](fabric::NodeId sw, uint16_t lid) { return sls.sl(t.sim_node[sw], lid); };
  rules.vl = [&](fabric::NodeId sw, mad::PortNum in, mad::PortNum out, uint8_t sl) {
    return sim_sl2vl(f.node(t.sim_node[sw]), in.value(), out.value(), sl);
  };
  rules.operational_vls = [&](fabric::NodeId sw, mad::PortNum out) {
    return data_vls(f.node(t.sim_node[sw]).ports[out.value()].op_vls);
  };
  return fabric::measure_vl_cdg(t.topo, t.lfts, rules);
}

}  // namespace sim
