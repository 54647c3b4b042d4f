// Checks over computed tables, independent of the engines' code: a walker that follows the
// LFTs hop by hop (delivery), and the routing metrics (link loads, shifts, the channel
// dependency graph for deadlock freedom) through fabric/metrics.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "routing/tables.h"
#include "fabric/topology.h"

namespace rtest {

// A CA port (or router port) cabled to a live switch port, with its LID.
struct Terminal {
  fabric::NodeId node;
  mad::PortNum port;
  fabric::NodeId sw;
  mad::PortNum sw_port;
  mad::Lid lid;
  uint8_t lmc;
};
// In "leaf order": switches by NodeId (GUID), then by switch port.
std::vector<Terminal> terminals(const fabric::Topology& topo);

// Follows the LFTs from switch `from` toward `dst`. On delivery to the owner of `dst` returns
// the switch-to-switch channels taken (switch, out port); otherwise sets `error`.
struct Walk {
  bool delivered = false;
  std::vector<std::pair<fabric::NodeId, uint8_t>> channels;
  std::string error;
};
Walk walk(const fabric::Topology& topo, const routing::RoutingTables& t, fabric::NodeId from, mad::Lid dst);

// Walks from every switch (or only switches with CAs) to every assigned LID of a live port;
// returns the failures (at most `max`), each a readable line.
std::vector<std::string> undelivered(const fabric::Topology& topo, const routing::RoutingTables& t,
                                     bool all_switches = true, size_t max = 10);

// The metrics below are fabric/metrics.h's (the one implementation, also behind the
// simulator's report), over these tables: links are switch-to-switch channels, CAs the live
// CA ports in leaf order, every shift s=1..N-1 evaluated.

// True when the channel dependency graph of the delivered routes from every CA to every CA LID
// (all 2^LMC of them) has no cycle.
bool cdg_acyclic(const fabric::Topology& topo, const routing::RoutingTables& t);

// The per-SL check for engines that spread routes over VLs: from every switch with CAs to
// every LID of a live port (CA LIDs with their LMC range, switch LIDs), the delivered routes,
// each on the CDG of its SL (t.sl(switch, LID)): true when no SL's graph has a cycle. Read
// from the LFTs and SLs only. `sls_used` gets the number of SLs the walked routes carry.
bool sl_cdg_acyclic(const fabric::Topology& topo, const routing::RoutingTables& t, unsigned* sls_used = nullptr);
// Deadlock freedom as the tables promise it: per SL when they have SLs, else on one VL.
bool deadlock_free(const fabric::Topology& topo, const routing::RoutingTables& t);

struct Loads {
  uint64_t max_all_to_all = 0;   // most CA-to-CA routes on one switch-to-switch channel
  double mean_shift_max = 0;     // mean over shifts s=1..N-1 of the max channel load of i -> i+s
  double max_shift_max = 0;
  uint64_t unrouted_pairs = 0;   // CA pairs the tables do not deliver
};
// Loads follow base LIDs; `shifts` false leaves the shift figures at 0.
Loads loads(const fabric::Topology& topo, const routing::RoutingTables& t, bool shifts = true);

// loads() without the shifts, and cdg_acyclic(), from one measurement.
struct AllToAll {
  uint64_t max_load = 0;        // as Loads::max_all_to_all
  uint64_t unrouted_pairs = 0;  // as Loads::unrouted_pairs
  bool cdg_acyclic = true;
};
AllToAll all_to_all(const fabric::Topology& topo, const routing::RoutingTables& t);

// All-to-all routes over the channel leaving switch `sw` by `port` (0 when that is no link).
uint64_t channel_load(const fabric::Topology& topo, const routing::RoutingTables& t, fabric::NodeId sw,
                      uint8_t port);

}  // namespace rtest
