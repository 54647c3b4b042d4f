#include "routing/tables.h"

namespace routing {

RoutingTables::RoutingTables(const sm::Topology& topo, mad::Lid max_lid)
    : max_lid_(max_lid), lft_(topo.node_count()) {
  for (sm::NodeId sw : topo.switches())
    lft_[sw].assign(static_cast<size_t>(max_lid.value()) + 1, kNoRoute);
}

std::span<const uint8_t> RoutingTables::alternatives(sm::NodeId sw, mad::Lid dst) const {
  if (sw >= alt_offsets_.size() || alt_offsets_[sw].empty()) return {};
  const auto& off = alt_offsets_[sw];
  const size_t l = dst.value();
  if (l + 1 >= off.size()) return {};
  return {alt_ports_[sw].data() + off[l], off[l + 1] - off[l]};
}

void RoutingTables::set_alternatives(const std::vector<std::vector<std::vector<uint8_t>>>& ports) {
  alt_offsets_.assign(lft_.size(), {});
  alt_ports_.assign(lft_.size(), {});
  for (size_t sw = 0; sw < ports.size() && sw < lft_.size(); ++sw) {
    if (ports[sw].empty()) continue;
    auto& off = alt_offsets_[sw];
    auto& out = alt_ports_[sw];
    off.reserve(ports[sw].size() + 1);
    off.push_back(0);
    for (const auto& set : ports[sw]) {
      out.insert(out.end(), set.begin(), set.end());
      off.push_back(static_cast<uint32_t>(out.size()));
    }
  }
}

}  // namespace routing
