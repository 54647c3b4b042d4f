// JSON output of the fabricsm commands: every `--json` (and the control socket's answers) is
// built as an nlohmann::ordered_json value and written by json_text(), so that the output is
// valid JSON with typed values (numbers, true/false, null) and the keys in the order given.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace cli {

using Json = nlohmann::ordered_json;

// The text of a value, indented by 1 per level (arrays of records one per line at the top).
// Bytes that are not UTF-8 (a node description is 64 raw bytes) become U+FFFD instead of
// making the dump fail.
std::string json_text(const Json& j, bool indent = true);

// A figure rounded to `decimals` places, written as a JSON number (12.5, not 12.500000001).
double rounded(double v, int decimals);

// null for an absent value.
Json rounded_or_null(const std::optional<double>& v, int decimals);

}  // namespace cli
