#include "sm/route_job.h"

#include <algorithm>
#include <chrono>

#include "routing/repair.h"

namespace sm {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Destinations and LFT entries that differ from the last routes (switches in both).
std::pair<size_t, size_t> count_moves(const Routed& before, const fabric::Topology& over,
                                      const routing::RoutingTables& now) {
  const routing::RoutingTables& old_t = *before.tables;
  const uint16_t top = std::min(old_t.max_lid().value(), now.max_lid().value());
  std::vector<bool> moved(top + 1u, false);
  size_t entries = 0;
  for (fabric::NodeId sw : over.switches()) {
    const auto was = before.topo->find(over.node(sw).guid);
    if (!was || !old_t.has_table(*was) || !now.has_table(sw)) continue;
    const auto a = old_t.lft(*was), b = now.lft(sw);
    for (uint16_t lid = 1; lid <= top; ++lid)
      if (a[lid] != b[lid]) {
        ++entries;
        moved[lid] = true;
      }
  }
  return {static_cast<size_t>(std::count(moved.begin(), moved.end(), true)), entries};
}

// The pins back on fresh tables and, for a new round, the busiest destinations moved off the
// hot channels onto equally good ports.
void apply_traffic(const RouteInput& in, RouteOutput& out) {
  out.pins = in.pins;
  if (in.pins.empty() && (!in.new_round || in.traffic.empty())) {
    if (in.new_round && in.before) out.moved = count_moves(*in.before, *out.over, *out.tables);
    return;
  }
  routing::RoutingTables t = *out.tables;
  std::vector<routing::Pin> pins;
  for (const auto& [key, port] : in.pins) pins.push_back(routing::Pin{key.first, mad::Lid(key.second), port});
  routing::apply_pins(*out.over, t, pins);
  if (in.new_round && !in.traffic.empty()) {
    if (!t.has_alternatives()) {
      out.no_alternatives = true;
    } else {
      routing::Retuned r = routing::retune_routes(*out.over, t, in.traffic);
      for (const routing::Pin& p : r.moved) out.pins[{p.sw, p.lid.value()}] = p.port;
      out.hint_notes = std::move(r.notes);
      t = std::move(r.tables);
    }
  }
  out.tables = std::make_shared<const routing::RoutingTables>(std::move(t));
  out.hints_applied = true;
  if (in.new_round && in.before) out.moved = count_moves(*in.before, *out.over, *out.tables);
}

}  // namespace

RouteOutput route_job(RouteInput in) {
  if (in.hook) in.hook();
  RouteOutput out;
  out.over = in.isolated.empty() ? in.topo : std::make_shared<const fabric::Topology>(in.topo->without_cables(in.isolated));
  if (in.max_vls) in.opts.max_vls = in.max_vls(*out.over);
  out.max_vls = in.opts.max_vls;
  const auto t0 = std::chrono::steady_clock::now();
  if (in.repair_from) {
    const Routed& from = *in.repair_from;
    auto r = routing::repair_routes(*from.topo, *from.tables, *out.over, from.engine, in.opts);
    if (r) {
      out.tables = std::make_shared<const routing::RoutingTables>(std::move(r->tables));
      out.engine = from.engine;
      out.repaired = true;
      out.repaired_destinations = r->destinations;
      out.repaired_entries = r->entries;
    } else {
      out.no_repair = r.error().message;
    }
  }
  if (!out.tables) {
    auto routed = routing::compute_chain(in.chain, *out.over, in.opts);
    if (!routed) {
      out.routing_ms = ms_since(t0);
      out.error = routed.error().message;
      return out;
    }
    out.passed_over = std::move(routed->passed_over);
    out.engine = routed->used;
    out.tables = std::make_shared<const routing::RoutingTables>(std::move(routed->tables));
  }
  out.routing_ms = ms_since(t0);
  apply_traffic(in, out);
  return out;
}

}  // namespace sm
