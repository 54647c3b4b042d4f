// What a SIGHUP does with a re-read configuration: the settings the running SM takes now, and
// those that wait for the next start (the port, HA, transactions, the store, the control socket,
// the LMC: another LMC re-addresses every CA port). Those stay as running, so a later SIGHUP
// names them again.
#pragma once

#include <string>
#include <vector>

#include "cli/config.h"

namespace cli {

struct Reload {
  DaemonConfig apply;                // the running settings from now on
  std::vector<std::string> changed;  // "key = value" taken now
  std::vector<std::string> restart;  // "key = value" that wait for the next start
};

Reload plan_reload(const DaemonConfig& running, const DaemonConfig& next);

// The keys a running SM cannot take over.
bool restart_only(const std::string& key);

}  // namespace cli
