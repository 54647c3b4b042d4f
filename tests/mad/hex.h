// Test helper: bytes from a hex dump ("0101 0208 ..." as smpdump prints it, or "01 01 ...").
#pragma once

#include <cctype>
#include <cstdint>
#include <string_view>
#include <vector>

namespace test {

// Whitespace is ignored. A malformed dump gives an empty vector, which the size checks of
// the calling test then report.
inline std::vector<uint8_t> from_hex(std::string_view s) {
  std::vector<uint8_t> out;
  int hi = -1;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isspace(u)) continue;
    if (!std::isxdigit(u)) return {};
    const int v = std::isdigit(u) ? c - '0' : std::tolower(u) - 'a' + 10;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<uint8_t>(hi * 16 + v));
      hi = -1;
    }
  }
  if (hi >= 0) return {};
  return out;
}

}  // namespace test
