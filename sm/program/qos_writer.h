// Sends a sweep's QoS tables (qos_plan.h) through the shared windowed sender, one planned port
// at a time: a table this SM knows the port holds is left alone, one it knows differs is
// written, an unknown one is read first (so a restart or a takeover by a standby rewrites
// nothing that is already right). What the ports answered goes into QosMemory.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/program/qos_plan.h"
#include "sm/program/sender.h"
#include "sm/program/vl_plan.h"
#include "sm/smp_client.h"

namespace sm {

struct QosStats {
  uint64_t ports = 0;            // ports planned
  uint64_t sl2vl_written = 0;
  uint64_t vlarb_written = 0;    // blocks
  uint64_t tables_read = 0;
  uint64_t failures = 0;
  bool operator==(const QosStats&) const = default;
};

class QosWriter {
 public:
  QosWriter(SmpClient& client, Logger& log, QosMemory& memory, const FabricModel& model)
      : client_(client), log_(log), memory_(memory), model_(model), sender_(client.transactions()) {}

  // The topology is kept until `done` runs.
  // `layers`: the routing's VL layers (vl_plan.h), whose SL2VL (and, qos off, arbitration)
  // replace the options' tables.
  void start(std::shared_ptr<const Topology> topo, const QosOptions& options, const std::optional<VlLayers>& layers,
             std::function<void()> done);
  const QosStats& stats() const { return stats_; }
  bool ok() const { return stats_.failures == 0; }
  const std::set<Guid>& failed_nodes() const { return failed_; }

 private:
  void issue(size_t port);
  void read(NodeId node, const mad::DrPath& via, const QosTable& t);
  void write(NodeId node, const mad::DrPath& via, const QosTable& t);
  void remember(NodeId node, const QosTable& t, std::span<const uint8_t> held);
  void forget(NodeId node, const QosTable& t);
  void fail(NodeId node, const QosTable& t, const std::string& why);
  mad::DrPath path(NodeId node, const QosPort& p) const;

  SmpClient& client_;
  Logger& log_;
  QosMemory& memory_;
  const FabricModel& model_;
  Sender sender_;
  std::shared_ptr<const Topology> topo_;
  std::array<QosTables, 3> classes_;  // by QosClass
  QosPlan plan_;
  std::function<void()> done_;
  QosStats stats_;
  std::set<Guid> failed_;
  RateLimit fail_log_{10};
};

}  // namespace sm
