// Feeds arbitrary text to the partitions-file parser. It must refuse with a parse error that
// names the file and a line, or return a set that keeps the model's promises: Default (0x7fff)
// first, every P_Key in 1..0x7fff and unique, names not empty (they need not be unique, as in
// OpenSM), every group's MGID multicast and in one partition only.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "sm/partitions/partitions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto set = sm::parse_partitions(text, "fuzz");
  if (!set) {
    if (set.error().code != mad::Errc::parse || set.error().message.rfind("fuzz:", 0) != 0) std::abort();
    return 0;
  }
  if (set->partitions.empty() || set->partitions[0].pkey != 0x7FFF) std::abort();
  std::set<uint16_t> keys;
  std::set<mad::Gid> mgids;
  for (const sm::Partition& p : set->partitions) {
    if (p.pkey == 0 || p.pkey > 0x7FFF || !keys.insert(p.pkey).second) std::abort();
    if (p.name.empty()) std::abort();
    for (const sm::PartitionMember& m : p.members)
      if (m.membership == sm::Membership::none) std::abort();
    for (const sm::PartitionGroup& g : p.groups)
      if (!g.mgid.is_multicast() || !mgids.insert(g.mgid).second) std::abort();
  }
  // The same text parses to the same set (no hidden state).
  auto again = sm::parse_partitions(text, "fuzz");
  if (!again || !(*again == *set)) std::abort();
  return 0;
}
