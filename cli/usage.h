// What the commands share about usage errors (each exits kExitUsage, commands.h, on one).
#pragma once

#include <algorithm>
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace cli {

// The first word of a parsed command line that is neither an option nor an option's value, or
// "" when there is none. Boost.Program_options drops such words silently when no positional
// arguments are declared; a command that takes none refuses them instead ("unexpected
// argument 'X'"), so that `fabricsm sim 3,16` is not a run of the default fabric.
inline std::string stray_word(const boost::program_options::parsed_options& p) {
  for (const auto& o : p.options)
    if (o.string_key.empty() && !o.value.empty()) return o.value.front();
  return {};
}

// A comma list of an option ("ftree,updn", "0,0.02"); empty items dropped unless kept (then a
// caller refuses them by name).
inline std::vector<std::string> split_list(const std::string& s, bool keep_empty = false) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= s.size();) {
    const size_t comma = std::min(s.find(',', at), s.size());
    if (keep_empty || comma > at) out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

}  // namespace cli
