// The SM's worker (sm/worker.h) and the loop timer (service/loop_timer.h): results come back
// on the loop only, wait mode blocks (and says how long), a hung job is abandoned and never
// delivered, a wait has a limit, the end waits for a job that borrows; turns are bucketed with what they did, waits left out. The
// reaper (sm/reaper.h) frees what the loop lets go of on its own thread.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <atomic>
#include <future>
#include <thread>

#include "service/loop_timer.h"
#include "sm/reaper.h"
#include "sm/worker.h"

using namespace std::chrono_literals;

TEST_CASE("worker: the result runs on the loop's poll, not on the job's thread") {
  sm::Worker w(sm::Worker::Options{});
  const auto loop = std::this_thread::get_id();
  std::thread::id ran_on, done_on;
  int got = 0;
  w.post<int>([&] { ran_on = std::this_thread::get_id(); return 42; },
              [&](int v) { got = v; done_on = std::this_thread::get_id(); });
  CHECK(w.busy());
  CHECK_FALSE(w.waits());
  for (int i = 0; i < 2000 && !w.poll(); ++i) std::this_thread::sleep_for(1ms);
  CHECK(got == 42);
  CHECK(ran_on != loop);
  CHECK(done_on == loop);
  CHECK_FALSE(w.busy());
  CHECK_FALSE(w.poll());  // nothing more to deliver
}

TEST_CASE("worker: wait mode blocks in poll and reports the wait; a continuation may post again") {
  sm::Worker w(sm::Worker::Options{.wait = true});
  std::vector<int> order;
  w.post<int>([] { std::this_thread::sleep_for(30ms); return 1; }, [&](int v) {
    order.push_back(v);
    w.post<int>([] { return 2; }, [&](int x) { order.push_back(x); });
  });
  CHECK(w.waits());
  CHECK(w.poll());  // waited for the first; the second is posted
  CHECK(w.busy());
  CHECK(w.poll());
  CHECK(order == std::vector<int>{1, 2});
  CHECK(w.take_waited_ms() >= 25.0);
  CHECK(w.take_waited_ms() == 0.0);
}

TEST_CASE("worker: a hung job is abandoned; its result never runs, the next job gets its own thread") {
  sm::Worker w(sm::Worker::Options{.wait = true, .wait_limit = 20ms});
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  bool delivered = false;
  w.post<int>([gate] { gate.wait(); return 0; }, [&](int) { delivered = true; });
  CHECK_FALSE(w.poll());  // waited its limit, then gave up waiting
  CHECK_FALSE(w.waits());
  CHECK(w.busy());
  w.abandon();
  CHECK_FALSE(w.busy());
  int next = 0;
  w.post<int>([] { return 7; }, [&](int v) { next = v; });
  CHECK(w.poll());
  CHECK(next == 7);
  release.set_value();  // the abandoned thread ends; its result is dropped
  std::this_thread::sleep_for(20ms);
  CHECK_FALSE(w.poll());
  CHECK_FALSE(delivered);
}

TEST_CASE("worker: its end waits for a job that borrows, not for one over snapshots") {
  std::atomic<bool> read_all{false};
  {
    sm::Worker w(sm::Worker::Options{});
    w.post<int>([&read_all] { std::this_thread::sleep_for(50ms); read_all = true; return 0; }, [](int) {}, true);
  }  // the owner's state (here read_all) would go now: the job has ended first
  CHECK(read_all);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  const auto t0 = std::chrono::steady_clock::now();
  {
    sm::Worker w(sm::Worker::Options{});
    w.post<int>([gate] { gate.wait(); return 0; }, [](int) {});  // a hung engine's
  }
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);  // left to its thread
  release.set_value();
}

TEST_CASE("loop timer: turns bucketed, the longest says what it did, waits left out") {
  service::LoopTimer t;
  CHECK(t.end([] { return std::string("nothing"); }) == 0.0);  // no turn begun
  for (int i = 0; i < 99; ++i) {
    t.begin();
    t.end([] { return std::string("idle"); });
  }
  t.begin();
  std::this_thread::sleep_for(60ms);
  const double ms = t.end([] { return std::string("sweep 3 routing"); });
  CHECK(ms >= 55);
  const service::LoopFigures& f = t.figures();
  CHECK(f.turns == 100);
  CHECK(f.long_turns == 1);
  CHECK(f.longest_ms == doctest::Approx(ms));
  CHECK(f.longest_doing == "sweep 3 routing");
  CHECK(t.last_doing() == "sweep 3 routing");
  uint64_t n = 0;
  for (uint64_t b : f.buckets) n += b;
  CHECK(n == 100);
  CHECK(f.p99_ms() <= 1.0);  // 99 of the 100 turns were short
  // A turn that spent its time waiting (virtual time standing still) counts only the rest.
  t.begin();
  std::this_thread::sleep_for(30ms);
  t.exclude(30);
  CHECK(t.end([] { return std::string("w"); }) < 5);
}

TEST_CASE("loop timer: a long turn says whether it worked or waited (CPU, page faults, blocking)") {
  service::LoopTimer t;
  t.begin();
  std::this_thread::sleep_for(60ms);  // off the CPU
  t.end([] { return std::string("slept"); });
  CHECK(t.last_cost().cpu_ms < 30);
  CHECK(t.last_cost().waited >= 1);
  t.begin();
  constexpr size_t kPages = 1024;  // fresh pages, each touched once: a fault each
  void* area = mmap(nullptr, kPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(area != MAP_FAILED);
  madvise(area, kPages * 4096, MADV_NOHUGEPAGE);
  for (size_t i = 0; i < kPages; ++i) static_cast<volatile char*>(area)[i * 4096] = 1;
  const auto until = std::chrono::steady_clock::now() + 80ms;
  for (volatile uint64_t spin = 0; std::chrono::steady_clock::now() < until;) spin = spin + 1;
  t.end([] { return std::string("worked"); });
  munmap(area, kPages * 4096);
  CHECK(t.last_cost().cpu_ms > 20);  // most of 80 ms, unless the machine was very busy
  CHECK(t.last_cost().page_faults >= kPages);
  CHECK(t.figures().longest_doing == "worked");  // the longest keeps its cost
  CHECK(t.figures().longest_cost.cpu_ms == doctest::Approx(t.last_cost().cpu_ms));
}

namespace {
struct Freed {  // says on which thread it was destroyed
  explicit Freed(std::thread::id* o) : on(o) {}
  Freed(const Freed&) = delete;
  std::thread::id* on;
  ~Freed() { *on = std::this_thread::get_id(); }
};
}  // namespace

TEST_CASE("reaper: the last reference is released on its thread, not the caller's") {
  std::thread::id freed_on;
  {
    sm::Reaper r;
    r.drop(std::make_shared<const Freed>(&freed_on));
    r.drain();
    CHECK(freed_on != std::thread::id());
    CHECK(freed_on != std::this_thread::get_id());
    // A value someone else still holds is only let go of: it lives on, and dies with its holder.
    std::thread::id kept_on;
    auto kept = std::make_shared<const Freed>(&kept_on);
    r.drop(kept);
    r.drain();
    CHECK(kept_on == std::thread::id());
    kept.reset();
    CHECK(kept_on == std::this_thread::get_id());
    r.drop(nullptr);  // nothing to do
    r.drain();
  }
  // What is still queued when the reaper ends is freed before its destructor returns.
  std::thread::id late_on;
  {
    sm::Reaper r;
    for (int i = 0; i < 100; ++i) r.drop(std::make_shared<const int>(i));
    r.drop(std::make_shared<const Freed>(&late_on));
  }
  CHECK(late_on != std::thread::id());
  CHECK(late_on != std::this_thread::get_id());
}
