// The subcommands of the one binary. Each parses its own options (Boost.Program_options) and
// returns the process exit status; argv[0] is "fabricsm <name>".
#pragma once

namespace cli {

// The exit status of a usage error (a bad option, a bad config), the same in every command.
inline constexpr int kExitUsage = 2;

// The routing engine (a chain, tried in order) when none is given: the same for `run`, `sim`
// and `drill`, so that a simulation routes as the daemon would.
inline constexpr const char* kDefaultRoutingEngine = "ftree,updn,minhop";

int cmd_topo(int argc, char** argv);
int cmd_sim(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_drill(int argc, char** argv);
int cmd_show(int argc, char** argv);
int cmd_status(int argc, char** argv);
int cmd_health(int argc, char** argv);
int cmd_config(int argc, char** argv);
int cmd_study(int argc, char** argv);

}  // namespace cli
