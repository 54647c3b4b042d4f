// What the simulator benches start from: a 3-level fat tree of the given radix with an SM
// port at its first CA (as ibsim attaches one), IsSM set.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <optional>

#include "sim/generators.h"
#include "sim/sim_transport.h"

namespace bench {

struct SimFatTree {
  std::unique_ptr<sim::SimFabric> fabric;
  std::unique_ptr<sim::SimTransport> transport;

  // Prints why and returns nothing when the tree cannot be made.
  static std::optional<SimFatTree> make(unsigned radix) {
    auto spec = sim::make_fat_tree(3, radix);
    auto built = spec ? sim::SimFabric::build(std::move(*spec)) : decltype(sim::SimFabric::build({}))(std::unexpected(spec.error()));
    if (!built) {
      fmt::print(stderr, "{}\n", built.error().message);
      return std::nullopt;
    }
    SimFatTree t{std::move(*built), nullptr};
    const sim::EndpointId ep = *t.fabric->attach(0, 1);
    t.fabric->set_is_sm(ep, true);
    t.transport = std::make_unique<sim::SimTransport>(*t.fabric, ep);
    return t;
  }
};

}  // namespace bench
