// fabricsm run: parses the options (the config file's names, OpenSM's where the meaning is
// the same, plus the short forms of earlier releases) and hands over to the daemon.
// Boost.Program_options reports errors by throwing; everything is caught in this file.
#include <fmt/format.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/daemon.h"
#include "cli/config.h"
#include "routing/engine.h"

namespace po = boost::program_options;

namespace cli {

namespace {

// Short command-line forms -> the config file's names (which also work on the command line).
const std::map<std::string, std::string>& aliases() {
  static const std::map<std::string, std::string> a = {
      {"--priority", "--sm_priority"}, {"--routing", "--routing_engine"}, {"-R", "--routing_engine"},
      {"--db", "--db_path"},           {"--port-guid", "--guid"},         {"--window", "--max_wire_smps"},
      {"--timeout-ms", "--transaction_timeout"}, {"--log-level", "--log_level"}, {"--sm-key", "--sm_key"},
      {"--poll-ms", "--sminfo_polling_timeout"}, {"--poll-misses", "--polling_retry_number"},
      {"--stall-polls", "--activity_stall_polls"}, {"--guid2lid", "--guid2lid_file"},
      // OpenSM's short options, where they mean the same here.
      {"-p", "--sm_priority"}, {"-g", "--guid"}, {"-s", "--sweep_interval"}, {"-F", "--config"},
      {"-P", "--partition_config_file"}, {"-l", "--lmc"}, {"-t", "--transaction_timeout"},
      {"--maxsmps", "--max_wire_smps"}, {"-a", "--root_guid_file"}, {"-f", "--log_file"},
  };
  return a;
}

// Rewrites the short forms ("--priority 5", "--priority=5", "--sticky") to the long names.
std::vector<std::string> canonical_args(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--sticky" || arg == "-B") {
      out.push_back(arg == "-B" ? "--daemon=TRUE" : "--sticky_master=TRUE");
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    if (auto it = aliases().find(name); it != aliases().end())
      arg = it->second + (eq == std::string::npos ? "" : arg.substr(eq));
    out.push_back(std::move(arg));
  }
  return out;
}

// The database's directory must exist; the default one is made as the package (or systemd's
// StateDirectory=) would, any other is the operator's to create.
mad::Result<void> check_db_path(const std::string& db) {
  namespace fs = std::filesystem;
  if (db.empty()) return {};
  fs::path dir = fs::path(db).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (db == DaemonConfig().db_path && !fs::is_directory(dir, ec)) fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec))
    return mad::fail(mad::Errc::not_found, fmt::format("db_path {}: directory {} does not exist", db, dir.string()));
  if (::access(dir.c_str(), W_OK) != 0)
    return mad::fail(mad::Errc::io, fmt::format("db_path {}: directory {} is not writable", db, dir.string()));
  return {};
}

}  // namespace

int cmd_run(int argc, char** argv) {
  std::string config_file;
  bool once = false, dump = false;
  po::options_description general(
      "fabricsm run [options]\n\nRuns the SM on a local InfiniBand port through libibumad (an HCA, or ibsim "
      "with\nLD_PRELOAD=libumad2sim.so). Logs to stderr. SIGTERM/SIGINT stop it (exit 0); SIGHUP re-reads\n"
      "the config file (fabricsm's or an opensm.conf). Short forms: --priority, --routing/-R, --db,\n"
      "--port-guid, --window, --timeout-ms, --log-level, --sm-key, --sticky, --poll-ms, --poll-misses,\n"
      "--stall-polls, --guid2lid; OpenSM's -p, -g, -s, -F, -P, -l, -t, --maxsmps, -a, -f, -B, -R, -o.\n\nOptions");
  general.add_options()
      ("help,h", "this help")
      ("config,c", po::value(&config_file), "read the options from FILE too (key = value, the names below, or "
       "an opensm.conf; the command line wins); see etc/fabricsm.conf")
      ("once,o", po::bool_switch(&once), "exit 0 after the first SUBNET UP (or on standing by under "
       "another master); non-zero if the subnet is not up after 5 sweeps")
      ("dump-config", po::bool_switch(&dump), "print the configuration in effect as a config file, and exit");
  po::options_description all;
  all.add(general).add(config_options());
  po::variables_map vm;
  try {
    const std::vector<std::string> args = canonical_args(argc, argv);
    const po::parsed_options parsed = po::command_line_parser(args).options(all).run();
    if (const std::string w = stray_word(parsed); !w.empty())
      throw po::error(fmt::format("unexpected argument '{}'", w));
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm run: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << all << "\n";
    return 0;
  }
  if (vm.count("routing_engine") && vm["routing_engine"].as<std::string>() == "help") {
    std::cout << routing::engine_listing();
    return 0;
  }
  auto cfg = load_config(config_file, vm);
  if (!cfg) {
    fmt::print(stderr, "fabricsm run: {}\n", cfg.error().message);
    return kExitUsage;
  }
  cfg->once = once;
  if (dump) {
    std::cout << config_file_text(*cfg);
    return 0;
  }
  if (!cfg->guid.empty() && (!cfg->ca.empty() || cfg->port != 0)) {
    fmt::print(stderr, "fabricsm run: give guid (--port-guid) or ca/port, not both\n");
    return kExitUsage;
  }
  if (auto db = check_db_path(cfg->db_path); !db) {
    fmt::print(stderr, "fabricsm run: {}\n", db.error().message);
    return kExitUsage;
  }
  return run_daemon(DaemonArgs{.cfg = std::move(*cfg), .config_file = config_file, .command_line = vm});
}

}  // namespace cli
