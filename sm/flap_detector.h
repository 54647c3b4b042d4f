// Ports whose link keeps going up and down: `threshold` state changes within `window` make a
// port flapping, reported once until it has been quiet for a whole window.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "mad/transport.h"
#include "sm/types.h"

namespace sm {

class FlapDetector {
 public:
  FlapDetector(int threshold, mad::Nanos window) : threshold_(threshold), window_(window) {}
  void set_limits(int threshold, mad::Nanos window) {
    threshold_ = threshold;
    window_ = window;
  }
  mad::Nanos window() const { return window_; }

  struct Flap {
    Guid node;
    uint8_t port;
    size_t changes;  // within the window
  };
  // Notes that these ports changed state at `now`; returns the ones that just started flapping.
  std::vector<Flap> note(const std::vector<std::pair<Guid, uint8_t>>& changes, mad::Nanos now);
  // The ports flapping now (reported and not yet calm), with their changes within the window.
  std::vector<Flap> current() const;

 private:
  int threshold_;
  mad::Nanos window_;
  std::map<std::pair<Guid, uint8_t>, std::deque<mad::Nanos>> changes_;
  std::set<std::pair<Guid, uint8_t>> flapping_;  // reported, until they calm down
};

}  // namespace sm
