// The wall time of each turn of the service's event loop: the MADs of one batch handed in, then
// the tick. A MAD that arrives during a turn (a standby's SMInfo poll, a host's SA query) waits
// for the turn to end, so the longest turn bounds how late the SM answers. `fabricsm run`
// reports the figures on /metrics, in `status` and `status --json`, and logs a turn over
// kLongTurn with what it was doing and what it cost (on CPU, page faults, preemptions: whether
// the SM worked that long or the machine kept it off its core); `fabricsm sim --steady` prints
// them.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace service {

// What one long turn cost the loop's thread (getrusage RUSAGE_THREAD): from the last reading
// before it, at most LoopTimer::kUsageEvery before its start (a reading every turn, a syscall, cost the
// simulator 10% of its bring-up), to its end.
struct TurnCost {
  double cpu_ms = 0;            // user + system
  uint64_t page_faults = 0;     // minor and major
  uint64_t preempted = 0;       // involuntary context switches: runnable, but off its core
  uint64_t waited = 0;          // voluntary ones: blocked (a lock, a page from disk)
};

struct LoopFigures {
  // Upper bounds of the histogram's buckets, in milliseconds (Prometheus' `le`); the last
  // bucket counts the rest.
  static constexpr std::array<double, 15> kBounds = {0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
  uint64_t turns = 0;
  double total_ms = 0;
  double longest_ms = 0;
  std::string longest_doing;  // what the longest turn was doing
  TurnCost longest_cost;      // and what it cost
  std::array<uint64_t, kBounds.size() + 1> buckets{};  // not cumulative
  uint64_t long_turns = 0;  // over kLongTurn
  // The turn below which 99% of them ended (a bucket's bound; the longest in the last one).
  double p99_ms() const;
};

class LoopTimer {
 public:
  static constexpr double kLongTurnMs = 50;
  static constexpr std::chrono::milliseconds kUsageEvery{5};

  // A turn begins at its first MAD or at the tick, whichever comes first; true when this call
  // began it.
  bool begin() {
    if (in_turn_) return false;
    in_turn_ = true;
    start_ = std::chrono::steady_clock::now();
    excluded_ms_ = 0;
    if (start_ - usage_at_ >= kUsageEvery) {
      usage_ = thread_usage();
      usage_at_ = start_;
    }
    return true;
  }
  // Time inside the turn that was no work of the loop (the simulator's wait for a worker,
  // during which virtual time stands still), not counted.
  void exclude(double ms) { excluded_ms_ += ms; }
  // Ends the turn; its length, or 0 when none had begun. `doing` is asked only for a turn that
  // is the longest so far or over kLongTurnMs.
  double end(const std::function<std::string()>& doing);
  // What `doing` said of the last turn it was asked about, and that turn's cost.
  const std::string& last_doing() const { return last_doing_; }
  const TurnCost& last_cost() const { return last_cost_; }
  const LoopFigures& figures() const { return f_; }
  void reset() { f_ = {}; }

 private:
  bool in_turn_ = false;
  std::chrono::steady_clock::time_point start_{};
  double excluded_ms_ = 0;
  TurnCost usage_;  // the thread's totals at usage_at_
  std::chrono::steady_clock::time_point usage_at_{};
  std::string last_doing_;
  TurnCost last_cost_;
  LoopFigures f_;

  // The calling thread's totals so far (a syscall, about half a microsecond).
  static TurnCost thread_usage();
};

}  // namespace service
