// The SLs the SM's SA hands out, asked as an application asks: an SA client on a CA port
// (sim/sa_client.h) sends, for every switch with CAs, one PathRecord GetTable from the first
// CA port on it (SLID only: a path to every end port), LID-routed through the simulated
// switches, answered by RMPP. A switch's CAs enter the fabric at it, so the answer is the SL
// of every LID for that ingress switch (routing/tables.h). The SM runs beside the client on
// the same virtual clock (sim::MultiDriver).
#pragma once

#include <cstdint>

#include "mad/error.h"
#include "mad/reactor.h"
#include "sim/fabric.h"
#include "sim/vl_verifier.h"

namespace sim {

struct SlQuery {
  SlTable sls;
  uint64_t queries = 0;
  uint64_t records = 0;
  uint64_t unanswered = 0;  // GetTables without a complete answer
  bool any_nonzero = false;  // some PathRecord carries an SL other than 0
};

// `sm`: the reactor serving SA MADs at endpoint `sm_ep`. Fails when no CA port is free for
// the client. `max_records`: 0 = no limit; above it (switches with CAs x end ports) nothing is
// asked and the result is empty.
mad::Result<SlQuery> ask_sls(SimFabric& f, EndpointId sm_ep, mad::Reactor& sm, uint64_t max_records = 0);

}  // namespace sim
