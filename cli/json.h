// JSON output of the fabricsm commands: string literals escaped once, in one place.
#pragma once

#include <string>
#include <string_view>

namespace cli {

// A JSON string literal (quotes, backslashes and control characters escaped).
std::string json_quote(std::string_view s);

}  // namespace cli
