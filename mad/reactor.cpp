#include "mad/reactor.h"

#include <algorithm>
#include <deque>

namespace mad {
namespace {

// A request to this port (no response bit in the method): another's, to be answered.
bool is_request(const Packet& p) { return p.mad.size() > 3 && (p.mad[3] & 0x80) == 0; }

}  // namespace

Result<void> run_loop(Reactor& r, Transport& t, const std::function<bool()>& stop, Nanos idle, Nanos budget) {
  std::vector<Packet> batch;
  std::deque<Packet> deferred;  // responses past a turn's budget, in arrival order
  while (!stop()) {
    const Nanos now = t.clock().now();
    Nanos deadline = now + idle;
    if (auto d = r.next_deadline()) deadline = std::min(deadline, std::max(*d, now));
    if (!deferred.empty()) deadline = now;  // only what has arrived: the turn goes on with the rest
    batch.clear();
    if (auto rc = t.receive(batch, deadline); !rc) return rc;
    const Nanos until = t.clock().now() + budget;
    bool over = false;
    if (!deferred.empty()) {  // requests first, the new responses behind the old ones
      for (Packet& p : batch) {
        if (is_request(p)) r.on_mad(p);
        else deferred.push_back(std::move(p));
      }
      while (!deferred.empty() && !over) {
        r.on_mad(deferred.front());
        deferred.pop_front();
        over = t.clock().now() >= until;
      }
    } else {
      for (Packet& p : batch) {
        if (!over || is_request(p)) {
          r.on_mad(p);
          over = over || t.clock().now() >= until;
        } else {
          deferred.push_back(std::move(p));
        }
      }
    }
    r.on_tick();
  }
  // Nothing handed in is dropped: a caller may run the loop again on the same transport.
  for (const Packet& p : deferred) r.on_mad(p);
  if (!deferred.empty()) r.on_tick();
  return {};
}

}  // namespace mad
