// Rows of cells printed as an aligned table, or as a JSON array of objects (one per row, the
// columns as keys). Each cell carries its text and its JSON value, typed where the column is:
// a number, true/false, null for "nothing" (printed "-"), else the text as a string.
#pragma once

#include <concepts>
#include <string>
#include <vector>

#include "cli/json.h"

namespace cli {

struct Cell {
  std::string text;  // as the table shows it
  Json value;        // as the JSON has it

  Cell(std::string s) : text(s), value(std::move(s)) {}  // NOLINT: a string cell is the common case
  Cell(const char* s) : Cell(std::string(s)) {}           // NOLINT
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  static Cell number(T v) {
    return Cell(std::to_string(v), Json(v));
  }
  // The text with `decimals` places; the JSON the same figure, rounded alike.
  static Cell real(double v, int decimals);
  static Cell flag(bool v, const char* yes = "yes", const char* no = "no") { return Cell(v ? yes : no, Json(v)); }
  static Cell none(const char* text = "-") { return Cell(text, Json(nullptr)); }

 private:
  Cell(std::string t, Json v) : text(std::move(t)), value(std::move(v)) {}
};

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<bool> numeric;  // per column: right-aligned

  std::string text() const;
  Json json() const;
};

}  // namespace cli
