// Another run's VL layers on a simulated fabric: the SLs of a dump (sim/sl_dump.h), as the SA
// handed them out on the real (or ibsim) fabric, become the SL table the per-VL verifier
// (sim/vl_verifier.h) reads, and its SL-to-VL rows are written into the simulated switches, so
// that deadlock freedom per VL is judged on what that fabric held, not on this run's SM. Goes
// after sim/lft_import.h: the SLIDs and DLIDs are the dump's LIDs.
#pragma once

#include <cstddef>

#include "sim/fabric.h"
#include "sim/sl_dump.h"
#include "sim/vl_verifier.h"

namespace sim {

struct SlImportReport {
  SlTable sls;               // by ingress switch and DLID (unnamed pairs: SL 0)
  size_t paths = 0;          // path records taken
  size_t sl2vl_tables = 0;   // (switch, input port, output port) tables written
  bool any_nonzero = false;  // some path carries an SL other than 0
};

// A path's SLID must be held by a linked CA port (its ingress switch: the switch at the other
// end of the link); two paths from one ingress switch to one DLID must carry the same SL (the
// verifier's model: the SL belongs to the ingress switch). Every sl2vl row must name a switch
// of this fabric and ports it has (output port 1 or above). Otherwise an error naming the
// dump's line, and nothing changed.
mad::Result<SlImportReport> import_sls(SimFabric& f, const SlDump& d);

}  // namespace sim
