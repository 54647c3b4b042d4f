// Test helpers: small fabrics in a line or two, the shared reference files, and the
// FabricSpec -> fabric::Topology conversion (LIDs in NodeId order, linked ports Active).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "routing/engine.h"
#include "sim/spec.h"
#include "sim/spec_topology.h"
#include "fabric/topology.h"

// Under AddressSanitizer (the CI runs the unit suite so) everything is several times slower:
// heavy loops run one case there.
#if defined(__SANITIZE_ADDRESS__)
#define RTEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RTEST_SANITIZED 1
#endif
#endif
#ifndef RTEST_SANITIZED
#define RTEST_SANITIZED 0
#endif

namespace rtest {

// Builds a FabricSpec by name: sw("S0", 4).ca("H0").link("H0", 1, "S0", 1).
class Spec {
 public:
  Spec& sw(const std::string& name, uint8_t ports);
  Spec& ca(const std::string& name, uint8_t ports = 1);
  Spec& link(const std::string& a, uint8_t pa, const std::string& b, uint8_t pb);
  const sim::FabricSpec& spec() const { return spec_; }
  operator const sim::FabricSpec&() const { return spec_; }

 private:
  sim::FabricSpec spec_;
  std::map<std::string, uint32_t> index_;
};

using BuildOptions = sim::TopologyOptions;

// sim::topology_of (GUIDs as ibsim gives them, so NodeId order is: CAs in spec order, then
// switches in spec order; LIDs sequential in NodeId order, each CA port's base aligned to
// 2^LMC), failing the test on an error.
fabric::Topology to_topology(sim::FabricSpec spec, const BuildOptions& opts = {});

// Small fabrics. line: switches S0..S{n-1} in a row, `cas` CAs each (H<i>_<j> on ports 1..cas,
// then port cas+1 to the next switch, cas+2 to the previous). ring: the same, closed.
sim::FabricSpec line(uint32_t n, uint32_t cas);
sim::FabricSpec ring(uint32_t n, uint32_t cas);
// Two levels: leaves L0.., spines P0.., `cas` CAs per leaf on ports 1..cas, leaf port cas+1+j
// to spine j, spine port i+1 to leaf i.
sim::FabricSpec two_level(uint32_t leaves, uint32_t spines, uint32_t cas);

// A shared reference net file (/work/shared/topologies/<name>), parsed by sim::load_netfile.
sim::FabricSpec shared(const std::string& name);

// The registry's engine of that name, to ask what it can do (REQUIREs that there is one).
std::unique_ptr<routing::Engine> engine(std::string_view name);

// Runs one engine; fails the test (doctest REQUIRE) when it returns an error.
routing::RoutingTables route(const std::string& engine, const fabric::Topology& topo,
                             const routing::RoutingOptions& opts = {});

fabric::NodeId node(const fabric::Topology& topo, const std::string& name);
mad::Lid lid(const fabric::Topology& topo, const std::string& name, uint8_t port = 1);
// The LFT entry of switch `sw` for the LID of `dst` (its port 1, or port 0 of a switch).
uint8_t entry(const fabric::Topology& topo, const routing::RoutingTables& t, const std::string& sw,
              const std::string& dst);

}  // namespace rtest
