// The time a sweep and its current phase have taken, on the wall clock (what it cost) and on
// the transport's clock (virtual in the simulator).
#pragma once

#include <chrono>

#include "mad/transport.h"
#include "sm/sweep_report.h"

namespace sm {

class SweepClock {
 public:
  explicit SweepClock(const mad::Clock& fabric) : fabric_(fabric) {}
  void start_sweep() { sweep_ = phase_ = now(); }
  void start_phase() { phase_ = now(); }
  PhaseTime sweep() const { return since(sweep_); }
  PhaseTime phase() const { return since(phase_); }

 private:
  struct Stamp {
    std::chrono::steady_clock::time_point wall;
    mad::Nanos fabric;
  };
  Stamp now() const { return {std::chrono::steady_clock::now(), fabric_.now()}; }
  PhaseTime since(const Stamp& s) const {
    const Stamp n = now();
    return PhaseTime{std::chrono::duration<double, std::milli>(n.wall - s.wall).count(),
                     std::chrono::duration<double, std::milli>(n.fabric - s.fabric).count()};
  }
  const mad::Clock& fabric_;
  Stamp sweep_{}, phase_{};
};

}  // namespace sm
