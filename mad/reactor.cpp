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
    const bool behind = !deferred.empty();
    for (Packet& p : batch) {
      if (behind && is_request(p)) r.on_mad(p);  // a request does not wait behind old responses
      else deferred.push_back(std::move(p));
    }
    for (bool over = false; !deferred.empty() && !over; over = t.clock().now() >= until) {
      r.on_mad(deferred.front());
      deferred.pop_front();
    }
    // Past the budget the requests left still go in this turn; only responses wait.
    for (auto it = deferred.begin(); it != deferred.end();) {
      if (!is_request(*it)) {
        ++it;
        continue;
      }
      r.on_mad(*it);
      it = deferred.erase(it);
    }
    r.on_tick();
  }
  // Nothing handed in is dropped: a caller may run the loop again on the same transport.
  for (const Packet& p : deferred) r.on_mad(p);
  if (!deferred.empty()) r.on_tick();
  return {};
}

}  // namespace mad
