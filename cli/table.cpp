#include "cli/table.h"

#include <fmt/format.h>

#include <algorithm>

namespace cli {

Cell Cell::real(double v, int decimals) { return Cell(fmt::format("{:.{}f}", v, decimals), Json(rounded(v, decimals))); }

std::string Table::text() const {
  std::vector<size_t> w(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    w[c] = columns[c].size();
    for (const auto& r : rows) w[c] = std::max(w[c], c < r.size() ? r[c].text.size() : 0);
  }
  auto line = [&](auto&& cell_text) {
    std::string s;
    for (size_t c = 0; c < columns.size(); ++c) {
      const std::string& v = cell_text(c);
      const bool right = c < numeric.size() && numeric[c];
      s += right ? fmt::format("{:>{}}", v, w[c]) : fmt::format("{:<{}}", v, w[c]);
      if (c + 1 < columns.size()) s += "  ";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  static const std::string kEmpty;
  std::string out = line([&](size_t c) -> const std::string& { return columns[c]; });
  for (const auto& r : rows) out += line([&](size_t c) -> const std::string& { return c < r.size() ? r[c].text : kEmpty; });
  return out;
}

Json Table::json() const {
  Json out = Json::array();
  for (const auto& r : rows) {
    Json o = Json::object();
    for (size_t c = 0; c < columns.size(); ++c) o[columns[c]] = c < r.size() ? r[c].value : Json(nullptr);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace cli
