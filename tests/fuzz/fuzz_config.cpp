// Feeds arbitrary text to the configuration-file line reader (fabricsm's and OpenSM's forms)
// and to the guid2lid reader; the first byte picks which. Either refuses with a parse error
// naming the file and a line, or returns what it promises: keys unique and without blanks or
// '=', lines increasing; LID ranges unicast, 2^LMC long, aligned, never overlapping.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

#include "cli/opensm_conf.h"
#include "sm/guid2lid.h"

namespace {

void check_error(const mad::Error& e) {
  if (e.code != mad::Errc::parse || e.message.rfind("fuzz:", 0) != 0) std::abort();
}

void config_lines(std::string_view text) {
  auto lines = cli::parse_config_lines(text, "fuzz");
  if (!lines) return check_error(lines.error());
  std::set<std::string> keys;
  int last = 0;
  for (const cli::ConfigLine& l : *lines) {
    if (l.key.empty() || l.key.find_first_of(" \t\r\n=#") != std::string::npos) std::abort();
    if (!keys.insert(l.key).second || l.line <= last) std::abort();
    if (l.value.find_first_of("\n#") != std::string::npos) std::abort();
    last = l.line;
    if (const cli::OpenSmKey* k = cli::find_opensm_key(l.key)) (void)cli::is_opensm_default(*k, l.value);
  }
}

void guid2lid(std::string_view text) {
  auto map = sm::parse_guid2lid(text, "fuzz");
  if (!map) return check_error(map.error());
  std::map<uint32_t, uint32_t> ranges;
  for (const auto& [guid, e] : *map) {
    const uint32_t size = 1u << e.lmc, lo = e.lid.value(), hi = lo + size - 1;
    if (guid.is_zero() || e.lmc > 7 || !e.lid.is_unicast() || hi > mad::Lid::kMaxUnicast || lo % size != 0) std::abort();
    ranges.emplace(lo, hi);
  }
  uint32_t end = 0;
  for (const auto& [lo, hi] : ranges) {
    if (lo <= end) std::abort();
    end = hi;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) guid2lid(text);
  else config_lines(text);
  return 0;
}
