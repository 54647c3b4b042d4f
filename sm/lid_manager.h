// LID assignment. A port keeps the LID it holds when that LID is valid, unique and aligned;
// a port without one gets back the LID this SM's memory (the GUID -> LID map, persisted by the
// store) has for its GUID; anything else gets the lowest free LID, in port-GUID order, so the
// same fabric always gets the same LIDs whatever order discovery ran in. LIDs remembered for
// GUIDs that are absent stay reserved for their return until the LID space runs short.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/error.h"
#include "sm/types.h"

namespace sm {

struct LidEntry {
  Lid lid;
  uint8_t lmc = 0;
  bool operator==(const LidEntry&) const = default;
};
using LidMap = std::unordered_map<Guid, LidEntry>;  // port GUID -> base LID

struct LidAssignment {
  std::vector<Topology::LidSet> lids;  // every LID-owning port, with its (new) LID
  size_t kept = 0;        // ports that keep the LID they hold
  size_t restored = 0;    // ports given back their remembered LID
  size_t fresh = 0;       // ports given a new LID
  size_t changed = 0;     // ports whose LID differs from what they held
  size_t unassigned = 0;  // ports left without a LID: the LID space is exhausted
  std::vector<std::string> notes;  // conflicts resolved, reservations reclaimed
};

class LidManager {
 public:
  // LMC for CA ports (switch port 0 always has LMC 0), 0..7; fixed for the process's life
  // (another LMC re-addresses every CA port: a restart). `remembered`: the GUID -> LID memory
  // from the store.
  explicit LidManager(uint8_t lmc = 0, LidMap remembered = {})
      : lmc_(lmc), map_(std::make_shared<const LidMap>(std::move(remembered))) {}

  uint8_t lmc() const { return lmc_; }
  // The GUID -> LID memory, updated by every assign() that changes it. The shared map is
  // never changed in place: a sweep that changes a LID makes a new one, so a subnet published
  // earlier keeps the map it had, and one with no change shares it.
  const LidMap& map() const { return *map_; }
  std::shared_ptr<const LidMap> shared_map() const { return map_; }

  // Assigns LIDs to every CA port and switch port 0 that discovery saw. Fails only when the
  // unicast space cannot hold the ports (the ports that fit still get LIDs in `partial`).
  mad::Result<LidAssignment> assign(const Topology& topo, LidAssignment* partial = nullptr);

 private:
  uint8_t lmc_;
  std::shared_ptr<const LidMap> map_;
};

}  // namespace sm
