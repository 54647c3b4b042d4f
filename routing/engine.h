// Routing engines behind one narrow interface: pure functions of (Topology, options) ->
// RoutingTables. Engines never touch a transport or the store, and the same input gives the
// same tables bit for bit, whatever the thread count.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "routing/tables.h"
#include "fabric/topology.h"

namespace routing {

using mad::Result;
using fabric::Topology;

// adaptive-hint: the cable at `port` of switch `sw` weighs `weight` (1 = normal, hotter is
// avoided). The file format is in routing/hints.h.
struct LinkHint {
  mad::Guid sw;
  mad::PortNum port;
  uint32_t weight = 1;
  bool operator==(const LinkHint&) const = default;
};

struct RoutingOptions {
  std::vector<mad::Guid>
      root_guids;  // updn: root switches; ftree: top switches to check; empty = detect
  unsigned threads = 0;               // 0 = hardware concurrency; never changes the result
  std::string hints_file;             // adaptive-hint: link weights, read when `hints` is empty
  std::vector<LinkHint> hints;        // adaptive-hint: link weights already loaded (load_hints)
  // Engines that spread routes over VLs (vls() > 1): the most they may use (the SM passes
  // qos_max_vls capped by what every switch-to-switch link operates); more needed: an error.
  unsigned max_vls = 8;
  bool operator==(const RoutingOptions&) const = default;
};

class FabricView;  // routing/fabric_view.h

// How route repair (repair.h) may mend an engine's tables after cables or switches went away,
// so that the result still obeys the engine's rules.
enum class RepairRule : uint8_t {
  none,            // no rule: the caller routes in full
  shortest_paths,  // broken routes take shortest paths (minhop)
  up_down,         // broken routes stay up*/down* over the engine's orientation()
};

// An engine says what it can do, so that repair, the generic tests and the listings ask it
// instead of comparing names (adding one: see routing/registry.cpp).
class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  // One line for listings and the configuration help.
  virtual std::string_view description() const = 0;
  // True when the tables are deadlock-free on every topology this engine routes: an acyclic
  // channel dependency graph on one VL, or, when vls() > 1, on each VL (the tables' SLs, SL i
  // on VL i); the generic tests check it on every fabric, per SL where the tables have SLs.
  virtual bool deadlock_free() const = 0;
  // The most VLs its routes may need (SL2VL then maps them; RoutingOptions::max_vls caps it
  // on a fabric); 1 for a single-VL engine.
  virtual unsigned vls() const { return 1; }
  // Which fabrics it routes, for listings ("fat trees, complete or degraded"); on others
  // compute() returns an error and a chain moves on.
  virtual std::string_view topologies() const { return "any connected fabric"; }
  virtual RepairRule repair_rule() const = 0;
  // RepairRule::up_down: the rank of every switch of `fv` (by SwIdx; a link points up toward
  // the lower rank, ties by GUID) as compute() would orient it, or why it cannot. The default
  // is an error: engines with another rule have no orientation.
  virtual Result<std::vector<uint32_t>> orientation(const FabricView& fv,
                                                    const RoutingOptions& opts) const;
  // Tables for every switch of `topo` over LIDs 1..topo.max_lid(). An engine that cannot
  // route this topology (not a tree, no roots, ...) returns an error saying why, so that a
  // chain can move on to the next engine. Pairs it routes around but cannot reach, and the
  // choices it made (roots, ...), are in the tables' diagnostics() for the SM to log.
  virtual Result<RoutingTables> compute(const Topology& topo, const RoutingOptions& opts) const = 0;
};

// The engines, listed in one explicit table (no static registration).
std::vector<std::string_view> engine_names();
// `--routing help`: one line per engine with what it promises (deadlock freedom, on one VL or
// over its VLs, the VLs it may use, the fabrics it routes) and what it does.
std::string engine_listing();
Result<std::unique_ptr<Engine>> make_engine(std::string_view name);

// A chain "ftree,updn,minhop": tries the engines in order; `passed_over` gets one line per
// engine that failed, with the reason. On success, `used` names the engine that routed.
struct ChainResult {
  RoutingTables tables;
  std::string used;
  std::vector<std::string> passed_over;
};
Result<ChainResult> compute_chain(std::string_view chain, const Topology& topo,
                                  const RoutingOptions& opts);
// Checks a chain string names known engines only (for config validation).
Result<std::vector<std::string>> parse_chain(std::string_view chain);

}  // namespace routing
