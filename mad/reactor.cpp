#include "mad/reactor.h"

#include <algorithm>

namespace mad {

Result<void> run_loop(Reactor& r, Transport& t, const std::function<bool()>& stop, Nanos idle) {
  std::vector<Packet> batch;
  while (!stop()) {
    const Nanos now = t.clock().now();
    Nanos deadline = now + idle;
    if (auto d = r.next_deadline()) deadline = std::min(deadline, std::max(*d, now));
    batch.clear();
    if (auto rc = t.receive(batch, deadline); !rc) return rc;
    for (const Packet& p : batch) r.on_mad(p);
    r.on_tick();
  }
  return {};
}

}  // namespace mad
