// What the commands share about usage errors (each exits kExitUsage, commands.h, on one).
#pragma once

#include <boost/program_options.hpp>
#include <string>

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

}  // namespace cli
