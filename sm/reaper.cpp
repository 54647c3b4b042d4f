#include "sm/reaper.h"

#include "sm/background.h"

#include <utility>

namespace sm {

Reaper::Reaper() : thread_([this] { run(); }) {}

Reaper::~Reaper() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Reaper::drop(std::shared_ptr<const void> p) {
  if (!p) return;
  {
    std::lock_guard lock(m_);
    queue_.push_back(std::move(p));
    ++dropped_;
  }
  cv_.notify_all();
}

void Reaper::drain() {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return released_ == dropped_; });
}

void Reaper::run() {
  run_behind_the_loop();
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_, and nothing left
    std::vector<std::shared_ptr<const void>> batch = std::exchange(queue_, {});
    const size_t n = batch.size();
    lock.unlock();
    batch.clear();  // the frees, with the lock free for the loop's next drop()
    lock.lock();
    released_ += n;
    cv_.notify_all();
  }
}

}  // namespace sm
