// Another SM's routing on a simulated fabric: the LIDs and LFTs of a dump (sim/lft_dump.h)
// written into the simulated ports and switches, so that the verifier, the routing metrics and
// the traffic model score them exactly as they score fabricsm's own.
#pragma once

#include <cstddef>

#include "sim/fabric.h"
#include "sim/lft_dump.h"

namespace sim {

struct ImportReport {
  size_t switches = 0;  // LFTs written
  size_t entries = 0;
  size_t lids = 0;      // ports given the dump's LIDs
  // Linked CA ports and switches the dump gives no LID (dump_fts leaves out the top LID when it
  // opens a new 64-LID block): their pairs are unrouted.
  size_t without_lid = 0;
};

// Every switch and LID holder of the dump must be on this fabric (by GUID), every port within
// its switch; otherwise an error naming the dump's line, and nothing changed. On success every
// port's LID is the dump's (0 where the dump names none) and each switch in it holds its LFT.
mad::Result<ImportReport> import_lfts(SimFabric& f, const LftDump& d);

}  // namespace sim
