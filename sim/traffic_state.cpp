// What traffic needs of the simulated switches: their adaptive-routing tables and whether
// they use them (the traffic model reads both, sim/traffic/net.h).
#include <fmt/format.h>

#include "sim/fabric.h"

namespace sim {

mad::Result<void> SimFabric::set_ar_table(NodeIdx node, fabric::ArTable table) {
  if (node >= nodes_.size() || !nodes_[node].is_switch())
    return mad::fail(mad::Errc::not_found, "adaptive routing: not a switch");
  for (const auto& g : table.groups)
    for (uint8_t p : g)
      if (p < 1 || p > nodes_[node].num_ports)
        return mad::fail(mad::Errc::invalid, fmt::format("adaptive routing: {} has no port {}", nodes_[node].name, p));
  nodes_[node].sw->ar = std::move(table);
  return {};
}

mad::Result<void> SimFabric::set_adaptive(NodeIdx node, bool on) {
  if (node >= nodes_.size() || !nodes_[node].is_switch())
    return mad::fail(mad::Errc::not_found, "adaptive routing: not a switch");
  nodes_[node].sw->adaptive = on;
  return {};
}

}  // namespace sim
