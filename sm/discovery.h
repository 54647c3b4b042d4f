// Discovery by directed-route SMPs, many in flight at once, into the FabricModel.
//  - A full walk (heavy sweep) forgets the model and walks breadth-first from the SM's own
//    port: NodeInfo, NodeDescription and SwitchInfo of every node, PortInfo of every port,
//    and a NodeInfo probe through every live switch port, so cables are seen from both ends.
//  - A refresh re-reads given switches (after a trap or a light sweep): cables whose ports
//    went down are forgotten, ports that came up or changed state are probed, nodes never seen
//    are walked into, and a neighbour whose link state changed is re-read too (it may have
//    rebooted). Whatever the SM can no longer reach is pruned at the end.
// What stays unanswered is a hole (walk_holes.h), not an absence: a full walk keeps what the
// model knew there (so it starts from the model it replaces), and the summary names the holes
// for the SM to retry.
// The result does not depend on answer order: FabricModel::snapshot() sorts and canonicalises.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "sm/fabric_model.h"
#include "sm/walk_holes.h"
#include "sm/log.h"
#include "sm/smp_client.h"

namespace sm {

struct WalkSummary {
  uint64_t smps = 0;
  uint64_t unanswered = 0;
  bool stale_path = false;          // a refresh could not reach a node it knew: sweep in full
  std::vector<Guid> pruned;         // nodes dropped as unreachable
  std::vector<Guid> changed;        // nodes re-read or found by a refresh
  std::vector<std::pair<Guid, uint8_t>> port_changes;  // refresh: ports that went up or down
  std::vector<std::string> problems;
  std::vector<Hole> holes;  // what did not answer, those left out included
  Kept kept;                // full walk: what was kept from before for them
};

class Discovery {
 public:
  // Holes in `left_out` (they never answered, sweep after sweep) are not filled from before.
  Discovery(SmpClient& client, Logger& log, FabricModel& model, HoleSet left_out = {})
      : client_(client), log_(log), model_(model), left_out_(std::move(left_out)) {}

  // Runs `work` off the loop, then `then` on it (the SM's worker). The retry of a refresh
  // re-routes the whole model first (a breadth-first pass over 43k nodes: 50-90 ms); without
  // an offload both run at once.
  using Offload = std::function<void(std::function<void()> work, std::function<void()> then)>;
  void set_offload(Offload offload) { offload_ = std::move(offload); }

  void start_full(std::function<void()> done);
  void start_refresh(const std::vector<Guid>& switches, std::function<void()> done);
  // What the walk saw so far (before settle(): no holes filled, nothing pruned).
  const WalkSummary& summary() const { return summary_; }
  // After `done`: fills the holes of a full walk from the model it replaced, prunes what the
  // SM cannot reach and says what the walk found. It grows with the fabric (tens of ms at 43k
  // nodes, most of it the old model freed), so the SM calls it on its worker, the model
  // borrowed; nothing else is called after it.
  WalkSummary settle();

 private:
  void probe(const DrPath& path, Guid from, uint8_t from_port);
  void on_node_info(const DrPath& path, Guid from, uint8_t from_port, const mad::NodeInfo& ni);
  void read_node(Guid g, bool with_description);
  void read_port(Guid g, uint8_t port, const DrPath& path);
  void refresh_node(Guid g);
  void refresh_peer(Guid g, uint8_t port, const DrPath& via);
  void problem(std::string what);
  void hole(Guid node, uint8_t port, Hole::Kind kind) { summary_.holes.push_back(Hole{node, port, kind}); }
  void begin() { ++pending_; }
  void end();
  void retry();  // over the routes recompute_paths() gave

  SmpClient& client_;
  Logger& log_;
  FabricModel& model_;
  FabricModel before_;  // full walk: the model it replaces, for its holes
  HoleSet left_out_;
  std::function<void()> done_;
  Offload offload_;
  bool full_ = true;
  size_t pending_ = 0;
  std::unordered_set<Guid> refreshed_;
  std::vector<Guid> retry_;   // refreshes whose route failed: tried once more over new routes
  std::vector<std::pair<Guid, uint8_t>> retry_ports_;  // switch ports likewise
  bool retried_ = false;
  WalkSummary summary_;
  RateLimit failed_log_{10};
};

}  // namespace sm
