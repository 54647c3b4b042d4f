// Traffic hints (sm/adapt/, routing/retune.h): the busiest destinations moved off measured hot
// channels, pinned on every later route while the traffic lasts, and what a round moved.
#include "sm/subnet_manager.h"

namespace sm {

void SubnetManager::set_traffic_hints(routing::TrafficLoad load, uint64_t generation) {
  if (generation == hints_generation_) return;
  traffic_ = std::move(load);
  hints_generation_ = generation;
  if (traffic_.empty()) pins_.clear();  // given back: the next route is the engine's own
  // An incremental sweep of a switch at a hot channel (a cheap re-read) routes with them.
  std::set<Guid> at;
  for (const routing::ChannelRate& c : traffic_.hot) at.insert(c.sw);
  if (at.empty() && topo_ && !topo_->switches().empty()) at.insert(topo_->node(topo_->switches().front()).guid);
  for (Guid g : at) mark_dirty(g, fmt::format("traffic hints round {}", generation));
}

void SubnetManager::apply_traffic(const Topology& over) {
  const bool round = !routed_ || routed_->hints_generation != hints_generation_;
  if (pins_.empty() && (!round || traffic_.empty())) {
    if (round && routed_) count_moves(over);  // hints given back: the engine's routes again
    return;
  }
  routing::RoutingTables t = *tables_;
  std::vector<routing::Pin> pins;
  for (const auto& [key, port] : pins_) pins.push_back(routing::Pin{key.first, mad::Lid(key.second), port});
  routing::apply_pins(over, t, pins);
  if (round && !traffic_.empty()) {
    if (!t.has_alternatives()) {
      log_.info(code::no_alternatives, "sweep {}: traffic hints {}: the {} tables offer no other equally good ports: nothing moves",
                report_.number, hints_generation_, report_.engine);
    } else {
      routing::Retuned r = routing::retune_routes(over, t, traffic_);
      for (const routing::Pin& p : r.moved) pins_[{p.sw, p.lid.value()}] = p.port;
      for (const std::string& n : r.notes) log_.debug(code::hot_channel_kept, "sweep {}: traffic hints: {}", report_.number, n);
      t = std::move(r.tables);
    }
  }
  tables_ = std::make_shared<const routing::RoutingTables>(std::move(t));
  report_.hinted_links = traffic_.hot.size();
  if (round && routed_) count_moves(over);
}

void SubnetManager::count_moves(const Topology& over) {
  const Topology& before = *routed_->topo;
  const routing::RoutingTables& old_t = *routed_->tables;
  const routing::RoutingTables& new_t = *tables_;
  const uint16_t top = std::min(old_t.max_lid().value(), new_t.max_lid().value());
  std::vector<bool> moved(top + 1u, false);
  size_t entries = 0;
  for (NodeId sw : over.switches()) {
    const auto was = before.find(over.node(sw).guid);
    if (!was || !old_t.has_table(*was) || !new_t.has_table(sw)) continue;
    const auto a = old_t.lft(*was), b = new_t.lft(sw);
    for (uint16_t lid = 1; lid <= top; ++lid)
      if (a[lid] != b[lid]) {
        ++entries;
        moved[lid] = true;
      }
  }
  report_.moved_entries = entries;
  report_.moved_destinations = static_cast<size_t>(std::count(moved.begin(), moved.end(), true));
  log_.info(code::routes_moved, "sweep {}: traffic hints {}: {} hot channel(s), {} pinned: {} destination(s) moved, {} LFT entries",
            report_.number, hints_generation_, traffic_.hot.size(), pins_.size(), report_.moved_destinations, entries);
}

}  // namespace sm
