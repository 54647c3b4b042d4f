// A one-line progress display on a terminal (phase and percentage, redrawn at most five
// times a second); nothing at all when stderr is not a terminal. Discovery's percentage is of
// what is known so far, so it can step back as the walk finds more.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "sm/subnet_manager.h"

namespace cli {

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}

  void update(const sm::SubnetManager& m) {
    if (!enabled_ || !due()) return;
    const auto p = m.progress();
    const double pct = p.total ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 0.0;
    draw(fmt::format("{} {:3.0f}% ({} of {})", p.phase, pct, p.done, p.total));
  }
  void phase(std::string_view what) {
    if (enabled_) draw(std::string(what));
  }
  void done() {
    if (enabled_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool due() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return false;
    last_ = now;
    return true;
  }
  void draw(const std::string& s) {
    fmt::print(stderr, "\r\033[Kfabricsm: {}", s);
    std::fflush(stderr);
  }
  bool enabled_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace cli
