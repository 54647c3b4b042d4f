// The Agent over a fake SmHost: decisions become host calls, answers come back to the role.
#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <vector>

#include "ha/agent.h"

using namespace ha;
using namespace std::chrono_literals;

namespace {

struct FakeHost : SmHost {
  Nanos t{0};
  std::vector<std::string> calls;
  struct Sent {
    Guid port;
    uint32_t modifier;
    SmInfo payload;
    Nanos timeout;
    SmInfoDone done;
  };
  std::deque<Sent> sent;
  std::vector<Note> notes;

  Nanos now() const override { return t; }
  void discover() override { calls.push_back("discover"); }
  void become_master() override { calls.push_back("become_master"); }
  void stand_by() override { calls.push_back("stand_by"); }
  void resweep() override { calls.push_back("resweep"); }
  void send_sm_info(Guid port, uint32_t modifier, const SmInfo& payload, Nanos timeout, SmInfoDone done) override {
    calls.push_back(modifier ? "set " + std::to_string(modifier) : "get");
    sent.push_back(Sent{port, modifier, payload, timeout, std::move(done)});
  }
  void notify_master(Guid) override { calls.push_back("notify"); }
  void note(const Note& n) override { notes.push_back(n); }

  // Answers the oldest request.
  void answer(mad::Result<SmInfo> r) {
    REQUIRE(!sent.empty());
    Sent s = std::move(sent.front());
    sent.pop_front();
    s.done(std::move(r));
  }
  bool called(const std::string& c) const { return std::find(calls.begin(), calls.end(), c) != calls.end(); }
};

SmInfo peer(uint64_t guid, uint8_t pri, SmState st, uint32_t act = 1) {
  SmInfo s;
  s.guid = Guid(guid);
  s.priority = pri;
  s.state = st;
  s.act_count = act;
  s.sm_key = Config{}.sm_key;  // the default key, as the agents under test have
  return s;
}

}  // namespace

TEST_CASE("agent: election through the host, then polling with the configured timeout") {
  FakeHost h;
  Config c;
  c.priority = 2;
  c.poll_timeout = 80ms;
  Agent a(h, c);
  a.start();
  CHECK(h.calls == std::vector<std::string>{"discover"});
  a.discovered(Guid(0x20), {SmPort{Guid(0x10)}, SmPort{Guid(0x20)}}, true);
  REQUIRE(h.sent.size() == 1);
  CHECK(h.sent.front().port == Guid(0x10));
  CHECK(h.sent.front().modifier == 0);
  CHECK(h.sent.front().timeout == 80ms);
  h.answer(peer(0x10, 9, SmState::master));
  CHECK(a.state() == SmState::standby);
  CHECK(h.called("stand_by"));
  REQUIRE(h.sent.size() == 1);  // the first poll
  CHECK(h.sent.front().port == Guid(0x10));
  // Three silent polls, then the confirmation (its own timeout) silent too: the master is
  // lost, the host walks again.
  h.calls.clear();
  for (int i = 0; i < 3; ++i) {
    h.t += 100ms;
    h.answer(mad::fail(mad::Errc::timeout, "no response"));
    a.on_tick();
  }
  CHECK(a.state() == SmState::standby);
  REQUIRE(h.sent.size() == 1);
  CHECK(h.sent.front().timeout == c.confirm_timeout);
  h.t += c.confirm_timeout;
  h.answer(mad::fail(mad::Errc::timeout, "no response"));
  CHECK(a.state() == SmState::discovering);
  CHECK(h.called("discover"));
  bool lost = false;
  for (const Note& n : h.notes) lost = lost || n.kind == Note::Kind::master_lost;
  CHECK(lost);
}

TEST_CASE("agent: a host that fails a request at once (no route) does not break the role") {
  struct NoRoute final : FakeHost {
    void send_sm_info(Guid, uint32_t, const SmInfo&, Nanos, SmInfoDone done) override {
      calls.push_back("get");
      done(mad::fail(mad::Errc::not_found, "no route"));
    }
  } h;
  Agent a(h, Config{});
  a.start();
  a.discovered(Guid(0x20), {SmPort{Guid(0x10)}}, true);
  CHECK(a.state() == SmState::master);
  CHECK(h.called("become_master"));
}

TEST_CASE("agent: a HANDOVER is answered before the new master starts its sweep") {
  FakeHost h;
  Agent a(h, Config{});
  a.start();
  a.discovered(Guid(0x20), {SmPort{Guid(0x10)}}, true);
  h.answer(peer(0x10, 9, SmState::master));
  REQUIRE(a.state() == SmState::standby);
  h.calls.clear();
  std::vector<std::string> order;
  a.on_set(mad::sm_info_ctl::handover, peer(0x10, 9, SmState::master), [&](const Agent::Answer& ans) {
    order.push_back("reply");
    CHECK(ans.status == 0);
    CHECK(ans.info.state == SmState::master);
    CHECK(h.calls.empty());
  });
  CHECK(order == std::vector<std::string>{"reply"});
  CHECK(h.called("become_master"));
  CHECK(h.called("set 2"));  // ACKNOWLEDGE to the old master
  CHECK(h.sent.back().payload.state == SmState::master);
}

TEST_CASE("agent: a Get reveals the SM_Key only when authenticated") {
  FakeHost h;
  Config c;
  c.sm_key = 0xABCD;
  Agent a(h, c);
  a.start();
  CHECK(a.on_get(true).info.sm_key == 0xABCD);
  CHECK(a.on_get(false).info.sm_key == 0);
  CHECK(a.on_get(false).info.state == SmState::discovering);
}
