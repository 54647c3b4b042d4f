// Link hints for adaptive-hint: a weight per link (1 = normal, larger = hotter, to be avoided).
// Text format, one link per line, '#' starts a comment:
//     # <switch-guid> <port> <weight>
//     0x0002c90300a1b2c0  17  8
// The weight (an integer 1..1000) applies to the whole cable (both directions), named by either
// of its switch ends. Lines naming a switch or port that is not in the fabric are skipped with a
// note (links come and go between sweeps).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "routing/engine.h"
#include "routing/fabric_view.h"

namespace routing {

mad::Result<std::vector<LinkHint>> parse_hints(std::string_view text);
// The only file access in routing/: reads a hints file for an engine given only its path.
mad::Result<std::vector<LinkHint>> load_hints(const std::string& path);

// Per (switch, port) weights over a FabricView.
class PortWeights {
 public:
  PortWeights() = default;
  // Applies `hints` to both ends of each named link; appends a note per skipped hint.
  static PortWeights build(const FabricView& fv, const std::vector<LinkHint>& hints,
                           std::vector<std::string>& notes);
  bool empty() const { return w_.empty(); }
  uint32_t at(const FabricView& fv, SwIdx s, uint8_t port) const {
    return w_.empty() ? 1 : w_[fv.port_slot(s, port)];
  }

 private:
  std::vector<uint32_t> w_;
};

}  // namespace routing
