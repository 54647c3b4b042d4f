// Dimension-order routes over a recovered grid (routing/grid.h), as the dor engine computes
// them before it looks for fewer VLs: shortest paths correcting the dimensions in order, and
// where the grid has rings, per (ingress switch, destination LID) the SL whose bit r says the
// route crosses ring r's wrap-around cable (2^rings SLs, each VL deadlock-free; dor.cpp).
#pragma once

#include "routing/fabric_view.h"
#include "routing/grid.h"
#include "routing/tables.h"

namespace routing {

RoutingTables dimension_order(const FabricView& fv, const Grid& grid, unsigned threads);

}  // namespace routing
