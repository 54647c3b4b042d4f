// Small helpers for the net-file and generator tests.
#pragma once

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

// A fresh directory under $TMPDIR, removed with everything in it at the end of the scope.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fabricsm-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  void write(const std::string& rel, std::string_view text) const {
    std::ofstream f(path / rel, std::ios::binary);
    f << text;
  }
};

}  // namespace sim_test
