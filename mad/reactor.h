// What runs over a Transport without ever blocking: its owner feeds it MADs and time and asks
// when it next needs to wake. The SM and the service stack are reactors; run_loop() drives one
// over any Transport (libibumad or the simulator, whose receive() runs the fabric on virtual
// time), and sim::MultiDriver drives several on one simulated fabric.
#pragma once

#include <functional>
#include <optional>

#include "mad/transport.h"

namespace mad {

class Reactor {
 public:
  virtual ~Reactor() = default;
  virtual void on_mad(const Packet& p) = 0;
  virtual void on_tick() = 0;
  virtual std::optional<Nanos> next_deadline() const = 0;
};

// Runs until `stop()` is true (checked after every batch) or the transport fails. `idle`
// bounds each wait when nothing is scheduled (so `stop` is looked at regularly).
Result<void> run_loop(Reactor& r, Transport& t, const std::function<bool()>& stop,
                      Nanos idle = std::chrono::milliseconds(100));

}  // namespace mad
