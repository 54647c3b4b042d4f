// Feeds arbitrary text to the LFT dump parser (dump_fts / opensm-lfts.dmp). It must refuse with
// a parse error naming the input, or return tables whose every entry is a unicast LID.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/lft_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto d = sim::parse_lft_dump(text, "fuzz");
  if (!d) {
    if (d.error().code != mad::Errc::parse || d.error().message.rfind("fuzz", 0) != 0) std::abort();
    return 0;
  }
  if (d->switches.empty()) std::abort();
  for (const auto& sw : d->switches)
    for (const auto& e : sw.entries)
      if (e.lid == 0 || e.lid > mad::Lid::kMaxUnicast || e.port > 254) std::abort();
  return 0;
}
