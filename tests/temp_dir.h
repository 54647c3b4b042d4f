// A fresh directory under $TMPDIR for one test, removed with everything in it at the end of
// the scope.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace testutil {

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
  std::string file(std::string_view name) const { return (path / name).string(); }
  void write(const std::string& rel, std::string_view text) const {
    std::ofstream f(path / rel, std::ios::binary);
    f << text;
  }
};

}  // namespace testutil
