// Deadlock freedom with virtual lanes, measured over the forwarding tables themselves: the
// channel dependency graph whose channels are (directed switch-to-switch link, VL). A packet
// keeps the SL it was sent with; each switch puts it on the VL its SL-to-VL table gives for
// (input port, output port, SL). Acyclic means deadlock-free (Dally and Seitz); each VL's own
// part of the graph is reported too. With every packet on one VL this is the one-VL graph of
// fabric/metrics.h. The routes are those of fabric/metrics.h: every CA port to every LID of
// every other CA port.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "fabric/topology.h"

namespace fabric {

struct VlRules {
  // The SL of a packet to `lid` that enters the fabric at switch `sw`.
  std::function<uint8_t(NodeId sw, uint16_t lid)> sl;
  // The VL a switch gives a packet of `sl` from input port `in` to output port `out`
  // (15: dropped).
  std::function<uint8_t(NodeId sw, PortNum in, PortNum out, uint8_t sl)> vl;
  // The data VLs a switch port operates (a VL at or beyond it is dropped); 15 if unknown.
  std::function<unsigned(NodeId sw, PortNum out)> operational_vls;
};

struct VlChannelFigures {
  uint8_t vl = 0;
  uint64_t channels = 0;  // directed switch-to-switch links carrying routes on this VL
  uint64_t edges = 0;     // dependencies from this VL to the same VL
  bool acyclic = true;
};

struct VlCdgReport {
  std::vector<VlChannelFigures> vls;  // the VLs routes use on switch-to-switch links, in order
  uint64_t edges = 0;                 // all dependencies
  uint64_t cross_vl_edges = 0;        // from one VL to another
  bool acyclic = true;                // the whole graph (and so every VL's part)
  uint64_t dropped = 0;               // (source CA, LID) routes a switch drops for their VL
};

VlCdgReport measure_vl_cdg(const Topology& topo, std::span<const std::span<const uint8_t>> lfts, const VlRules& rules);

}  // namespace fabric
