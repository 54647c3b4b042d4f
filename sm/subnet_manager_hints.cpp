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

// What the route did with the hints (route_job.h): logged, and its pins kept unless the hints
// changed while it routed (the sweep they asked for routes with the new ones).
void SubnetManager::note_traffic(const RouteOutput& r) {
  if (r.hints_applied) report_.hinted_links = traffic_.hot.size();
  if (r.no_alternatives)
    log_.info(code::no_alternatives, "sweep {}: traffic hints {}: the {} tables offer no other equally good ports: nothing moves",
              report_.number, hints_generation_, report_.engine);
  for (const std::string& n : r.hint_notes) log_.debug(code::hot_channel_kept, "sweep {}: traffic hints: {}", report_.number, n);
  if (report_.hints_generation == hints_generation_) pins_ = r.pins;
  if (!r.moved) return;
  report_.moved_destinations = r.moved->first;
  report_.moved_entries = r.moved->second;
  log_.info(code::routes_moved, "sweep {}: traffic hints {}: {} hot channel(s), {} pinned: {} destination(s) moved, {} LFT entries",
            report_.number, hints_generation_, traffic_.hot.size(), pins_.size(), report_.moved_destinations,
            report_.moved_entries);
}

}  // namespace sm
