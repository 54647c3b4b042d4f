// fabricsm status: asks a running daemon over its control socket what it is doing (state,
// master or standby, last sweep), and can ask it to sweep now.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/control.h"

namespace po = boost::program_options;

namespace cli {

int cmd_status(int argc, char** argv) {
  std::string socket = "/run/fabricsm/fabricsm.sock";
  bool json = false, resweep = false;
  po::options_description opts("fabricsm status [--socket PATH] [--json] [--resweep]\n\nOptions");
  opts.add_options()("help,h", "this help")(
      "socket", po::value(&socket)->default_value(socket), "the daemon's control socket (control_socket)")(
      "json", po::bool_switch(&json), "the answer as JSON")(
      "resweep", po::bool_switch(&resweep), "ask for a heavy sweep now, then print the status");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm status: {}\n", e.what());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (resweep) {
    auto r = cli::control_request(socket, "resweep");
    if (!r) {
      fmt::print(stderr, "fabricsm status: {}\n", r.error().message);
      return 1;
    }
  }
  auto r = cli::control_request(socket, json ? "status" : "status text");
  if (!r) {
    fmt::print(stderr, "fabricsm status: {}\n", r.error().message);
    return 1;
  }
  fmt::print("{}\n", *r);
  return 0;
}

}  // namespace cli
