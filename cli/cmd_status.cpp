// fabricsm status: asks a running daemon over its control socket what it is doing (state,
// master or standby, last sweep), and can ask it to sweep now.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/control.h"
#include "cli/json.h"

namespace po = boost::program_options;

namespace cli {

namespace {

// A master's heavy sweep takes well under this on any fabric it can run.
constexpr auto kResweepWait = std::chrono::seconds(60);

mad::Result<Json> status_of(const std::string& socket) {
  auto r = control_request(socket, "status");
  if (!r) return std::unexpected(r.error());
  Json j = Json::parse(*r, nullptr, false);
  if (!j.is_object() || !j.contains("sweeps") || !j["sweeps"].is_number_unsigned() || !j.contains("sweeping") ||
      !j["sweeping"].is_boolean() || !j.contains("state") || !j["state"].is_string())
    return mad::fail(mad::Errc::parse, fmt::format("the daemon's status is not what this fabricsm reads: {}", *r));
  return j;
}

// Asks for a heavy sweep and, on a master, waits until it is over: the status printed after
// is the sweep's, not a report half filled while it runs.
int resweep_and_wait(const std::string& socket) {
  auto before = status_of(socket);
  if (!before) {
    fmt::print(stderr, "fabricsm status: {}\n", before.error().message);
    return 1;
  }
  if (auto r = control_request(socket, "resweep"); !r) {
    fmt::print(stderr, "fabricsm status: {}\n", r.error().message);
    return 1;
  }
  if ((*before)["state"] != "Master") {
    fmt::print(stderr, "fabricsm status: this SM is {}, not master: it does not sweep\n",
               (*before)["state"].get<std::string>());
    return 0;
  }
  const uint64_t started = (*before)["sweeps"].get<uint64_t>();
  const auto deadline = std::chrono::steady_clock::now() + kResweepWait;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto now = status_of(socket);
    if (!now) {
      fmt::print(stderr, "fabricsm status: {}\n", now.error().message);
      return 1;
    }
    if ((*now)["sweeps"].get<uint64_t>() > started && (*now)["sweeping"] == false) return 0;
  }
  fmt::print(stderr, "fabricsm status: the sweep asked for has not ended after {} s\n", kResweepWait.count());
  return 1;
}

}  // namespace

int cmd_status(int argc, char** argv) {
  std::string socket = "/run/fabricsm/fabricsm.sock";
  bool json = false, resweep = false;
  po::options_description opts("fabricsm status [--socket PATH] [--json] [--resweep]\n\nOptions");
  opts.add_options()("help,h", "this help")(
      "socket", po::value(&socket)->default_value(socket), "the daemon's control socket (control_socket)")(
      "json", po::bool_switch(&json), "the answer as JSON")(
      "resweep", po::bool_switch(&resweep), "ask for a heavy sweep now, wait until it is over, then print the status");
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
    if (const std::string w = stray_word(parsed); !w.empty())
      throw po::error(fmt::format("unexpected argument '{}'", w));
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm status: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  if (resweep) {
    if (int rc = resweep_and_wait(socket); rc != 0) return rc;
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
