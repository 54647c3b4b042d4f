// What the SM has been asked to sweep and when: a heavy sweep wanted (and why), the switches a
// trap or a light sweep said changed (one reaction for all of them after a short coalescing
// window), a retry after a sweep that failed, and the next light sweep. The SM asks it what to
// run when a sweep ends and on every tick.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mad/transport.h"
#include "sm/types.h"

namespace sm {

class PendingSweeps {
 public:
  struct Timing {
    mad::Nanos coalesce;        // traps within this window: one reaction
    mad::Nanos retry;           // after a sweep that did not bring everything up
    mad::Nanos light_interval;  // 0: no light sweeps
  };
  explicit PendingSweeps(Timing t) : t_(t) {}
  void set_timing(Timing t) { t_ = t; }

  void want_heavy(std::string why);
  bool heavy_wanted() const { return heavy_; }
  void drop_heavy() { heavy_ = false; }
  // A heavy sweep starts: it covers every switch asked for, and any retry.
  void heavy_started();
  // A switch to re-read in the next reaction; the first one's reason names the reaction.
  void mark_dirty(Guid sw, std::string why, mad::Nanos now);
  // A sweep ended (failed: try again after the retry interval).
  void swept(bool failed, mad::Nanos now);
  // A sweep failed in part: re-read just these nodes after the retry interval (an incremental
  // sweep), unless a heavy sweep is wanted meanwhile.
  void retry(const std::vector<Guid>& nodes, mad::Nanos now);
  void light_done(mad::Nanos now) { next_light_ = now + t_.light_interval; }
  // Not master any more: nothing is pending.
  void clear();

  struct Next {
    enum class Kind { none, heavy, incremental, light };
    Kind kind = Kind::none;
    std::string why;
    std::vector<Guid> switches;  // incremental: the switches to re-read
  };
  // When a sweep ends (or one is asked for while idle): a heavy sweep wanted, else a reaction due.
  Next after_sweep(mad::Nanos now);
  // On a tick with nothing running: a retry due, else (master only) a reaction due, else a light
  // sweep due (only once the subnet is up).
  Next on_tick(mad::Nanos now, bool master, bool up);
  std::optional<mad::Nanos> next_deadline(bool master, bool up) const;

 private:
  Next take_dirty();
  bool dirty_due(mad::Nanos now) const { return !dirty_.empty() && react_at_ && *react_at_ <= now; }
  Timing t_;
  bool heavy_ = false;
  std::string heavy_why_;
  std::set<Guid> dirty_;
  std::string dirty_why_;
  std::optional<mad::Nanos> react_at_, retry_at_;
  mad::Nanos next_light_{0};
};

}  // namespace sm
