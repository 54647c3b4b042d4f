// Ground truth for every routing claim: walks the simulated switches' own LFTs (not the SM's
// idea of them) from every CA port to every CA LID. Each (switch, destination) is walked once
// and reused, so the largest fabric (43k nodes, 1.5 billion pairs) takes seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/fabric.h"

namespace sim {

struct VerifyOptions {
  size_t max_samples = 10;  // failures described by name
};

struct VerifyReport {
  uint64_t ca_ports = 0;        // CA ports with a live link (sources and destinations)
  uint64_t pairs = 0;           // ordered pairs of distinct CA ports
  uint64_t routed = 0;
  uint64_t unrouted = 0;        // dropped on the way (no LFT entry, dead port, LID mismatch)
  uint64_t loops = 0;           // pairs whose walk comes back to a switch it passed
  uint64_t no_lid = 0;          // linked CA ports without a LID (all their pairs unrouted)
  uint64_t duplicate_lids = 0;  // LIDs held by more than one port
  uint64_t ports_not_active = 0;  // linked ports (both ends) not in Active
  uint32_t max_hops = 0;        // links on the longest routed path
  double mean_hops = 0;
  std::vector<uint64_t> hop_histogram;  // [links] -> routed pairs
  std::vector<std::string> samples;     // the first failures, by node name

  bool all_routed() const { return unrouted == 0 && loops == 0 && no_lid == 0; }
};

VerifyReport verify_routing(const SimFabric& fabric, const VerifyOptions& opts = {});

}  // namespace sim
