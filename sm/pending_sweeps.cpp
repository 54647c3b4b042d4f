#include "sm/pending_sweeps.h"

namespace sm {

void PendingSweeps::want_heavy(std::string why) {
  heavy_ = true;
  heavy_why_ = std::move(why);
}

void PendingSweeps::mark_dirty(Guid sw, std::string why, mad::Nanos now) {
  if (dirty_.empty()) dirty_why_ = std::move(why);
  dirty_.insert(sw);
  if (!react_at_) react_at_ = now + t_.coalesce;
}

void PendingSweeps::swept(bool failed, mad::Nanos now) {
  if (failed) retry_at_ = now + t_.retry;
  if (next_light_ <= now && t_.light_interval.count() > 0) next_light_ = now + t_.light_interval;
}

void PendingSweeps::retry(const std::vector<Guid>& nodes, mad::Nanos now) {
  if (dirty_.empty()) dirty_why_ = "retry of what did not answer or take its Set";
  dirty_.insert(nodes.begin(), nodes.end());
  const mad::Nanos at = now + t_.retry;
  if (!react_at_ || *react_at_ > at) react_at_ = at;
}

void PendingSweeps::clear() {
  heavy_ = false;
  dirty_.clear();
  react_at_.reset();
  retry_at_.reset();
}

void PendingSweeps::heavy_started() {
  heavy_ = false;
  dirty_.clear();  // a full walk covers them
  react_at_.reset();
  retry_at_.reset();
}

PendingSweeps::Next PendingSweeps::take_dirty() {
  Next n{Next::Kind::incremental, std::exchange(dirty_why_, {}), {dirty_.begin(), dirty_.end()}};
  dirty_.clear();
  react_at_.reset();
  retry_at_.reset();
  return n;
}

PendingSweeps::Next PendingSweeps::after_sweep(mad::Nanos now) {
  if (heavy_) return Next{Next::Kind::heavy, heavy_why_, {}};
  if (dirty_due(now)) return take_dirty();
  return {};
}

PendingSweeps::Next PendingSweeps::on_tick(mad::Nanos now, bool master, bool up) {
  if (retry_at_ && now >= *retry_at_) return Next{Next::Kind::heavy, "retry after a failed sweep", {}};
  if (!master) return {};
  if (dirty_due(now)) return take_dirty();
  if (up && t_.light_interval.count() > 0 && now >= next_light_) return Next{Next::Kind::light, {}, {}};
  return {};
}

std::optional<mad::Nanos> PendingSweeps::next_deadline(bool master, bool up) const {
  std::optional<mad::Nanos> d = retry_at_;
  auto consider = [&](std::optional<mad::Nanos> t) {
    if (t && (!d || *t < *d)) d = t;
  };
  if (master && !dirty_.empty()) consider(react_at_);
  if (master && up && t_.light_interval.count() > 0) consider(next_light_);
  return d;
}

}  // namespace sm
