// The high-availability options shared by `fabricsm run` and `fabricsm drill` (same names on
// the command line and in the config file).
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "ha/config.h"
#include "mad/error.h"

namespace cli {

struct HaArgs {
  bool sticky = false;
  std::string sm_key = "0x1";  // OpenSM's default
  int poll_ms = 100;
  int poll_timeout_ms = 0;  // 0: the poll interval
  int misses = 3;
  int stall_polls = 3;
};

void add_ha_options(boost::program_options::options_description& opts, HaArgs& a);
// The HA configuration those options describe, with `priority` (checked by the caller).
mad::Result<ha::Config> ha_config(const HaArgs& a, uint8_t priority);

}  // namespace cli
