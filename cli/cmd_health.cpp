// fabricsm health clear: asks the running daemon (its control socket) to close health findings,
// every one or those at or facing one port, and to give their isolated cables back to routing.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/control.h"
#include "cli/json.h"
#include "cli/port_spec.h"

namespace po = boost::program_options;

namespace cli {

int cmd_health(int argc, char** argv) {
  std::string socket = "/run/fabricsm/fabricsm.sock", what, port;
  po::options_description opts(
      "fabricsm health clear [--port NODE:PORT] [--socket PATH]\n\n"
      "Closes the daemon's health findings (all, or at or facing one port) and brings the cables\n"
      "they isolated back into the routes. `fabricsm show health` lists them.\n\nOptions");
  opts.add_options()("help,h", "this help")(
      "socket", po::value(&socket)->default_value(socket), "the daemon's control socket (control_socket)")(
      "port", po::value(&port), "only this port: node GUID (0x...) or description, ':', port number");
  po::options_description hidden;
  hidden.add_options()("what", po::value(&what));
  po::positional_options_description pos;
  pos.add("what", 1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm health: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (what != "clear") {
    fmt::print(stderr, "fabricsm health: {}; the command is `fabricsm health clear`\n",
               what.empty() ? "nothing asked" : fmt::format("unknown request '{}'", what));
    return kExitUsage;
  }
  if (!port.empty())
    if (auto p = parse_port_spec(port); !p) {
      fmt::print(stderr, "fabricsm health: --port: {}\n", p.error().message);
      return kExitUsage;
    }
  auto r = control_request(socket, port.empty() ? "health clear" : "health clear " + port);
  if (!r) {
    fmt::print(stderr, "fabricsm health: {}\n", r.error().message);
    return 1;
  }
  // The daemon's answer, JSON: {"cleared": N} or {"error": "..."}.
  const Json answer = Json::parse(*r, nullptr, false);
  if (!answer.is_object()) {
    fmt::print(stderr, "fabricsm health: the daemon's answer is not JSON: {}\n", *r);
    return 1;
  }
  fmt::print("{}\n", json_text(answer));
  return answer.contains("error") ? 1 : 0;
}

}  // namespace cli
