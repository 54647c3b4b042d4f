#include <fmt/format.h>
#include "sm/cli/commands.h"
namespace cli {
int cmd_topo(int, char**) { fmt::print(stderr, "fabricsm topo: not built yet\n"); return 2; }
}  // namespace cli
