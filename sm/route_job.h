// A sweep's routing as one pure function, run on the SM's worker (sm/worker.h): the isolated
// cables taken out, a repair of the previous routes or a full route by the chain, the traffic
// hints' pins put back and a new round's moves made, and what moved counted. It reads only
// what RouteInput carries (immutable snapshots and copies) and returns everything the SM logs
// and keeps, so the SM's loop never waits for it and nothing it reads changes under it.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fabric/topology.h"
#include "routing/engine.h"
#include "routing/retune.h"
#include "sm/memory.h"

namespace sm {

// Routes that a later repair starts from: what they were routed over, by which engine of
// which chain, with which round of traffic hints.
struct Routed {
  std::shared_ptr<const fabric::Topology> topo;
  std::shared_ptr<const routing::RoutingTables> tables;
  std::string engine, chain;
  uint64_t hints_generation = 0;
};

using Pins = std::map<std::pair<mad::Guid, uint16_t>, uint8_t>;  // (switch, LID) -> port

struct RouteInput {
  std::shared_ptr<const fabric::Topology> topo;  // with this sweep's LIDs
  std::vector<std::pair<mad::Guid, mad::PortNum>> isolated;  // cables routing leaves out
  std::string chain;
  routing::RoutingOptions opts;
  // The VLs routing may use over the fabric routed (opts.max_vls is set from it).
  std::function<unsigned(const fabric::Topology&)> max_vls;
  std::optional<Routed> repair_from;  // a repair may be tried from these routes
  std::optional<Routed> before;       // the last routes, for counting what hints moved
  // Traffic hints: the pins of earlier rounds, and this round's load when it is new.
  Pins pins;
  bool new_round = false;
  routing::TrafficLoad traffic;
  uint64_t hints_generation = 0;
  // Test-only: runs on the worker before routing (a hung engine is a hook that never returns).
  std::function<void()> hook;
};

struct RouteOutput {
  std::shared_ptr<const fabric::Topology> over;  // what was routed: topo less the isolated cables
  std::shared_ptr<const routing::RoutingTables> tables;  // null: routing failed (error says why)
  std::string error;
  std::string engine;
  std::vector<std::string> passed_over;  // engines of the chain that could not route, and why
  std::string no_repair;  // a repair was tried and refused: why
  bool repaired = false;
  size_t repaired_destinations = 0, repaired_entries = 0;
  double routing_ms = 0;  // the engine or the repair alone
  unsigned max_vls = 8;
  // Traffic hints.
  bool hints_applied = false;  // the pins or this round's moves are in `tables`
  bool no_alternatives = false;  // a new round, but the tables offer no other ports
  Pins pins;  // the pins after this route (the input's, plus this round's moves)
  std::vector<std::string> hint_notes;
  std::optional<std::pair<size_t, size_t>> moved;  // destinations, LFT entries: when counted
};

RouteOutput route_job(RouteInput in);

}  // namespace sm
