#include <doctest/doctest.h>

#include <deque>

#include "mad/byte_io.h"
#include "mad/transactions.h"

using namespace mad;
using namespace std::chrono_literals;

namespace {

class ManualClock final : public Clock {
 public:
  Nanos now() const override { return t; }
  Nanos t{0};
};

// Records what is sent; the test decides what comes back.
class FakeTransport final : public Transport {
 public:
  Result<void> send(const Packet& p) override {
    sent.push_back(p);
    return {};
  }
  Result<void> receive(std::vector<Packet>&, Nanos) override { return {}; }
  const Clock& clock() const override { return clk; }

  Packet response_to(size_t i) const {
    Packet r = sent[i];
    r.mad[3] = static_cast<uint8_t>(r.mad[3] | method::response_bit);
    return r;
  }
  ManualClock clk;
  std::vector<Packet> sent;
};

Packet request() {
  Packet p;
  p.mad = encode_smp(make_dr_smp(method::get, attr::node_info, 0, DrPath()));
  return p;
}

}  // namespace

TEST_CASE("window bounds what is in flight; responses complete and refill") {
  FakeTransport t;
  Transactions tx(t, TransactionConfig{.window = 2});
  int done = 0;
  for (int i = 0; i < 5; ++i) tx.submit(request(), [&](Result<Packet> r) { done += r ? 1 : 100; });
  CHECK(t.sent.size() == 2);
  CHECK(tx.outstanding() == 2);
  CHECK(tx.queued() == 3);
  CHECK(tx.on_receive(t.response_to(0)));
  CHECK(done == 1);
  CHECK(t.sent.size() == 3);
  CHECK_FALSE(tx.on_receive(t.response_to(0)));  // a duplicate is stale
  CHECK(tx.stats().stale == 1);
  for (size_t i = 1; i < 5; ++i) CHECK(tx.on_receive(t.response_to(i)));
  CHECK(done == 5);
  CHECK(tx.idle());
  // TIDs are distinct in their low 32 bits.
  ByteReader a(t.sent[0].mad), b(t.sent[1].mad);
  CHECK(a.read_be32(12) != b.read_be32(12));
}

TEST_CASE("responses match on the low 32 bits of the TID only") {
  FakeTransport t;
  Transactions tx(t, {});
  bool ok = false;
  tx.submit(request(), [&](Result<Packet> r) { ok = r.has_value(); });
  Packet resp = t.response_to(0);
  ByteWriter(resp.mad).write_be32(8, 0xFFFF0000);  // as ibsim does to the high half
  CHECK(tx.on_receive(resp));
  CHECK(ok);
}

TEST_CASE("requests are resent with backoff, then fail with a timeout") {
  FakeTransport t;
  Transactions tx(t, TransactionConfig{.window = 4, .timeout = 10ms, .retries = 2, .backoff = 2.0});
  std::optional<Errc> err;
  tx.submit(request(), [&](Result<Packet> r) { err = r ? std::nullopt : std::optional(r.error().code); });
  CHECK(tx.next_deadline() == Nanos(10ms));
  t.clk.t = 9ms;
  tx.on_tick();
  CHECK(t.sent.size() == 1);
  t.clk.t = 10ms;
  tx.on_tick();
  CHECK(t.sent.size() == 2);  // first resend, waits 20 ms
  CHECK(tx.next_deadline() == Nanos(30ms));
  t.clk.t = 30ms;
  tx.on_tick();
  CHECK(t.sent.size() == 3);  // second resend, waits 40 ms
  t.clk.t = 69ms;
  tx.on_tick();
  CHECK_FALSE(err);
  t.clk.t = 70ms;
  tx.on_tick();
  REQUIRE(err);
  CHECK(*err == Errc::timeout);
  CHECK(tx.stats().retried == 2);
  CHECK(tx.stats().timed_out == 1);
  CHECK(tx.idle());
}

TEST_CASE("a late answer to a resent request completes it once") {
  FakeTransport t;
  Transactions tx(t, TransactionConfig{.window = 4, .timeout = 10ms, .retries = 3});
  int calls = 0;
  tx.submit(request(), [&](Result<Packet> r) { calls += r ? 1 : 10; });
  t.clk.t = 10ms;
  tx.on_tick();
  CHECK(tx.on_receive(t.response_to(0)));  // the answer to the first attempt
  CHECK_FALSE(tx.on_receive(t.response_to(1)));
  t.clk.t = 1s;
  tx.on_tick();
  CHECK(calls == 1);
}

TEST_CASE("an answered request leaves no timer: no early wake-up, nothing kept until its time") {
  FakeTransport t;
  Transactions tx(t, TransactionConfig{.window = 64, .timeout = 1s});
  CHECK_FALSE(tx.next_deadline());
  for (int i = 0; i < 1000; ++i) tx.submit(request(), [](Result<Packet>) {});
  REQUIRE(t.sent.size() == 64);
  CHECK(tx.next_deadline() == std::optional<Nanos>(1s));
  // Answered as fast as they go out: the window refills, nothing is waiting to time out. (A
  // heap kept every answered one's timer until its second was up: 1,000 here, millions at
  // 43k nodes, and the loop woke for each.)
  for (size_t i = 0; i < t.sent.size(); ++i) {
    t.clk.t += 1ms;
    CHECK(tx.on_receive(t.response_to(i)));
  }
  CHECK(tx.idle());
  CHECK_FALSE(tx.next_deadline());
  // One unanswered request: its own deadline, not an earlier answered one's.
  tx.submit(request(), [](Result<Packet>) {});
  CHECK(tx.next_deadline() == std::optional<Nanos>(t.clk.t + 1s));
}
