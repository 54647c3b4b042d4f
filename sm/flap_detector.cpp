#include "sm/flap_detector.h"

namespace sm {

std::vector<FlapDetector::Flap> FlapDetector::note(const std::vector<std::pair<Guid, uint8_t>>& changes,
                                                   mad::Nanos now) {
  std::vector<Flap> out;
  auto trim = [&](std::deque<mad::Nanos>& times) {
    while (!times.empty() && times.front() < now - window_) times.pop_front();
  };
  for (const auto& key : changes) {
    auto& times = changes_[key];
    times.push_back(now);
    trim(times);
    if (static_cast<int>(times.size()) >= threshold_ && flapping_.insert(key).second)
      out.push_back(Flap{key.first, key.second, times.size()});
  }
  // Ports that calmed down may be reported again later.
  for (auto it = flapping_.begin(); it != flapping_.end();) {
    auto& times = changes_[*it];
    trim(times);
    if (times.empty()) {
      changes_.erase(*it);
      it = flapping_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::vector<FlapDetector::Flap> FlapDetector::current() const {
  std::vector<Flap> out;
  for (const auto& key : flapping_)
    if (auto it = changes_.find(key); it != changes_.end()) out.push_back(Flap{key.first, key.second, it->second.size()});
  return out;
}

}  // namespace sm
