// A port as an operator names it on the command line: "0x0002c903000e0b72:5" (node GUID) or
// "S1_000:5" (node description), as `show counters --port` and `health clear --port` take it.
#pragma once

#include <optional>
#include <string>

#include "mad/error.h"
#include "mad/types.h"
#include "sm/perfmgr/snapshot.h"

namespace cli {

struct PortSpec {
  std::optional<mad::Guid> guid;  // else `name`
  std::string name;
  uint8_t port = 0;

  bool matches(const sm::perfmgr::PortEnd& e) const {
    return e.port == port && (guid ? e.node == *guid : e.description == name);
  }
  std::string str() const;
};

// Errors name what was wrong ("'x' is not NODE:PORT").
mad::Result<PortSpec> parse_port_spec(const std::string& text);

}  // namespace cli
