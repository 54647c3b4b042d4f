// Several SMs on one simulated fabric, each at its own endpoint: a cooperative scheduler on
// the shared virtual clock. Each round runs the fabric's events up to the earliest deadline
// of any SM (or until one has mail), hands every SM its mail, then ticks every SM. Rounds
// visit the SMs in the order they were added, so the same events give the same outcome.
// The SMs are seen as mad::Reactor, so sim/ knows nothing of sm/.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "mad/reactor.h"
#include "sim/fabric.h"

namespace sim {

using mad::Reactor;

class MultiDriver {
 public:
  explicit MultiDriver(SimFabric& fabric) : fabric_(fabric) {}

  // Serves `r` at endpoint `ep` from now on (borrowed: it must outlive its slot).
  void add(EndpointId ep, Reactor& r);
  // Stops serving `ep` (the SM was killed or detached); its mail is dropped.
  void remove(EndpointId ep);

  // Runs until virtual time `until`, or until `stop()` (checked after every round) is true.
  // Returns the number of rounds run.
  uint64_t run_until(mad::Nanos until, const std::function<bool()>& stop = {});

 private:
  struct Slot {
    EndpointId ep;
    Reactor* r;
  };
  SimFabric& fabric_;
  std::vector<Slot> slots_;
  std::vector<mad::Packet> batch_;
};

}  // namespace sim
