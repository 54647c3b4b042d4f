// Rows of text printed as an aligned table, or as a JSON array of objects.
#pragma once

#include <string>
#include <vector>

namespace cli {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned, unquoted in JSON

  std::string text() const;
  std::string json() const;
};

}  // namespace cli
