#include "mad/transactions.h"

#include <algorithm>
#include <cmath>

#include "mad/byte_io.h"

namespace mad {

namespace {
uint32_t tid_low(const Packet& p) {
  ByteReader r(p.mad);
  return r.read_be32(12);
}
}  // namespace

Transactions::Transactions(Transport& t, TransactionConfig cfg)
    : transport_(t), cfg_(cfg), tid_high_(0x46534d00) /* "FSM\0": tells our TIDs apart */ {}

void Transactions::submit(Packet request, Completion done, std::optional<Attempts> attempts) {
  queue_.push_back(Queued{std::move(request), std::move(done), attempts});
  fill_window();
}

Nanos Transactions::timeout_for(const Pending& p) const {
  if (p.attempts) return p.attempts->timeout;
  const int attempt = p.attempt;
  double t = static_cast<double>(cfg_.timeout.count()) * std::pow(cfg_.backoff, attempt);
  return std::min(Nanos(static_cast<int64_t>(t)), std::max(cfg_.timeout, cfg_.max_timeout));
}

void Transactions::transmit(uint32_t tid, Pending& p) {
  p.deadline = transport_.clock().now() + timeout_for(p);
  timers_.insert(Timer{p.deadline, tid});
  ++stats_.sent;
  if (auto r = transport_.send(p.request); !r) ++stats_.send_errors;  // the timer retries it
}

void Transactions::fill_window() {
  while (!queue_.empty() && outstanding_.size() < static_cast<size_t>(cfg_.window)) {
    Queued q = std::move(queue_.front());
    queue_.pop_front();
    Packet& pkt = q.request;
    uint32_t tid = next_tid_++;
    if (next_tid_ == 0) next_tid_ = 1;
    ByteWriter w(pkt.mad);
    w.write_be32(8, static_cast<uint32_t>(tid_high_));
    w.write_be32(12, tid);
    auto [it, inserted] = outstanding_.emplace(tid, Pending{std::move(pkt), std::move(q.done), q.attempts});
    transmit(tid, it->second);
  }
}

bool Transactions::on_receive(const Packet& p) {
  ByteReader r(p.mad);
  if (!method::is_response(r.read_u8(3))) return false;
  auto it = outstanding_.find(tid_low(p));
  // Another class with the same TID (an SA client's RMPP ACK) is not ours.
  if (it == outstanding_.end() || it->second.request.mad[1] != p.mad[1]) {
    ++stats_.stale;
    return false;
  }
  Completion done = std::move(it->second.done);
  timers_.erase(Timer{it->second.deadline, it->first});
  outstanding_.erase(it);
  ++stats_.answered;
  fill_window();
  done(p);
  return true;
}

void Transactions::on_tick() {
  const Nanos now = transport_.clock().now();
  std::vector<Completion> failed;
  while (!timers_.empty() && timers_.begin()->deadline <= now) {
    const Timer t = *timers_.begin();
    timers_.erase(timers_.begin());
    auto it = outstanding_.find(t.tid);
    if (it == outstanding_.end()) continue;
    Pending& p = it->second;
    if (p.attempt < (p.attempts ? p.attempts->retries : cfg_.retries)) {
      ++p.attempt;
      ++stats_.retried;
      transmit(t.tid, p);
    } else {
      ++stats_.timed_out;
      failed.push_back(std::move(p.done));
      outstanding_.erase(it);
    }
  }
  fill_window();
  for (auto& done : failed) done(fail(Errc::timeout, "no response after all retries"));
}

std::optional<Nanos> Transactions::next_deadline() const {
  if (timers_.empty()) return std::nullopt;
  return timers_.begin()->deadline;
}

}  // namespace mad
