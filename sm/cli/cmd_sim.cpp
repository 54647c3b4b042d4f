#include <fmt/format.h>
#include "sm/cli/commands.h"
namespace cli {
int cmd_sim(int, char**) { fmt::print(stderr, "fabricsm sim: not built yet\n"); return 2; }
}  // namespace cli
