// The one windowed sender every programming step uses: it hands planned SMPs to the
// transaction layer only as its window frees up (so 2.5 million LFT blocks never sit in a queue
// at once and other SMPs, a heartbeat's, are not stuck behind them), counts what is in flight,
// follow-ups included, and says when all of it has been answered or given up.
#pragma once

#include <cstddef>
#include <functional>

#include "mad/transactions.h"

namespace sm {

class Sender {
 public:
  explicit Sender(const mad::Transactions& tx) : tx_(tx) {}
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // Issues items 0..count-1 through `issue(i)` as the window allows; `done` runs once every
  // item and follow-up is settled. `issue` must call begin() before each SMP it submits and
  // end() in that SMP's completion (a follow-up sent from a completion: begin() there too).
  void run(size_t count, std::function<void(size_t)> issue, std::function<void()> done);
  void begin() { ++pending_; }
  void end();

  bool busy() const { return running_; }
  // Items handed out so far and planned, for progress displays.
  size_t issued() const { return next_; }
  size_t planned() const { return count_; }
  size_t in_flight() const { return pending_; }

 private:
  void pump();
  const mad::Transactions& tx_;
  std::function<void(size_t)> issue_;
  std::function<void()> done_;
  size_t count_ = 0, next_ = 0, pending_ = 0;
  bool running_ = false;
};

}  // namespace sm
