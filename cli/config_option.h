// The configuration's option table, for the files that declare options (config.cpp, and
// config_perfmgr.cpp for the PerfMgr's): one entry per option with its checked setter and
// its getter (for --dump-config and SIGHUP's diff). Private to cli/config*.cpp.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/config.h"
#include "cli/listen_address.h"
#include "mad/text.h"

namespace cli::config_detail {

using Setter = std::function<mad::Result<void>(const std::string&, DaemonConfig&)>;
using Getter = std::function<std::string(const DaemonConfig&)>;

struct Option {
  const char* name;
  const char* help;
  Setter set;
  Getter get;
};

// Decimal, or hex with 0x; the whole string or an error naming `what` it should have been.
template <class T>
mad::Result<T> number(const std::string& v, std::string_view what) {
  T x = 0;
  std::string_view s = v;
  int base = 10;
  if (s.starts_with("0x") || s.starts_with("0X")) {
    s.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    return mad::fail(mad::Errc::parse, fmt::format("{} is not {}", mad::quoted(v), what));
  return x;
}

inline mad::Result<int64_t> integer(const std::string& v, int64_t lo, int64_t hi) {
  auto x = number<int64_t>(v, "a number");
  if (x && (*x < lo || *x > hi)) return mad::fail(mad::Errc::parse, fmt::format("{} is outside {}..{}", *x, lo, hi));
  return x;
}

inline mad::Result<uint64_t> u64(const std::string& v) { return number<uint64_t>(v, "a 64-bit number"); }

inline mad::Result<bool> boolean(const std::string& v) {
  if (v == "true" || v == "TRUE" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "FALSE" || v == "0" || v == "no") return false;
  return mad::fail(mad::Errc::parse, fmt::format("{} is not TRUE or FALSE", mad::quoted(v)));
}

// An integer option stored through `put`.
inline Option num(const char* name, const char* help, int64_t lo, int64_t hi,
           std::function<void(DaemonConfig&, int64_t)> put, std::function<int64_t(const DaemonConfig&)> get) {
  return Option{name, help,
                [=](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
                  auto x = integer(v, lo, hi);
                  if (!x) return std::unexpected(x.error());
                  put(c, *x);
                  return {};
                },
                [=](const DaemonConfig& c) { return std::to_string(get(c)); }};
}

// A TRUE/FALSE option: `field(config)` is the bool it sets and reads (a generic lambda, so
// it serves a const config too).
template <class Field>
Option flag(const char* name, const char* help, Field field) {
  return Option{name, help,
                [=](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
                  auto b = boolean(v);
                  if (!b) return std::unexpected(b.error());
                  field(c) = *b;
                  return {};
                },
                [=](const DaemonConfig& c) {
                  return std::string(field(c) ? "TRUE" : "FALSE");
                }};
}

inline Option text(const char* name, const char* help, std::string DaemonConfig::*field) {
  return Option{name, help,
                [=](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
                  c.*field = v;
                  return {};
                },
                [=](const DaemonConfig& c) { return c.*field; }};
}

// HOST:PORT, [IPv6]:PORT or PORT, kept in its normal form (cli/listen_address.h); empty: off.
inline Option listen(const char* name, const char* help, std::string DaemonConfig::*field) {
  return Option{name, help,
                [=](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
                  (c.*field).clear();
                  if (v.empty()) return {};
                  auto a = parse_listen_address(v);
                  if (!a) return mad::fail(mad::Errc::parse, fmt::format("{}: {}", mad::quoted(v), a.error().message));
                  c.*field = a->str();
                  return {};
                },
                [=](const DaemonConfig& c) { return c.*field; }};
}

// The PerfMgr's and the health rules' options, in their place in the table.
const std::vector<Option>& perfmgr_options();
// QoS's (config_qos.cpp): qos and the qos_* tables of each port class.
const std::vector<Option>& qos_options();

}  // namespace cli::config_detail
