#include "sim/sl_dump.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace sim {

namespace {

// The next blank-separated word of `s`; advances past it.
std::string_view word(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && s[n] != ' ' && s[n] != '\t' && s[n] != '\r') ++n;
  const std::string_view w = s.substr(0, n);
  s.remove_prefix(n);
  return w;
}

// A whole word as a number (decimal or 0x-hex) no larger than `max`.
bool number(std::string_view w, uint64_t max, uint64_t& v) {
  int base = 10;
  if (w.starts_with("0x") || w.starts_with("0X")) {
    w.remove_prefix(2);
    base = 16;
  }
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v, base);
  return !w.empty() && ec == std::errc() && end == w.data() + w.size() && v <= max;
}

}  // namespace

mad::Result<SlDump> parse_sl_dump(std::string_view text, std::string_view name) {
  SlDump d;
  size_t line_no = 0;
  auto bad = [&](std::string_view why) { return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {}", name, line_no, why)); };
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (const size_t hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
    const std::string_view kind = word(l);
    if (kind.empty()) continue;
    uint64_t v[19] = {};
    size_t n = 0;
    if (kind == "path") {
      const uint64_t max[3] = {0xBFFF, 0xBFFF, 15};
      for (; n < 3; ++n)
        if (!number(word(l), max[n], v[n])) return bad("path SLID DLID SL: unicast LIDs 1..0xbfff and an SL 0..15");
      if (v[0] == 0 || v[1] == 0) return bad("path SLID DLID SL: LID 0 is no port's");
      d.paths.push_back(SlPath{static_cast<uint16_t>(v[0]), static_cast<uint16_t>(v[1]), static_cast<uint8_t>(v[2]), line_no});
    } else if (kind == "sl2vl") {
      for (; n < 19; ++n) {
        const uint64_t max = n == 0 ? UINT64_MAX : n < 3 ? 254 : 15;
        if (!number(word(l), max, v[n])) return bad("sl2vl SWITCH_GUID IN OUT and 16 VLs 0..15 (ports 0..254)");
      }
      SlToVlRow r{mad::Guid(v[0]), static_cast<uint8_t>(v[1]), static_cast<uint8_t>(v[2]), {}, line_no};
      for (size_t sl = 0; sl < 16; ++sl) r.vl[sl] = static_cast<uint8_t>(v[3 + sl]);
      d.sl2vl.push_back(r);
    } else {
      return bad(fmt::format("\"{}\": a line is \"path ...\" or \"sl2vl ...\"", kind));
    }
    if (!word(l).empty()) return bad("more fields than the record has");
  }
  return d;
}

mad::Result<SlDump> load_sl_dump(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return mad::fail(mad::Errc::io, fmt::format("{}: cannot read", path));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_sl_dump(s.str(), path);
}

}  // namespace sim
