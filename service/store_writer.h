// The store's writer: what the service writes (a sweep's commit, a counter sweep's, buffered
// events) runs on a thread of its own, so the SM's loop goes on answering heartbeats and SA
// queries while SQLite writes (a sweep of the 43,011-node fabric commits in about a second).
// Jobs run in the order they were posted, each returning what the loop then does with its
// result (log it, count it): deliver() runs those on the owner's thread. Inline (no thread),
// each job and its result run at once: the simulator's tests read the store right after.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "sm/store/store.h"

namespace service {

// What the service notes between its store's jobs (logging must not write to disk): the next
// job hands it to the store, whose commit or flush writes it.
struct StoreNotes {
  std::vector<sm::store::Event> events;
  std::vector<sm::store::PeerRecord> peers;
  std::vector<sm::store::SaObject> objects;
  bool empty() const { return events.empty() && peers.empty() && objects.empty(); }
  void into(sm::store::Store& s) &&;
};

class StoreWriter {
 public:
  using Done = std::function<void()>;  // on the owner's thread
  using Job = std::function<Done(sm::store::Store&)>;

  StoreWriter(std::unique_ptr<sm::store::Store> store, bool threaded);
  ~StoreWriter();  // what was posted still runs (its results are dropped)
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  void post(Job job);
  // Runs the results of the jobs that ended, on this (the owner's) thread; how many.
  size_t deliver();
  // Waits until every job posted has run (not their results: deliver()).
  void drain();
  // Runs `f` on the store on this thread once every job posted has run (reads at a takeover).
  template <class F>
  auto now(F&& f) {
    std::unique_lock lk(mu_);
    idle_.wait(lk, [&] { return queue_.empty() && !busy_; });
    return f(*store_);
  }
  // Jobs posted and not yet ended.
  size_t backlog() const;
  bool threaded() const { return thread_.joinable(); }

 private:
  void run();

  std::unique_ptr<sm::store::Store> store_;
  mutable std::mutex mu_;
  std::condition_variable work_, idle_;
  std::deque<Job> queue_;  // guarded by mu_
  std::deque<Done> done_;  // guarded by mu_
  bool busy_ = false;      // guarded by mu_: a job is running
  bool stop_ = false;      // guarded by mu_
  std::thread thread_;
};

}  // namespace service
