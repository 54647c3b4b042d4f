// The common last step of every engine: fill each switch's LFT from its candidate ports,
// balancing like OpenSM's minhop (the candidate with the fewest LIDs routed through it so
// far, ties to the lowest port number), LIDs in LID order, the 2^LMC LIDs of one port on
// different ports where the candidates allow. Switches are independent (each has its own
// port counters), so they run in parallel and the result does not depend on the thread count.
#pragma once

#include "routing/candidates.h"
#include "routing/fabric_view.h"
#include "routing/hints.h"
#include "routing/tables.h"
#include "routing/updown.h"

namespace routing {

struct FillOptions {
  unsigned threads = 0;
  // Hinted links: a port's load counts (routes + 1) x weight. Null = all weights 1.
  const PortWeights* weights = nullptr;
  // The engine preset some entries (ftree: its main paths). A preset names a preferred
  // neighbour switch: the fill keeps the choice among the candidates toward that neighbour.
  bool presets = false;
  // Record the candidate sets as adaptive-routing alternatives.
  bool alternatives = false;
  // Up/down engines: shortest paths where the rule has none and no CA traffic can arrive
  // (see updown.h).
  const SwitchFallback* fallback = nullptr;
};

// Fills the LFTs of `tables` (entries for unreachable LIDs stay kNoRoute) and records every
// (switch, destination port) without a candidate in its diagnostics.
void fill_tables(const FabricView& fv, const CandidateFn& candidates, const FillOptions& opts,
                 RoutingTables& tables);

}  // namespace routing
