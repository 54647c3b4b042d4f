// `fabricsm run` as a long-running service: the SM on its port, with the store (LIDs and
// programmed tables across restarts, one commit per sweep), the systemd notify protocol
// (READY=1 after the first SUBNET UP or on entering Standby, STATUS=, WATCHDOG=1,
// STOPPING=1), the control socket `fabricsm status` talks to, and signals: SIGTERM/SIGINT
// stop cleanly (exit 0), SIGHUP re-reads the configuration (a bad file is refused and the
// running settings stay).
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "cli/config.h"

namespace cli {

struct DaemonArgs {
  DaemonConfig cfg;       // as loaded at start (file, then command line)
  std::string config_file;    // re-read on SIGHUP; empty: none
  boost::program_options::variables_map command_line;  // applied over the file again on SIGHUP
};

// Runs until a signal stops it, or with `cfg.once` until the first SUBNET UP (or Standby).
// Returns the process exit status: 0, or 1 with the reason logged.
int run_daemon(DaemonArgs args);

}  // namespace cli
