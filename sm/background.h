// Threads that work for the event loop and that nobody waits on (the reapers, the SA's
// indexer, the store's writer) run behind it: where CPUs are short (2 cores: the loop, a
// routing job and these), the loop's turns (heartbeats, SA answers, traps) go first. The SM's
// worker stays at the loop's priority: a sweep waits for it.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

namespace sm {

inline constexpr int kBackgroundNice = 10;

// For the calling thread; not being allowed to is no reason to stop.
inline void run_behind_the_loop() { (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kBackgroundNice); }

}  // namespace sm
