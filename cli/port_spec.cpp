#include "cli/port_spec.h"

#include <fmt/format.h>

#include <charconv>

#include "mad/text.h"

namespace cli {

std::string PortSpec::str() const {
  return guid ? fmt::format("{}:{}", *guid, port) : fmt::format("{}:{}", name, port);
}

mad::Result<PortSpec> parse_port_spec(const std::string& text) {
  const size_t colon = text.rfind(':');
  auto bad = [&] { return mad::fail(mad::Errc::parse, fmt::format("{} is not NODE:PORT (a node GUID or description, "
                                                                   "a port number)", mad::quoted(text))); };
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return bad();
  PortSpec s;
  const std::string node = text.substr(0, colon), port = text.substr(colon + 1);
  unsigned p = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (ec != std::errc() || end != port.data() + port.size() || p == 0 || p > 254) return bad();
  s.port = static_cast<uint8_t>(p);
  if (node.starts_with("0x") || node.starts_with("0X")) {
    uint64_t g = 0;
    auto [e2, ec2] = std::from_chars(node.data() + 2, node.data() + node.size(), g, 16);
    if (ec2 != std::errc() || e2 != node.data() + node.size()) return bad();
    s.guid = mad::Guid(g);
  } else {
    s.name = node;
  }
  return s;
}

}  // namespace cli
