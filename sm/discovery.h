// Heavy-sweep discovery: a breadth-first walk of the subnet by directed-route SMPs from the
// SM's own port, many in flight at once. Every node gives NodeInfo, NodeDescription and (for
// switches) SwitchInfo; every port its PortInfo; every live switch port is probed with
// NodeInfo, so links are seen from both ends. The result does not depend on the order
// answers arrive in: nodes are sorted by GUID and paths made canonical (TopologyBuilder).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/attributes.h"
#include "sm/log.h"
#include "sm/smp_client.h"
#include "sm/topology.h"

namespace sm {

// What discovery read, besides the Topology: the full attributes, for the programmer to
// compare against what it wants.
struct Discovered {
  Topology topo;
  std::vector<std::vector<mad::PortInfo>> port_info;  // [NodeId][port]; CA port 0 unused
  std::vector<mad::SwitchInfo> switch_info;           // [NodeId]; CAs: default
  std::vector<std::string> problems;                  // duplicate GUIDs, miswired ports, ...
  uint64_t unreachable = 0;                           // probes that never answered
  uint64_t smps = 0;
};

class Discovery {
 public:
  Discovery(SmpClient& client, Logger& log) : client_(client), log_(log) {}

  // Starts the walk; `done` runs once when every SMP has completed.
  void start(std::function<void()> done);
  // Moves the result out (after done).
  Discovered take();

 private:
  struct PortRec {
    bool requested = false;
    bool have_info = false;
    bool probe_failed = false;
    mad::Guid guid;          // as NodeInfo.PortGUID said when an SMP came in by this port
    mad::PortInfo info;
    mad::Guid peer;          // node GUID at the other end, when known
    uint8_t peer_port = 0;
  };
  struct NodeRec {
    mad::NodeInfo info;
    std::string description;
    mad::SwitchInfo sw;
    mad::DrPath path;        // first route that reached it
    std::vector<PortRec> ports;
    bool duplicate = false;
  };

  void probe(const mad::DrPath& path, mad::Guid from, uint8_t from_port);
  void on_node_info(const mad::DrPath& path, mad::Guid from, uint8_t from_port,
                    const mad::NodeInfo& ni);
  void read_node(size_t idx);
  void read_port(size_t idx, uint8_t port, const mad::DrPath& path);
  void link(size_t a, uint8_t pa, size_t b, uint8_t pb);
  void problem(std::string what);
  void begin() { ++pending_; }
  void end();

  SmpClient& client_;
  Logger& log_;
  std::function<void()> done_;
  std::vector<NodeRec> nodes_;
  std::unordered_map<mad::Guid, size_t> by_guid_;
  mad::Guid sm_guid_;
  uint8_t sm_port_ = 0;
  size_t pending_ = 0;
  uint64_t smps_ = 0;
  uint64_t failed_ = 0;
  std::vector<std::string> problems_;
  RateLimit failed_log_{10};
};

}  // namespace sm
