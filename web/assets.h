// The page's files, embedded in the binary at build time (web/embed.py over web/assets/):
// nothing is fetched from anywhere but this SM.
#pragma once

#include <span>
#include <string_view>

namespace web {

struct Asset {
  std::string_view path;  // "/app.js"
  std::string_view type;  // Content-Type
  std::string_view body;
};

std::span<const Asset> assets();

}  // namespace web
