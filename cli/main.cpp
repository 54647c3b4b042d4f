// fabricsm: one binary, one subcommand per job. Thin wiring only.
#include <malloc.h>

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace {

struct Command {
  std::string_view name;
  int (*run)(int, char**);
  std::string_view summary;
};

const Command kCommands[] = {
    {"sim", cli::cmd_sim, "run the SM against the in-process simulated fabric"},
    {"run", cli::cmd_run, "run the SM on a local InfiniBand port (libibumad; ibsim through its shim)"},
    {"study", cli::cmd_study, "failure campaigns: fabrics x links failed x seeds x engines x traffic, one CSV row a run"},
    {"drill", cli::cmd_drill, "failover drills: several SMs on one simulated fabric, failures scripted"},
    {"show", cli::cmd_show, "print what the store knows: nodes, links, lids, routes, events, sweeps, sms, counters, health"},
    {"status", cli::cmd_status, "ask a running daemon for its state, or for a sweep"},
    {"health", cli::cmd_health, "clear a running daemon's health findings (and the cables they isolated)"},
    {"topo", cli::cmd_topo, "generate, check or convert fabric topology files"},
    {"config", cli::cmd_config, "import an opensm.conf as a fabricsm.conf, or check a config file"},
};

void usage(std::FILE* out) {
  fmt::print(out, "usage: fabricsm <command> [options]   (fabricsm <command> --help; fabricsm --version)\n\ncommands:\n");
  for (const Command& c : kCommands) fmt::print(out, "  {:<8} {}\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
  // No fastbins: glibc otherwise consolidates the freed small blocks at the next large request,
  // and a sweep at 43k nodes frees millions of them (the worker's and the reaper's go back to
  // the main arena too). The loop then paid 20-40 ms at some later turn, inside a standby's
  // poll deadline. Without fastbins each free coalesces where it happens, mostly off the loop.
  // The 43k-node simulator's wall time is the same either way (22.9 s).
  mallopt(M_MXFAST, 0);
  if (argc < 2) {
    usage(stderr);
    return cli::kExitUsage;
  }
  std::string_view name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    usage(stdout);
    return 0;
  }
  if (name == "--version" || name == "-V" || name == "version") {
    fmt::print("fabricsm {}\n", FABRICSM_VERSION);
    return 0;
  }
  for (const Command& c : kCommands) {
    if (c.name != name) continue;
    std::string prog = fmt::format("fabricsm {}", name);
    std::vector<char*> args(argv + 1, argv + argc);
    args[0] = prog.data();
    return c.run(static_cast<int>(args.size()), args.data());
  }
  fmt::print(stderr, "fabricsm: unknown command '{}'\n", name);
  usage(stderr);
  return cli::kExitUsage;
}
