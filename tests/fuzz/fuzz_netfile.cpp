// Feeds arbitrary text to the net-file parser. It must refuse with an error or return a spec
// that write_netfile turns into a file parsing back to the same spec. Includes are off: a
// fuzzed "include /dev/..." must not read the machine's files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/netfile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  sim::NetfileOptions opt;
  opt.allow_include = false;
  auto spec = sim::parse_netfile(text, "fuzz", opt);
  if (!spec) {
    if (spec.error().code != mad::Errc::parse || spec.error().message.rfind("fuzz:", 0) != 0)
      std::abort();
    return 0;
  }
  auto again = sim::parse_netfile(sim::write_netfile(*spec), "again", opt);
  if (!again || !(*again == *spec)) std::abort();
  return 0;
}
