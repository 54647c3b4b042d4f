// A pass after the fill that lowers congestion under shift permutations (CA i sends to CA i+k,
// CAs in leaf order, as fabric/metrics.h measures it) without giving up all-to-all balance.
// ftree's plan balances each switch's up-links by the traffic they carry in total; on a
// degraded tree that leaves some shifts with several flows on one link where the cut bound
// allows two. Here the flows of every shift are counted per link, and a (switch, destination)
// entry moves to another of its candidates (equally short and legal: up*/down* stays so) when
// that lowers, in this order, the sum over the shifts of their busiest link's count, the number
// of links at that count, and the sum of squared all-to-all loads; no link's all-to-all load
// may exceed the largest one before the pass. A move of entry (s, d) changes one flow per shift
// (the one source of that shift whose route to d crosses s), which is what keeps evaluating it
// cheap. Sequential and in a fixed order (the same tables whatever the thread count); the
// counting runs over the shifts in parallel.
#pragma once

#include <cstdint>

#include "routing/candidates.h"
#include "routing/fabric_view.h"
#include "routing/tables.h"

namespace routing {

struct ShiftBalanceStats {
  bool ran = false;      // false: skipped (LMC > 0, no switch links, counts too large)
  uint64_t moves = 0;    // entries changed
  uint64_t before = 0;   // sum over the shifts of the busiest link's flows
  uint64_t after = 0;
};

// Above this many bytes of per-shift counters the pass is skipped (the tables stay as filled).
inline constexpr size_t kShiftBalanceMaxBytes = size_t{128} << 20;

// `candidates`: the engine's legal next hops (the fill's), every entry of `tables` among them.
ShiftBalanceStats balance_shifts(const FabricView& fv, const CandidateFn& candidates,
                                 unsigned threads, RoutingTables& tables);

}  // namespace routing
