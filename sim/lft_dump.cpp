#include "sim/lft_dump.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace sim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A hex number after "0x" at the start of `s`; advances past it.
bool hex(std::string_view& s, uint64_t& v) {
  if (!s.starts_with("0x") && !s.starts_with("0X")) return false;
  const char* b = s.data() + 2;
  const auto [end, ec] = std::from_chars(b, s.data() + s.size(), v, 16);
  if (ec != std::errc() || end == b) return false;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return true;
}

// "... guid 0x... (NAME):" or "... guid 0x... ('NAME'):"
bool header(std::string_view l, DumpSwitch& sw) {
  const size_t g = l.find(" guid ");
  if (g == std::string_view::npos || !l.ends_with(':')) return false;
  std::string_view rest = l.substr(g + 6);
  uint64_t v = 0;
  if (!hex(rest, v)) return false;
  sw.guid = mad::Guid(v);
  rest = trim(rest);
  if (rest.starts_with('(')) {
    const size_t close = rest.rfind(')');
    std::string_view n = close == std::string_view::npos ? rest.substr(1) : rest.substr(1, close - 1);
    if (n.size() >= 2 && n.front() == '\'' && n.back() == '\'') n = n.substr(1, n.size() - 2);
    sw.name = std::string(n);
  }
  return true;
}

}  // namespace

mad::Result<LftDump> parse_lft_dump(std::string_view text, std::string_view name) {
  LftDump d;
  size_t line_no = 0;
  auto bad = [&](std::string_view why) { return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {}", name, line_no, why)); };
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view l = trim(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (l.empty()) continue;
    if (l.starts_with("Unicast lids")) {
      DumpSwitch sw;
      sw.line = line_no;
      if (!header(l, sw)) return bad("a switch header without \"guid 0x...:\"");
      d.switches.push_back(std::move(sw));
      continue;
    }
    if (l.starts_with("0x")) {
      if (d.switches.empty()) return bad("an LFT entry before any \"Unicast lids ... of switch\" header");
      std::string_view rest = l;
      uint64_t lid = 0;
      if (!hex(rest, lid) || lid == 0 || lid > mad::Lid::kMaxUnicast) return bad("the entry's LID is not a unicast LID");
      rest = trim(rest);
      unsigned port = 0;
      const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), port);
      if (ec != std::errc() || end == rest.data() || port > 254) return bad("the entry's output port is not a number 0-254");
      rest.remove_prefix(static_cast<size_t>(end - rest.data()));
      rest = trim(rest);
      if (!rest.empty() && rest.front() != ':' && rest.front() != '#') return bad("expected ':' or '#' after the port");
      DumpEntry e{static_cast<uint16_t>(lid), static_cast<uint8_t>(port), mad::Guid()};
      if (const size_t pg = rest.find("portguid "); pg != std::string_view::npos) {
        std::string_view g = rest.substr(pg + 9);
        uint64_t v = 0;
        if (!hex(g, v)) return bad("portguid is not 0x followed by hex digits");
        e.holder = mad::Guid(v);
      }
      d.switches.back().entries.push_back(e);
      continue;
    }
    // Column headings and trailers ("Lid  Out   Destination", "44 valid lids dumped").
    if (l.starts_with("Lid") || l.starts_with("Port") || l.find("lids dumped") != std::string_view::npos ||
        l.starts_with("Multicast") || l.starts_with("#"))
      continue;
    return bad(fmt::format("not an LFT dump line: \"{}\"", l.substr(0, 60)));
  }
  if (d.switches.empty()) return mad::fail(mad::Errc::parse, fmt::format("{}: no \"Unicast lids ... of switch\" table", name));
  return d;
}

mad::Result<LftDump> load_lft_dump(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return mad::fail(mad::Errc::io, fmt::format("{}: cannot read it", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_lft_dump(ss.str(), path);
}

}  // namespace sim
