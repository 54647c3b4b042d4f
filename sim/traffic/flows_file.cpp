#include "sim/traffic/flows_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace sim::traffic {

namespace {

struct Cursor {
  std::string_view s;
  size_t i = 0;
  void blanks() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool done() {
    blanks();
    return i >= s.size() || s[i] == '#';
  }
};

struct PortName {
  std::string name;
  std::optional<unsigned> port;
};

// NAME, "NAME" or either with [PORT]; nullopt with `why` set when malformed.
std::optional<PortName> port_name(Cursor& c, std::string& why) {
  c.blanks();
  PortName out;
  if (c.i < c.s.size() && c.s[c.i] == '"') {
    const size_t end = c.s.find('"', c.i + 1);
    if (end == std::string_view::npos) {
      why = "unterminated quote";
      return std::nullopt;
    }
    out.name = std::string(c.s.substr(c.i + 1, end - c.i - 1));
    c.i = end + 1;
  } else {
    const size_t start = c.i;
    while (c.i < c.s.size() && c.s[c.i] != ' ' && c.s[c.i] != '\t' && c.s[c.i] != '\r' &&
           c.s[c.i] != '[' && c.s[c.i] != '#')
      ++c.i;
    out.name = std::string(c.s.substr(start, c.i - start));
  }
  if (out.name.empty()) {
    why = "expected SRC DST [WEIGHT]";
    return std::nullopt;
  }
  if (c.i < c.s.size() && c.s[c.i] == '[') {
    const size_t end = c.s.find(']', c.i);
    unsigned v = 0;
    const char* b = c.s.data() + c.i + 1;
    const char* e = end == std::string_view::npos ? b : c.s.data() + end;
    auto [p, ec] = std::from_chars(b, e, v);
    if (end == std::string_view::npos || ec != std::errc() || p != e || v < 1 || v > 254) {
      why = fmt::format("bad port in '{}[...'", out.name);
      return std::nullopt;
    }
    out.port = v;
    c.i = end + 1;
  }
  return out;
}

}  // namespace

mad::Result<std::vector<Flow>> parse_flows(std::string_view text, std::string_view label, const Net& net) {
  std::vector<Flow> flows;
  std::unordered_map<std::string_view, std::vector<uint32_t>> by_name;  // CA ports in port order
  for (uint32_t k = 0; k < net.cas().size(); ++k) by_name[net.node_name(net.cas()[k].node)].push_back(k);
  for (auto& [name, cas] : by_name)
    std::sort(cas.begin(), cas.end(), [&](uint32_t a, uint32_t b) { return net.cas()[a].port < net.cas()[b].port; });
  size_t line_no = 0;
  auto fail = [&](const std::string& why) -> mad::Result<std::vector<Flow>> {
    return mad::fail(mad::Errc::invalid, fmt::format("{}:{}: {}", label, line_no, why));
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    Cursor c{line};
    if (c.done()) continue;
    std::string why;
    uint32_t ends[2];
    for (uint32_t& e : ends) {
      auto pn = port_name(c, why);
      if (!pn) return fail(why);
      const auto it = by_name.find(pn->name);
      if (it == by_name.end()) return fail(fmt::format("no CA port with a link named '{}'", pn->name));
      const std::vector<uint32_t>& cas = it->second;
      e = cas.front();
      if (pn->port) {
        e = UINT32_MAX;
        for (uint32_t k : cas)
          if (net.cas()[k].port == *pn->port) e = k;
        if (e == UINT32_MAX) return fail(fmt::format("'{}' has no port {} with a link", pn->name, *pn->port));
      }
      if (c.i < line.size() && c.s[c.i] != ' ' && c.s[c.i] != '\t' && c.s[c.i] != '\r' && c.s[c.i] != '#')
        return fail(fmt::format("unexpected '{}' after '{}'", line.substr(c.i, 1), pn->name));
    }
    double weight = 1;
    if (!c.done()) {
      c.blanks();
      size_t end = c.i;
      while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r' && line[end] != '#') ++end;
      const std::string w(line.substr(c.i, end - c.i));
      char* stop = nullptr;
      weight = std::strtod(w.c_str(), &stop);
      if (stop != w.c_str() + w.size() || !std::isfinite(weight) || weight <= 0)
        return fail(fmt::format("weight '{}': must be a number above 0", w));
      c.i = end;
      if (!c.done()) return fail("expected SRC DST [WEIGHT], found more");
    }
    if (ends[0] == ends[1]) return fail("a flow from a port to itself");
    flows.push_back(Flow{ends[0], ends[1], weight});
  }
  if (flows.empty()) return mad::fail(mad::Errc::invalid, fmt::format("{}: no flows", label));
  return flows;
}

mad::Result<std::vector<Flow>> load_flows_file(const std::string& path, const Net& net) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return mad::fail(mad::Errc::not_found, fmt::format("cannot read flows file {}", path));
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_flows(ss.str(), path, net);
}

}  // namespace sim::traffic
