// The PerfMgr's tables of `fabricsm show` (cmd_show_counters.cpp).
#pragma once

#include <optional>
#include <string>

#include "cli/port_spec.h"
#include "cli/table.h"
#include "sm/store/store.h"

namespace cli {

struct CountersQuery {
  std::optional<PortSpec> port;         // only this port
  size_t top = 0;                       // only the N highest by `by` (0: all, in GUID order)
  std::string by = "port_xmit_data";    // a counter name: its rate orders --top
};

mad::Result<Table> counters_table(sm::store::Store& store, const CountersQuery& q, bool json);
mad::Result<Table> health_table(sm::store::Store& store);
// "2026-12-02T08:00:00Z" (UTC), "-" for 0.
std::string when_ms(int64_t ms);

}  // namespace cli
