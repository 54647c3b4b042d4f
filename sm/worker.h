// One job at a time off the SM's event loop: what grows with the fabric (routing) runs here,
// while the loop goes on answering SMInfo polls, SA queries and traps. The job's result comes
// back to the loop: the continuation runs inside poll(), which the SM calls on every tick, so
// the SM's state is only ever touched by the loop's thread.
//
// The job gets only values (shared pointers to immutable snapshots, copies); it never sees the
// SM. A job that does not end (a hung engine) can be abandoned: its thread is left to itself,
// its result never delivered, and the next job gets a thread of its own.
//
// On virtual time (the simulator) the loop must not run ahead while the job computes, or the
// fabric's simulated seconds would depend on the CPU: there poll() waits for the job (and says
// how long, so that a loop timer leaves the wait out), up to `wait_limit` per job, after which
// the job is treated as on a real clock (time moves on without it: a hung-engine drill).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "mad/transport.h"

namespace sm {

class Worker {
 public:
  struct Options {
    bool wait = false;  // poll() waits for the job (virtual time)
    std::chrono::milliseconds wait_limit{std::chrono::seconds(600)};
    bool behind = false;  // jobs nobody waits on: behind the loop (sm/background.h)
  };
  explicit Worker(Options o) : opts_(o) {}
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs `work` on a thread of its own and, at the first poll() after it ended, `then` with
  // its result on the loop. One job at a time: post() while busy() is a bug.
  // A job that `borrows` reads the loop's own state by reference (the fabric model, the
  // memories): the Worker's end waits for it (such jobs are short reads), where a job over
  // snapshots alone (routing, which may hang) is left to its thread.
  template <class T>
  void post(std::function<T()> work, std::function<void(T)> then, bool borrows = false) {
    start([work = std::move(work), then = std::move(then)]() mutable -> std::function<void()> {
      return [then = std::move(then), r = work()]() mutable { then(std::move(r)); };
    }, borrows);
  }
  // A job was posted and its continuation has not run (nor was it abandoned).
  bool busy() const { return slot_ != nullptr; }
  // The next poll() waits for the job (wait mode, within its limit).
  bool waits() const { return slot_ && opts_.wait && !gave_up_waiting_; }
  // When the loop should next poll(): none while idle; at once where poll() waits for the job;
  // else every kPoll (a umad port cannot be woken by another thread).
  static constexpr mad::Nanos kPoll = std::chrono::milliseconds(2);
  std::optional<mad::Nanos> next_poll(mad::Nanos now) const {
    if (!busy()) return std::nullopt;
    return waits() ? now : now + kPoll;
  }
  // Loop side: delivers a job that ended (waiting for it first in wait mode). True when a
  // continuation ran.
  bool poll();
  // Forgets the job in progress: its thread runs on detached, its result is dropped.
  void abandon();
  // Loop side: the time poll() spent waiting since the last call (wait mode).
  double take_waited_ms() { return std::exchange(waited_ms_, 0.0); }

 private:
  // What the job's thread and the loop share; the thread holds it too, so an abandoned job
  // writes only into memory it keeps alive.
  struct Slot {
    std::mutex m;
    std::condition_variable cv;
    std::function<void()> result;  // set when the job ended
    bool done = false;
    bool borrows = false;
  };
  void start(std::function<std::function<void()>()> job, bool borrows);

  Options opts_;
  std::shared_ptr<Slot> slot_;
  bool gave_up_waiting_ = false;
  double waited_ms_ = 0;
};

}  // namespace sm
