// Frees what the event loop lets go of, on a thread of its own. The last reference to a
// sweep's published subnet or SA index takes tens of milliseconds to drop at 43k nodes (a
// few million small blocks handed back to the allocator): on the loop, SMInfo polls and SA
// queries would wait for it. drop() hands the reference over; the thread releases it, and
// frees the value where that was the last one. Values given here must not need the loop's
// thread to die (no callbacks, nothing that touches the SM).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sm {

class Reaper {
 public:
  Reaper();
  ~Reaper();  // frees what is left, then ends the thread
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;

  void drop(std::shared_ptr<const void> p);
  // Waits until everything dropped so far is released (tests; the figures of a benchmark).
  void drain();

 private:
  void run();

  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<const void>> queue_;
  size_t dropped_ = 0;   // handed over
  size_t released_ = 0;  // of those, released by the thread
  bool stop_ = false;
  std::thread thread_;  // last: it starts once the rest is built
};

}  // namespace sm
