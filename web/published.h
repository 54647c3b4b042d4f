// What the web view reads: the values the service stack publishes (the sweep's Subnet, the
// PerfMgr's Snapshot, the SM's figures, the recent events), handed over by pointer as the
// metrics endpoint gets them. Nothing here points into the SM; a request keeps what it
// copied alive while it renders.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "metrics/sm_metrics.h"
#include "sm/perfmgr/snapshot.h"
#include "sm/store/store.h"
#include "sm/subnet.h"

namespace web {

// A figure per directed link that the counters do not give: the simulator's all-to-all route
// counts (or its traffic). `value` by the sending port's index in the topology's port array
// (Node::first_port + port); the topology is the Subnet's.
struct LinkFigures {
  std::string name;  // what the figure is: "all-to-all routes"
  std::vector<double> value;
  double max = 0;
};

struct Published {
  std::shared_ptr<const sm::Subnet> subnet;
  std::shared_ptr<const sm::perfmgr::Snapshot> perf;
  std::shared_ptr<const metrics::SmFigures> sm;
  std::shared_ptr<const std::vector<sm::store::Event>> events;  // the newest last
  std::shared_ptr<const LinkFigures> loads;
  std::string source;  // "fabricsm run", "fabricsm sim"
};

}  // namespace web
