// The plan of a sweep's QoS tables (qos_config.h), a pure function of the topology, what the
// ports answered (the model) and the options: for each CA port and switch port 0 (enhanced
// port 0 only) its SL-to-VL table and VL arbitration blocks, for each cabled switch port its
// arbitration blocks and one SL-to-VL table per input port (port 0 and the cabled ones; a
// port that comes up later gets a sweep of its own). VLs are masked by the output port's
// OperationalVLs and blocks cut to its VLArbitration capacities, as OpenSM does, so that the
// two SMs write the same tables. What goes out is decided as it is sent (qos_writer.h): a table
// whose contents this SM knows is written only where it differs, an unknown one read first.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "sm/fabric_model.h"
#include "sm/program/port_plan.h"
#include "sm/program/qos_config.h"

namespace sm {

// One table to hold: SL2VL (8 bytes) or one VLArbitration block (64).
struct QosTable {
  uint16_t attr;
  uint32_t mod;
  std::array<uint8_t, 64> want{};
  size_t size() const;
};

// A port whose tables the plan sets: its SMPs go by `via`'s path (a switch: port 0).
struct QosPort {
  NodeId node;
  PortNum port;  // the output port the tables are for (a CA port, or a switch's)
  QosClass cls;
};

struct QosPlan {
  std::vector<QosPort> ports;
};

QosPlan plan_qos(const Topology& topo, const FabricModel& model);
// The port policy with QoS's PortInfo fields: each class's VLHighLimit and the OperationalVLs
// its qos_max_vls allows (unchanged with qos off).
PortPolicy qos_port_policy(PortPolicy ports, const QosOptions& o);
// The tables of one port of the plan, with what its class's resolved tables `t` say they hold.
std::vector<QosTable> qos_tables(const Topology& topo, const FabricModel& model, const QosPort& p,
                                 const QosTables& t);

// What this SM knows each node's QoS tables hold (by table key: attribute and modifier).
// A 64-byte block is kept as a hash, an 8-byte SL2VL table as it is.
struct QosNodeMemory {
  std::map<uint64_t, uint64_t> tables;
};
using QosMemory = std::map<Guid, QosNodeMemory>;
uint64_t qos_key(const QosTable& t);
uint64_t qos_value(const QosTable& t, std::span<const uint8_t> contents);
// Forgets the tables of nodes that may have been reset (their port 0 or a CA port read in a
// state before Armed, as forget_reset_ports does for P_Keys) and of nodes that are gone.
void forget_reset_qos(QosMemory& memory, const FabricModel& model);

}  // namespace sm
