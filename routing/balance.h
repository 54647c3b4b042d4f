// Traffic-balanced choices among legal up*/down* next hops, for updn.
//
// The fill (fill.h) balances each switch on its own, by the number of LIDs behind each port.
// That spreads the sources of one destination over many paths, which meet again at the
// down-links into its leaf: there several destinations of the leaf share a link. Before this,
// updn put 7680 all-to-all routes on one link of ft3-r16 (the optimum, ftree's: 1016) and 5104
// on ft3-r16-degraded5 (ftree: 1744).
//
// Here the destinations are taken one at a time, in leaf order, and for each the choices are
// made from what the earlier ones left on the links: every switch takes, among its legal next
// hops one up/down hop closer (the candidates of updown_candidates), the one whose remaining
// route carries the fewest routes so far (summed over its links: a shortest-path programme
// over the candidates, from the destination outward), ties to the lowest port. The sources of
// one destination thus converge, and the next destinations of the leaf go round the links the
// earlier ones loaded (on a complete tree: d-mod-k, no congestion under shift permutations).
// Then the destination's traffic (one route per source CA) is pushed along the chosen routes
// and added to the links it crosses; on the way, a switch whose traffic would load the arc by
// which its route enters the destination switch past that arc's even share (of all the traffic
// to that switch's LIDs) moves to a candidate that enters by another arc. So a leaf with 5 live
// up-links for 8 CAs takes 8/5 of a destination per down-link instead of 2 on some (as ftree's
// plan splits them).
//
// Sequential over destinations, so the result does not depend on the thread count. Each
// destination LID costs one pass over the candidate arcs of every switch: about 3 x 10^9 steps
// on the radix-54 tree (39,366 CAs), where updn went from 4.7 to about 13.6 CPU-seconds
// (measured on a busy 2-core machine, before the split step); ft3-r16: 42 ms instead of 40.
#pragma once

#include "routing/fabric_view.h"
#include "routing/tables.h"
#include "routing/updown.h"

namespace routing {

// Writes the entry of every switch that has a legal path toward every CA LID (2^LMC LIDs each
// carry a full share) into `tables`, as presets for fill_tables (FillOptions::presets). Entries
// without a legal path, and the switches' own LIDs, stay kNoRoute for the fill. `costs` must
// be by destination (before transpose()).
void balance_updown(const FabricView& fv, const Orientation& o, const UpDownCosts& costs,
                    RoutingTables& tables);

}  // namespace routing
