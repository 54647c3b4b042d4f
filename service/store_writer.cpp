#include "service/store_writer.h"

#include <pthread.h>
#include <signal.h>

#include "sm/background.h"

namespace service {

void StoreNotes::into(sm::store::Store& s) && {
  for (sm::store::Event& e : events) s.add_event(std::move(e));
  for (const sm::store::PeerRecord& p : peers) s.note_peer(p);
  for (sm::store::SaObject& o : objects) s.note_sa_object(std::move(o));
}

StoreWriter::StoreWriter(std::unique_ptr<sm::store::Store> store, bool threaded) : store_(std::move(store)) {
  if (!threaded) return;
  // The writer takes no signals: SIGINT/SIGTERM/SIGHUP go to the SM's thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

StoreWriter::~StoreWriter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void StoreWriter::post(Job job) {
  if (!thread_.joinable()) {
    if (Done d = job(*store_)) d();
    return;
  }
  {
    std::lock_guard lk(mu_);
    queue_.push_back(std::move(job));
  }
  work_.notify_one();
}

void StoreWriter::run() {
  sm::run_behind_the_loop();  // the SM's loop (heartbeats, SA answers, the PerfMgr's MADs) first
  std::unique_lock lk(mu_);
  for (;;) {
    work_.wait(lk, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left to write
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lk.unlock();
    Done d = job(*store_);
    job = nullptr;  // what it captured (a subnet, a snapshot) goes now, not with the next job
    lk.lock();
    busy_ = false;
    if (d) done_.push_back(std::move(d));
    if (queue_.empty()) idle_.notify_all();
  }
}

size_t StoreWriter::deliver() {
  std::deque<Done> ready;
  {
    std::lock_guard lk(mu_);
    ready.swap(done_);
  }
  for (Done& d : ready) d();
  return ready.size();
}

void StoreWriter::drain() {
  std::unique_lock lk(mu_);
  idle_.wait(lk, [&] { return queue_.empty() && !busy_; });
}

size_t StoreWriter::backlog() const {
  std::lock_guard lk(mu_);
  return queue_.size() + (busy_ ? 1 : 0);
}

}  // namespace service
