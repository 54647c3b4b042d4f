#include "sm/guid2lid.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

#include "mad/text.h"

namespace sm {

mad::Result<LidMap> parse_guid2lid(std::string_view text, std::string_view path) {
  LidMap out;
  std::map<uint32_t, std::pair<uint32_t, int>> ranges;  // first LID -> (last LID, line)
  std::map<Guid, int> seen;
  int n = 0;
  for (size_t pos = 0; pos < text.size(); ++n) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto w = mad::words(line);
    if (w.empty()) continue;
    const int at = n + 1;
    auto bad = [&](std::string why) {
      return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {}", path, at, why));
    };
    if (w.size() != 3) return bad(fmt::format("{} is not 'GUID MIN_LID MAX_LID'", mad::quoted(line)));
    const auto guid = mad::parse_number(w[0]), lo = mad::parse_number(w[1]), hi = mad::parse_number(w[2]);
    if (!guid || *guid == 0) return bad(fmt::format("{} is not a port GUID", mad::quoted(w[0])));
    if (!lo || !hi || *lo < 1 || *hi > mad::Lid::kMaxUnicast || *hi < *lo)
      return bad(fmt::format("{} {} is not a range of unicast LIDs", mad::quoted(w[1]), mad::quoted(w[2])));
    const uint64_t size = *hi - *lo + 1;
    uint8_t lmc = 0;
    while ((uint64_t{1} << lmc) < size) ++lmc;
    if ((uint64_t{1} << lmc) != size || lmc > 7 || *lo % size != 0)
      return bad(fmt::format("LIDs {}..{} are not 2^LMC LIDs aligned to their count", *lo, *hi));
    const Guid g(*guid);
    if (auto [it, fresh] = seen.emplace(g, at); !fresh)
      return bad(fmt::format("port {} is given twice (first on line {})", g, it->second));
    const auto first = static_cast<uint32_t>(*lo), last = static_cast<uint32_t>(*hi);
    auto next = ranges.lower_bound(first);
    if (next != ranges.end() && next->first <= last)
      return bad(fmt::format("LIDs {}..{} overlap line {}", first, last, next->second.second));
    if (next != ranges.begin() && std::prev(next)->second.first >= first)
      return bad(fmt::format("LIDs {}..{} overlap line {}", first, last, std::prev(next)->second.second));
    ranges.emplace(first, std::make_pair(last, at));
    out.emplace(g, LidEntry{Lid(static_cast<uint16_t>(first)), lmc});
  }
  return out;
}

mad::Result<LidMap> load_guid2lid(const std::string& path) {
  auto text = mad::read_text_file(path, "a guid2lid file");
  if (!text) return std::unexpected(text.error());
  return parse_guid2lid(*text, path);
}

size_t merge_imported_lids(LidMap& remembered, const LidMap& imported) {
  size_t added = 0;
  for (const auto& [guid, entry] : imported) added += remembered.try_emplace(guid, entry).second ? 1 : 0;
  return added;
}

}  // namespace sm
