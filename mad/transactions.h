// The transaction layer: TIDs, a window of outstanding MADs, per-MAD timeouts and retries.
// It never blocks: the owner's event loop feeds it arrivals (on_receive) and time (on_tick)
// and asks it when it next needs to wake (next_deadline).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "mad/transport.h"

namespace mad {

struct TransactionConfig {
  int window = 256;                              // MADs in flight at once (OpenSM: 4)
  Nanos timeout = std::chrono::milliseconds(100);  // first attempt
  int retries = 3;                               // resends after the first attempt
  double backoff = 2.0;                          // each resend waits this much longer
  Nanos max_timeout = std::chrono::milliseconds(1000);
};

struct TransactionStats {
  uint64_t sent = 0;        // MADs handed to the transport, resends included
  uint64_t retried = 0;     // resends
  uint64_t timed_out = 0;   // requests given up after all retries
  uint64_t answered = 0;    // requests that got a response
  uint64_t stale = 0;       // responses that matched nothing outstanding (late, duplicate)
  uint64_t send_errors = 0;
};

// Called exactly once per submitted request: with the response, or with Errc::timeout / io.
using Completion = std::function<void(Result<Packet>)>;

// A request's own timing, instead of the configured one: an SM's heartbeat poll must be
// declared lost within its poll interval, whatever the sweep's SMPs are allowed.
struct Attempts {
  Nanos timeout;    // every attempt
  int retries = 0;  // resends after the first attempt
};

class Transactions {
 public:
  Transactions(Transport& t, TransactionConfig cfg);

  // Queues a request. The TID is assigned here (bytes 8-15 of the MAD are overwritten).
  void submit(Packet request, Completion done, std::optional<Attempts> attempts = std::nullopt);
  // Offers an arrived MAD. Returns true when it was a response to a request of ours
  // (matched on the low 32 bits of the TID: ibsim rewrites the high half).
  bool on_receive(const Packet& p);
  // Resends or fails requests whose time is up, and fills the window from the queue.
  void on_tick();
  // When on_tick next has something to do; nullopt when nothing is outstanding.
  std::optional<Nanos> next_deadline() const;

  bool idle() const { return outstanding_.empty() && queue_.empty(); }
  size_t outstanding() const { return outstanding_.size(); }
  size_t queued() const { return queue_.size(); }
  const TransactionStats& stats() const { return stats_; }
  const TransactionConfig& config() const { return cfg_; }

 private:
  struct Pending {
    Packet request;
    Completion done;
    std::optional<Attempts> attempts;
    int attempt = 0;
    Nanos deadline{};
  };
  struct Queued {
    Packet request;
    Completion done;
    std::optional<Attempts> attempts;
  };
  struct Timer {
    Nanos deadline;
    uint32_t tid;
    bool operator<(const Timer& o) const { return deadline != o.deadline ? deadline < o.deadline : tid < o.tid; }
  };

  void fill_window();
  void transmit(uint32_t tid, Pending& p);
  Nanos timeout_for(const Pending& p) const;

  Transport& transport_;
  TransactionConfig cfg_;
  uint32_t next_tid_ = 1;
  uint64_t tid_high_;
  std::deque<Queued> queue_;
  std::unordered_map<uint32_t, Pending> outstanding_;
  // One per outstanding request, taken out when it is answered: as a heap that kept answered
  // ones until their time, it held millions at 43k nodes, and one growth of it held the loop
  // 25 ms.
  std::set<Timer> timers_;
  TransactionStats stats_;
};

}  // namespace mad
