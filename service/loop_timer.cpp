#include "service/loop_timer.h"

#include <sys/resource.h>

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

TurnCost LoopTimer::thread_usage() {
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return {};
  const auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
  return {ms(u.ru_utime) + ms(u.ru_stime), static_cast<uint64_t>(u.ru_minflt + u.ru_majflt),
          static_cast<uint64_t>(u.ru_nivcsw), static_cast<uint64_t>(u.ru_nvcsw)};
}

double LoopTimer::end(const std::function<std::string()>& doing) {
  if (!in_turn_) return 0;
  in_turn_ = false;
  const double ms = std::max(
      0.0, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count() - excluded_ms_);
  ++f_.turns;
  f_.total_ms += ms;
  if (ms > f_.longest_ms || ms > kLongTurnMs) {
    last_doing_ = doing();
    const TurnCost now = thread_usage();
    last_cost_ = {now.cpu_ms - usage_.cpu_ms, now.page_faults - usage_.page_faults, now.preempted - usage_.preempted,
                  now.waited - usage_.waited};
  }
  if (ms > f_.longest_ms) {
    f_.longest_ms = ms;
    f_.longest_doing = last_doing_;
    f_.longest_cost = last_cost_;
  }
  const auto at = std::lower_bound(LoopFigures::kBounds.begin(), LoopFigures::kBounds.end(), ms);
  ++f_.buckets[static_cast<size_t>(at - LoopFigures::kBounds.begin())];
  if (ms > kLongTurnMs) ++f_.long_turns;
  return ms;
}

}  // namespace service
