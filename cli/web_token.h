// The web view's access token (web_token_file, `sim --web-token-file`): one line of 16
// characters or more from a file only its owner may read, as the M_Key secret's file.
#pragma once

#include <cctype>
#include <string>

#include "sm/mkey/secret.h"

namespace cli {

inline mad::Result<std::string> read_web_token(const std::string& path) {
  auto bytes = sm::mkey::read_secret_file(path);
  if (!bytes) return std::unexpected(bytes.error());
  std::string token(bytes->begin(), bytes->end());
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  // It travels in a cookie and a header: no spaces, no separators.
  if (token.size() < 16 || token.find_first_of(" \t\r\n;,\"") != std::string::npos)
    return mad::fail(mad::Errc::invalid, "the token is one line of 16 characters or more, without spaces, ';', ',' or '\"'");
  return token;
}

}  // namespace cli
