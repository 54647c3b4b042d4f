// The wall time of each turn of an event loop (a batch of MADs handed in, then the tick), for
// `fabricsm sim`: a MAD that arrives during a turn (a standby's SMInfo heartbeat, a client's
// SA query) waits for the turn to end, so the longest turns bound how late it is answered on a
// real port. The simulator's own work (receive()) is not counted.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "mad/reactor.h"

namespace cli {

struct TurnFigures {
  size_t turns = 0;
  double longest_ms = 0, p99_ms = 0, total_ms = 0;
};

class TimedReactor final : public mad::Reactor {
 public:
  explicit TimedReactor(mad::Reactor& inner) : inner_(inner) {}
  void on_mad(const mad::Packet& p) override { timed([&] { inner_.on_mad(p); }); }
  void on_tick() override {
    timed([&] { inner_.on_tick(); });
    turns_.push_back(turn_ms_);  // run_loop ticks once after each batch
    turn_ms_ = 0;
  }
  std::optional<mad::Nanos> next_deadline() const override { return inner_.next_deadline(); }

  TurnFigures figures() const {
    TurnFigures f{.turns = turns_.size()};
    if (turns_.empty()) return f;
    std::vector<double> v = turns_;
    std::sort(v.begin(), v.end());
    f.longest_ms = v.back();
    f.p99_ms = v[std::min(v.size() - 1, v.size() * 99 / 100)];
    for (double x : v) f.total_ms += x;
    return f;
  }

 private:
  template <class F>
  void timed(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    turn_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  mad::Reactor& inner_;
  double turn_ms_ = 0;
  std::vector<double> turns_;
};

}  // namespace cli
