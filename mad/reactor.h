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
//
// A turn (a batch, then the tick) hands in responses for at most `budget` of the transport's
// clock; the responses left wait for the next turn, behind requests that arrive meanwhile
// (a standby's SMInfo poll, an SA query, a trap), which are handed in at once. At 32k CAs, 64
// NodeInfo answers of 254-port switches queue 16,000 PortInfo Gets: 45 ms in one turn, which
// the polls behind them waited for. On the simulator's clock, which stands still while the
// reactor works, no budget runs out: the order of events is the same as without one.
Result<void> run_loop(Reactor& r, Transport& t, const std::function<bool()>& stop,
                      Nanos idle = std::chrono::milliseconds(100), Nanos budget = std::chrono::milliseconds(5));

}  // namespace mad
