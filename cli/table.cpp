#include "cli/table.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/json.h"

namespace cli {

std::string Table::text() const {
  std::vector<size_t> w(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    w[c] = columns[c].size();
    for (const auto& r : rows) w[c] = std::max(w[c], c < r.size() ? r[c].size() : 0);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string& v = c < cells.size() ? cells[c] : "";
      const bool right = c < numeric.size() && numeric[c];
      s += right ? fmt::format("{:>{}}", v, w[c]) : fmt::format("{:<{}}", v, w[c]);
      if (c + 1 < columns.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(columns);
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string Table::json() const {
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += i ? ",\n {" : "{";
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string& v = c < rows[i].size() ? rows[i][c] : "";
      const bool num = c < numeric.size() && numeric[c] && !v.empty();
      out += fmt::format("{}{}: {}", c ? ", " : "", json_quote(columns[c]), num ? v : json_quote(v));
    }
    out += "}";
  }
  return out + "]\n";
}

}  // namespace cli
