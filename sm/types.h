// The names the SM uses for the fabric model's types (fabric/topology.h) and the wire's
// strong types (mad/types.h), so that code in namespace sm says Topology and Guid.
#pragma once

#include "fabric/topology.h"
#include "mad/types.h"

namespace sm {

using fabric::kNoNode;
using fabric::Node;
using fabric::NodeId;
using fabric::Port;
using fabric::SwitchData;
using fabric::Topology;
using fabric::TopologyBuilder;
using mad::DrPath;
using mad::Guid;
using mad::Lid;
using mad::NodeType;
using mad::PortNum;
using mad::PortState;

}  // namespace sm
