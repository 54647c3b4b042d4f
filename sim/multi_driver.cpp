#include "sim/multi_driver.h"

#include <algorithm>

namespace sim {

void MultiDriver::add(EndpointId ep, Reactor& r) {
  remove(ep);
  slots_.push_back(Slot{ep, &r});
}

void MultiDriver::remove(EndpointId ep) {
  std::erase_if(slots_, [&](const Slot& s) { return s.ep == ep; });
}

uint64_t MultiDriver::run_until(mad::Nanos until, const std::function<bool()>& stop) {
  uint64_t rounds = 0;
  for (;;) {
    const mad::Nanos now = fabric_.now();
    mad::Nanos wake = until;
    for (const Slot& s : slots_)
      if (auto d = s.r->next_deadline()) wake = std::min(wake, std::max(*d, now));
    fabric_.run_until_mail(wake);
    // Copy the slot list: a reactor may be removed from inside a callback of another.
    const std::vector<Slot> slots = slots_;
    for (const Slot& s : slots) {
      batch_.clear();
      batch_.swap(fabric_.inbox(s.ep));
      for (const mad::Packet& p : batch_) s.r->on_mad(p);
    }
    for (const Slot& s : slots) s.r->on_tick();
    ++rounds;
    if (stop && stop()) return rounds;
    if (fabric_.now() >= until) {
      // Mail that arrived exactly at `until` is served in the next call.
      return rounds;
    }
  }
}

}  // namespace sim
