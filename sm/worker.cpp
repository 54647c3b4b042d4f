#include "sm/worker.h"

#include <thread>

#include "sm/background.h"

namespace sm {

// A job still running at the end (a hung one) is left to its detached thread: joining it
// would hang the SM's exit with it. One that borrows the owner's state ends before that state
// goes.
Worker::~Worker() {
  if (slot_ && slot_->borrows) {
    std::unique_lock lock(slot_->m);
    slot_->cv.wait(lock, [&] { return slot_->done; });
  }
  abandon();
}

void Worker::start(std::function<std::function<void()>()> job, bool borrows) {
  auto slot = std::make_shared<Slot>();
  slot->borrows = borrows;
  slot_ = slot;
  gave_up_waiting_ = false;
  // A thread per job: a sweep's job runs for milliseconds to seconds, the thread costs
  // microseconds, and an abandoned thread never stands in the next job's way.
  std::thread([slot, job = std::move(job), behind = opts_.behind]() mutable {
    if (behind) run_behind_the_loop();
    std::function<void()> r = job();
    job = nullptr;  // its captures go with the thread, not with the loop that drops the slot
    std::lock_guard lock(slot->m);
    slot->result = std::move(r);
    slot->done = true;
    slot->cv.notify_all();
  }).detach();
}

bool Worker::poll() {
  if (!slot_) return false;
  std::function<void()> then;
  {
    std::unique_lock lock(slot_->m);
    if (!slot_->done && opts_.wait && !gave_up_waiting_) {
      const auto t0 = std::chrono::steady_clock::now();
      if (!slot_->cv.wait_for(lock, opts_.wait_limit, [&] { return slot_->done; })) gave_up_waiting_ = true;
      waited_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    if (!slot_->done) return false;
    then = std::move(slot_->result);
  }
  slot_.reset();  // before `then`, which may post the next job
  then();
  return true;
}

void Worker::abandon() { slot_.reset(); }

}  // namespace sm
