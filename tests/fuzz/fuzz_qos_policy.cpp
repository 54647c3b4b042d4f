// Feeds arbitrary text to the QoS policy parser. It must refuse with a parse error that names
// the file and a line, or return a policy that keeps the parser's promises: every rule's level
// and groups exist, a DEFAULT level, SLs of 4 bits; and the same text parses the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sm/qos_policy/match.h"
#include "sm/qos_policy/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = sm::qos::parse_policy(text, "fuzz");
  if (!p) {
    if (p.error().code != mad::Errc::parse || p.error().message.rfind("fuzz:", 0) != 0) std::abort();
    return 0;
  }
  if (p->default_level >= p->levels.size() || p->levels[p->default_level].name != "DEFAULT") std::abort();
  for (const sm::qos::Level& l : p->levels)
    if (l.sl > 15) std::abort();
  for (const sm::qos::Rule& r : p->rules) {
    if (r.level >= p->levels.size()) std::abort();
    for (size_t g : r.sources)
      if (g >= p->groups.size()) std::abort();
    for (size_t g : r.destinations)
      if (g >= p->groups.size()) std::abort();
  }
  sm::qos::PortFacts port;
  (void)sm::qos::level_for(*p, {.service_id = 0x10000, .pkey = 0x7FFF, .source = &port, .destination = &port});
  auto again = sm::qos::parse_policy(text, "fuzz");
  if (!again || !(*again == *p)) std::abort();
  return 0;
}
