#include "sim/metrics.h"

#include "sim/as_topology.h"

namespace sim {

MetricsReport measure_routing(const SimFabric& f, const MetricsOptions& opts) {
  const AsTopology t = as_topology(f);
  fabric::MetricsReport m = fabric::measure_routing(t.topo, t.lfts, opts);
  MetricsReport r;
  static_cast<fabric::RoutingFigures&>(r) = m;
  r.links.reserve(m.links.size());
  for (const fabric::LinkLoad& l : m.links)
    r.links.push_back(LinkLoad{t.sim_node[l.from], l.from_port.value(), t.sim_node[l.to], l.to_port.value(), l.routes});
  return r;
}

fabric::CutBounds cut_bounds(const SimFabric& f, const MetricsOptions& opts) {
  return fabric::cut_bounds(as_topology(f).topo, opts);
}

}  // namespace sim
