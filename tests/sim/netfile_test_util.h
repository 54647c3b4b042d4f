// Small helpers for the net-file and generator tests.
#pragma once

#include "tests/temp_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "sim/spec.h"

namespace sim_test {

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

inline const sim::SpecNode* find_node(const sim::FabricSpec& spec, std::string_view name) {
  for (const sim::SpecNode& n : spec.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// The link at port `port` of the node called `name`, whichever end it is.
inline const sim::SpecLink* link_of(const sim::FabricSpec& spec, std::string_view name,
                                    uint8_t port) {
  for (const sim::SpecLink& l : spec.links) {
    if (spec.nodes[l.a].name == name && l.port_a == port) return &l;
    if (spec.nodes[l.b].name == name && l.port_b == port) return &l;
  }
  return nullptr;
}

using testutil::TempDir;

}  // namespace sim_test
