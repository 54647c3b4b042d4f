// Virtual time and a deterministic event queue: events run in (time, insertion order).
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

#include "mad/transport.h"

namespace sim {

class VirtualClock final : public mad::Clock {
 public:
  mad::Nanos now() const override { return t_; }
  bool is_virtual() const override { return true; }
  void advance_to(mad::Nanos t) {
    if (t > t_) t_ = t;
  }

 private:
  mad::Nanos t_{0};
};

template <class Payload>
class EventQueue {
 public:
  void push(mad::Nanos at, Payload p) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      slots_[slot] = std::move(p);
    } else {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(std::move(p));
    }
    heap_.push(Key{at, seq_++, slot});
  }
  bool empty() const { return heap_.empty(); }
  std::optional<mad::Nanos> next_time() const {
    if (heap_.empty()) return std::nullopt;
    return heap_.top().at;
  }
  // Removes the earliest event; returns its time and moves its payload into `out`.
  mad::Nanos pop(Payload& out) {
    Key k = heap_.top();
    heap_.pop();
    out = std::move(slots_[k.slot]);
    free_.push_back(k.slot);
    return k.at;
  }
  size_t size() const { return heap_.size(); }

 private:
  struct Key {
    mad::Nanos at;
    uint64_t seq;
    uint32_t slot;
    bool operator>(const Key& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::priority_queue<Key, std::vector<Key>, std::greater<>> heap_;
  std::vector<Payload> slots_;
  std::vector<uint32_t> free_;
  uint64_t seq_ = 0;
};

}  // namespace sim
