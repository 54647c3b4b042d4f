#include "sm/event_loop.h"

#include <algorithm>

namespace sm {

mad::Result<void> run_loop(SubnetManager& sm, mad::Transport& t, const std::function<bool()>& stop,
                           mad::Nanos idle) {
  std::vector<mad::Packet> batch;
  while (!stop()) {
    const mad::Nanos now = t.clock().now();
    mad::Nanos deadline = now + idle;
    if (auto d = sm.next_deadline()) deadline = std::min(deadline, std::max(*d, now));
    batch.clear();
    if (auto r = t.receive(batch, deadline); !r) return r;
    for (const mad::Packet& p : batch) sm.on_mad(p);
    sm.on_tick();
  }
  return {};
}

}  // namespace sm
