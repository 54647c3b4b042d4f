#include "service/loop_timer.h"

#include <algorithm>

namespace service {

double LoopFigures::p99_ms() const {
  if (turns == 0) return 0;
  const uint64_t want = turns - turns / 100;  // turns at or below the answer
  uint64_t seen = 0;
  for (size_t i = 0; i < kBounds.size(); ++i) {
    seen += buckets[i];
    if (seen >= want) return std::min(kBounds[i], longest_ms);
  }
  return longest_ms;
}

double LoopTimer::end(const std::function<std::string()>& doing) {
  if (!in_turn_) return 0;
  in_turn_ = false;
  const double ms = std::max(
      0.0, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count() - excluded_ms_);
  ++f_.turns;
  f_.total_ms += ms;
  if (ms > f_.longest_ms || ms > kLongTurnMs) last_doing_ = doing();
  if (ms > f_.longest_ms) {
    f_.longest_ms = ms;
    f_.longest_doing = last_doing_;
  }
  const auto at = std::lower_bound(LoopFigures::kBounds.begin(), LoopFigures::kBounds.end(), ms);
  ++f_.buckets[static_cast<size_t>(at - LoopFigures::kBounds.begin())];
  if (ms > kLongTurnMs) ++f_.long_turns;
  return ms;
}

}  // namespace service
