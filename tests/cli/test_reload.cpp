// What a SIGHUP takes now and what waits for the next start (cli/reload.h).
#include <doctest/doctest.h>

#include <algorithm>

#include "cli/reload.h"

namespace {

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("reload: routing and sweep settings now; port, HA and store settings at the next start") {
  cli::DaemonConfig running;
  running.finalize();
  cli::DaemonConfig next = running;
  next.sm.routing_engine = "updn";
  next.sm.sweep_interval = std::chrono::seconds(3);
  next.sm.ha.priority = 9;
  next.db_path = "/elsewhere.db";
  const cli::Reload r = cli::plan_reload(running, next);
  CHECK(has(r.changed, "routing_engine = updn"));
  CHECK(has(r.changed, "sweep_interval = 3"));
  CHECK(has(r.restart, "sm_priority = 9"));
  CHECK(has(r.restart, "db_path = /elsewhere.db"));
  CHECK(r.apply.sm.routing_engine == "updn");
  CHECK(r.apply.sm.ha.priority == running.sm.ha.priority);
  CHECK(r.apply.db_path == running.db_path);
}

// The LMC was logged as applied on SIGHUP and never applied (the LID manager keeps the LMC it
// started with): it is a restart-only key, named as such, and the running value stays.
TEST_CASE("reload: another LMC waits for the next start") {
  cli::DaemonConfig running;
  running.finalize();
  cli::DaemonConfig next = running;
  next.sm.ports.lmc = 2;
  const cli::Reload r = cli::plan_reload(running, next);
  CHECK(r.changed.empty());
  CHECK(has(r.restart, "lmc = 2"));
  CHECK(r.apply.sm.ports.lmc == 0);
}
