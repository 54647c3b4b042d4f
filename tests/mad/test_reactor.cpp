// run_loop: a turn hands in responses for at most its budget; requests that arrive meanwhile
// go ahead of the responses left; nothing is dropped or reordered among the responses.
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <vector>

#include "mad/reactor.h"

namespace {

using namespace std::chrono_literals;

class FakeClock final : public mad::Clock {
 public:
  mad::Nanos now() const override { return t; }
  mad::Nanos t{0};
};

// Hands out the batches it was given, one a receive() (then nothing, at once).
class BatchTransport final : public mad::Transport {
 public:
  mad::Result<void> send(const mad::Packet&) override { return {}; }
  mad::Result<void> receive(std::vector<mad::Packet>& out, mad::Nanos) override {
    if (!batches.empty()) {
      for (const mad::Packet& p : batches.front()) out.push_back(p);
      batches.pop_front();
    }
    return {};
  }
  const mad::Clock& clock() const override { return clock_; }
  std::deque<std::vector<mad::Packet>> batches;
  FakeClock clock_;
};

mad::Packet mad_of(char name, bool response) {
  mad::Packet p;
  p.mad[3] = response ? 0x81 : 0x01;  // GetResp / Get
  p.mad[4] = static_cast<uint8_t>(name);
  return p;
}

// Each response costs `cost` of the clock; records what it was handed, "|" for a tick.
class Recorder final : public mad::Reactor {
 public:
  Recorder(FakeClock& c, mad::Nanos cost) : clock_(c), cost_(cost) {}
  void on_mad(const mad::Packet& p) override {
    seen += static_cast<char>(p.mad[4]);
    if (p.mad[3] & 0x80) clock_.t += cost_;
  }
  void on_tick() override { seen += '|'; }
  std::optional<mad::Nanos> next_deadline() const override { return std::nullopt; }
  std::string seen;

 private:
  FakeClock& clock_;
  mad::Nanos cost_;
};

}  // namespace

TEST_CASE("run_loop: responses past a turn's budget wait for the next turn, requests go first") {
  BatchTransport t;
  // 8 responses of 2 ms each, then a batch with a request (an SMInfo poll) and two responses.
  std::vector<mad::Packet> first;
  for (char c : std::string("abcdefgh")) first.push_back(mad_of(c, true));
  t.batches.push_back(first);
  t.batches.push_back({mad_of('i', true), mad_of('P', false), mad_of('j', true)});
  Recorder r(t.clock_, 2ms);
  int turns = 0;
  REQUIRE(mad::run_loop(r, t, [&] { return ++turns > 6; }, 100ms, 5ms));
  // Turn 1: a, b, c (6 ms >= 5); turn 2 hands the poll in at once, then d, e, f; then g, h, i;
  // then j. Responses keep their order.
  CHECK(r.seen == "abc|Pdef|ghi|j|||");
}

TEST_CASE("run_loop: a request past the budget is handed in within the same turn") {
  BatchTransport t;
  t.batches.push_back({mad_of('a', true), mad_of('b', true), mad_of('c', true), mad_of('P', false), mad_of('d', true)});
  Recorder r(t.clock_, 3ms);
  int turns = 0;
  REQUIRE(mad::run_loop(r, t, [&] { return ++turns > 3; }, 100ms, 5ms));
  CHECK(r.seen == "abP|cd||");
}

TEST_CASE("run_loop: on a clock that stands still no budget runs out; at the end nothing is left") {
  BatchTransport t;
  t.batches.push_back({mad_of('a', true), mad_of('b', true), mad_of('P', false), mad_of('c', true)});
  Recorder still(t.clock_, 0ms);
  int turns = 0;
  REQUIRE(mad::run_loop(still, t, [&] { return ++turns > 1; }, 100ms, 5ms));
  CHECK(still.seen == "abPc|");  // one turn, in arrival order

  // Stopped with responses still deferred: they are handed in before run_loop returns.
  t.batches.push_back({mad_of('x', true), mad_of('y', true), mad_of('z', true)});
  Recorder slow(t.clock_, 10ms);
  turns = 0;
  REQUIRE(mad::run_loop(slow, t, [&] { return ++turns > 1; }, 100ms, 5ms));
  CHECK(slow.seen == "x|yz|");
}
