// `fabricsm sim --serve ADDR`: the web view of a simulated fabric after bring-up, for
// researchers: the same page and API as `fabricsm run`'s, with the links coloured by their
// all-to-all route counts on the simulated switches' own tables, or by the utilisation of the
// run's traffic (--traffic). Serves until SIGINT/SIGTERM.
#pragma once

#include <string>

#include "cli/listen_address.h"
#include "cli/sim_run.h"
#include "service/service.h"
#include "sim/fabric.h"

namespace cli {

struct SimServeOptions {
  ListenAddress at;
  std::string token;  // empty: none (loopback only)
};

// Returns when a signal asks it to stop, or at once with false when it cannot listen.
bool serve_sim(const service::Service& svc, const sim::SimFabric& f, const SimOutcome& run, const SimServeOptions& o);

}  // namespace cli
