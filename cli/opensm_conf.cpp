#include "cli/opensm_conf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "mad/text.h"

namespace cli {

namespace {

std::string_view trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// OpenSM's numbers, negative ones included (qos_high_limit -1).
std::optional<long long> as_number(std::string_view v) {
  const bool negative = v.starts_with('-');
  if (negative) v.remove_prefix(1);
  const auto x = mad::parse_number(v);
  if (!x) return std::nullopt;
  return negative ? -static_cast<long long>(*x) : static_cast<long long>(*x);
}

std::string lower(std::string_view v) {
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string normal(std::string_view v) {
  v = trim(v);
  return v == "(null)" ? std::string() : lower(v);
}

}  // namespace

const OpenSmKey* find_opensm_key(std::string_view name) {
  for (const OpenSmKey& k : opensm_keys())
    if (k.name == name) return &k;
  return nullptr;
}

bool is_opensm_default(const OpenSmKey& key, std::string_view value) {
  const std::string a = normal(value), b = normal(key.default_value);
  const auto na = as_number(a), nb = as_number(b);
  // What does not fit 64 bits (OpenSM's 256-bit masks) compares as text.
  if (na && nb) return *na == *nb;
  return a == b;
}

bool asks_nothing(const OpenSmKey& key, std::string_view value) {
  return key.name != "partition_config_file" && key.name != "qos_policy_file" && is_opensm_default(key, value);
}

mad::Result<std::vector<ConfigLine>> parse_config_lines(std::string_view text, std::string_view path) {
  std::vector<ConfigLine> out;
  std::map<std::string, int, std::less<>> first;
  int n = 0;
  for (size_t pos = 0; pos <= text.size(); ++n) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const int at = n + 1;
    const size_t key_end = std::min(line.find_first_of(" \t\r="), line.size());
    ConfigLine c;
    c.key = std::string(line.substr(0, key_end));
    c.line = at;
    std::string_view rest = trim(line.substr(key_end));
    if (rest.starts_with('=')) {
      c.value = std::string(trim(rest.substr(1)));
    } else {
      c.opensm_form = true;
      if (rest.empty())
        return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {} is not 'key = value' (or OpenSM's 'key value')",
                                                       path, at, mad::quoted(line)));
      c.value = rest == "(null)" ? std::string() : std::string(rest);
    }
    if (c.key.empty())
      return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {} has no key", path, at, mad::quoted(line)));
    if (auto [it, fresh] = first.emplace(c.key, at); !fresh)
      return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {} is given twice (first on line {})", path, at,
                                                     mad::quoted(c.key), it->second));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cli
