// A small deterministic parallel loop for the engines. Items are handed out in chunks by an
// atomic counter, so which thread runs an item depends on timing; callers keep results
// independent of that by letting item i write only state that belongs to i (its own LFT row,
// its own matrix row, its own slot of a per-item vector) and by using per-worker scratch only
// as scratch.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace routing {

inline unsigned effective_threads(unsigned requested) {
  if (requested != 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

// How many workers parallel_for(n, threads, ...) uses: size per-worker scratch with it.
inline unsigned worker_count(size_t n, unsigned threads) {
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min<size_t>(effective_threads(threads), n)));
}

// Calls fn(i, worker) for every i in [0, n), `chunk` items at a time; worker is in
// [0, worker_count(n, threads)) and names the calling thread's scratch.
template <class Fn>
void parallel_for(size_t n, unsigned threads, Fn&& fn, size_t chunk = 16) {
  const unsigned workers = worker_count(n, threads);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i, 0u);
    return;
  }
  std::atomic<size_t> next{0};
  auto run = [&](unsigned w) {
    for (;;) {
      const size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= n) return;
      const size_t end = std::min(n, begin + chunk);
      for (size_t i = begin; i < end; ++i) fn(i, w);
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(workers - 1);
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(run, w);
  run(0);
}

}  // namespace routing
