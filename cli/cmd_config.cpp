// fabricsm config: configuration files without a daemon. `import FILE` prints the fabricsm.conf
// that means what FILE (an opensm.conf, or a fabricsm.conf) means; `check FILE` says whether
// the daemon would start with it. What is not carried over is said on stderr and, for import,
// in the output's comments.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/config.h"

namespace po = boost::program_options;

namespace cli {

namespace {

void config_usage(std::FILE* out) {
  fmt::print(out,
             "usage: fabricsm config import FILE   print FILE (opensm.conf or fabricsm.conf) as a fabricsm.conf\n"
             "       fabricsm config check FILE    read FILE and the files it names as `fabricsm run` would\n");
}

}  // namespace

int cmd_config(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {  // `config import --help` too
      config_usage(stdout);
      return 0;
    }
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).starts_with("-")) {  // there is no option but --help
      fmt::print(stderr, "fabricsm config: unrecognised option '{}'\n", argv[i]);
      config_usage(stderr);
      return kExitUsage;
    }
  if (argc != 3 || (std::string_view(argv[1]) != "import" && std::string_view(argv[1]) != "check")) {
    config_usage(stderr);
    return kExitUsage;
  }
  const std::string verb = argv[1], file = argv[2];
  DaemonConfig cfg;
  if (verb == "check") {  // as the daemon reads it: the files it names too
    auto loaded = load_config(file, po::variables_map());
    if (!loaded) {
      fmt::print(stderr, "fabricsm config: {}\n", loaded.error().message);
      return kExitUsage;
    }
    for (const std::string& n : loaded->notes) fmt::print(stderr, "fabricsm config: warning: {}\n", n);
    fmt::print("{}: ok\n", file);
    return 0;
  }
  // import: the keys only; the files they name are the target machine's to have.
  if (auto r = apply_config_file(file, cfg); !r) {
    fmt::print(stderr, "fabricsm config: {}\n", r.error().message);
    return kExitUsage;
  }
  cfg.finalize();
  for (const std::string& n : cfg.notes) fmt::print(stderr, "fabricsm config: warning: {}\n", n);
  std::string head = fmt::format("# Imported from {} by `fabricsm config import`. Values at OpenSM's defaults were\n"
                                 "# left at fabricsm's.\n", file);
  for (const std::string& n : cfg.notes) head += fmt::format("# Not carried over: {}\n", n);
  std::cout << head << "#\n" << config_file_text(cfg);
  return 0;
}

}  // namespace cli
