// metrics_listen's value: where the metrics endpoint listens (cli/metrics_server.h). Apart,
// so that the configuration checks it without the HTTP server.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "mad/error.h"

namespace cli {

struct ListenAddress {
  std::string host;  // as written (an IPv6 address without its brackets)
  uint16_t port = 0;
  bool loopback = true;
  std::string str() const { return host.find(':') != std::string::npos ? "[" + host + "]:" + std::to_string(port)
                                                                        : host + ":" + std::to_string(port); }
};

// "HOST:PORT", "[IPv6]:PORT", or a bare "PORT" (127.0.0.1:PORT). Port 0 is refused (the
// scrape config needs to know it).
inline mad::Result<ListenAddress> parse_listen_address(std::string_view v) {
  ListenAddress a;
  std::string_view port = v;
  if (v.starts_with('[')) {
    const size_t close = v.find("]:");
    if (close == std::string_view::npos) return mad::fail(mad::Errc::parse, "expected [IPv6]:PORT");
    a.host = std::string(v.substr(1, close - 1));
    port = v.substr(close + 2);
  } else if (const size_t colon = v.rfind(':'); colon != std::string_view::npos) {
    a.host = std::string(v.substr(0, colon));
    port = v.substr(colon + 1);
    if (a.host.find(':') != std::string::npos) return mad::fail(mad::Errc::parse, "an IPv6 address goes in brackets: [::1]:9684");
  } else {
    a.host = "127.0.0.1";
  }
  unsigned n = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (a.host.empty() || ec != std::errc() || end != port.data() + port.size() || n == 0 || n > 65535)
    return mad::fail(mad::Errc::parse, "expected HOST:PORT or PORT (1..65535), e.g. 127.0.0.1:9684");
  a.port = static_cast<uint16_t>(n);
  a.loopback = a.host == "localhost" || a.host == "::1" || a.host.starts_with("127.");
  return a;
}

}  // namespace cli
