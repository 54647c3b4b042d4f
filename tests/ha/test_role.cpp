// The SM state machine without any fabric: events in, decisions out.
#include <doctest/doctest.h>

#include <algorithm>

#include "ha/role.h"

using namespace ha;
using namespace std::chrono_literals;
using K = Action::Kind;

namespace {

const Guid kSelf{0x20};

SmInfo info(uint64_t guid, uint8_t priority, SmState state, uint32_t act = 1, uint64_t key = 0) {
  SmInfo s;
  s.guid = Guid(guid);
  s.priority = priority;
  s.state = state;
  s.act_count = act;
  s.sm_key = key;
  return s;
}

bool has(const Output& o, K kind, Guid peer = Guid()) {
  return std::any_of(o.actions.begin(), o.actions.end(),
                     [&](const Action& a) { return a.kind == kind && (peer.is_zero() || a.peer == peer); });
}
bool noted(const Output& o, Note::Kind kind) {
  return std::any_of(o.notes.begin(), o.notes.end(), [&](const Note& n) { return n.kind == kind; });
}

Config cfg(uint8_t priority = 5, bool sticky = false, uint64_t key = 0) {
  Config c;
  c.priority = priority;
  c.sticky = sticky;
  c.sm_key = key;
  return c;
}

// Starts a role and finishes its first discovery with one peer answering `peer`.
Output elect(Role& r, const SmInfo& peer, Nanos at = 0ms) {
  Output o = r.start(at);
  CHECK(has(o, K::discover));
  o = r.discovered(at, kSelf, {SmPort{peer.guid}}, true);
  CHECK(has(o, K::query, peer.guid));
  CHECK(r.state() == SmState::discovering);  // waits for the answer
  return r.query_result(at, peer.guid, peer);
}

// A standby under master 0x10 (priority 9), polled once successfully.
Role standby_under_master(Config c = cfg()) {
  Role r(c);
  Output o = elect(r, info(0x10, 9, SmState::master, 100));
  REQUIRE(r.state() == SmState::standby);
  REQUIRE(has(o, K::poll, Guid(0x10)));
  return r;
}

}  // namespace

TEST_CASE("alone: Discovering, then Master after the walk") {
  Role r(cfg());
  CHECK(r.state() == SmState::not_active);
  Output o = r.start(0ms);
  CHECK(r.state() == SmState::discovering);
  CHECK(has(o, K::discover));
  o = r.discovered(1ms, kSelf, {SmPort{kSelf}}, true);  // its own port is skipped
  CHECK(r.state() == SmState::master);
  CHECK(has(o, K::become_master));
  CHECK(r.self_info(false).state == SmState::master);
  CHECK(r.self_info(false).guid == kSelf);
}

TEST_CASE("election: a master found means Standby, whatever the priorities") {
  Role r(cfg(15));
  Output o = elect(r, info(0x99, 1, SmState::master));
  CHECK(r.state() == SmState::standby);
  CHECK(r.watched() == Guid(0x99));
  CHECK(has(o, K::stand_by));
  CHECK(has(o, K::poll, Guid(0x99)));
  CHECK_FALSE(has(o, K::become_master));
}

TEST_CASE("election: higher priority wins, equal priorities go to the lower port GUID") {
  SUBCASE("a higher-priority SM still discovering: stand by for it") {
    Role r(cfg(5));
    elect(r, info(0x99, 6, SmState::discovering));
    CHECK(r.state() == SmState::standby);
    CHECK(r.watched() == Guid(0x99));
  }
  SUBCASE("a lower-priority one: master") {
    Role r(cfg(5));
    elect(r, info(0x01, 4, SmState::standby));
    CHECK(r.state() == SmState::master);
  }
  SUBCASE("tie, the peer has the lower GUID: it wins") {
    Role r(cfg(5));
    elect(r, info(0x10, 5, SmState::discovering));
    CHECK(r.state() == SmState::standby);
  }
  SUBCASE("tie, this SM has the lower GUID: it wins") {
    Role r(cfg(5));
    elect(r, info(0x30, 5, SmState::discovering));
    CHECK(r.state() == SmState::master);
  }
  SUBCASE("a NotActive SM does not take part") {
    Role r(cfg(0));
    elect(r, info(0x10, 15, SmState::not_active));
    CHECK(r.state() == SmState::master);
  }
  SUBCASE("an SM that does not answer does not take part") {
    Role r(cfg(0));
    r.start(0ms);
    r.discovered(0ms, kSelf, {SmPort{Guid(0x10)}}, true);
    Output o = r.query_result(100ms, Guid(0x10), mad::fail(mad::Errc::timeout, "no response"));
    CHECK(r.state() == SmState::master);
    CHECK(has(o, K::become_master));
  }
}

TEST_CASE("outranks") {
  CHECK(outranks(Rank{6, Guid(9)}, Rank{5, Guid(1)}));
  CHECK(outranks(Rank{5, Guid(1)}, Rank{5, Guid(9)}));
  CHECK_FALSE(outranks(Rank{5, Guid(1)}, Rank{5, Guid(1)}));
}

TEST_CASE("standby: polls every interval; 3 unanswered polls lose the master") {
  Role r = standby_under_master();
  const Nanos t0 = 0ms;
  Output o = r.poll_result(t0 + 1ms, Guid(0x10), info(0x10, 9, SmState::master, 101));
  CHECK(o.actions.empty());
  CHECK(r.next_deadline() == t0 + 100ms);  // the interval counts from the poll sent
  CHECK(r.tick(t0 + 99ms).actions.empty());
  o = r.tick(t0 + 100ms);
  CHECK(has(o, K::poll, Guid(0x10)));
  CHECK_FALSE(r.next_deadline());  // nothing to time while the poll is out
  const auto miss = mad::fail(mad::Errc::timeout, "no response");
  o = r.poll_result(t0 + 200ms, Guid(0x10), miss);
  CHECK(o.actions.empty());
  CHECK(has(r.tick(t0 + 200ms), K::poll));
  CHECK(r.poll_result(t0 + 300ms, Guid(0x10), miss).actions.empty());
  CHECK(has(r.tick(t0 + 300ms), K::poll));
  // The third miss is confirmed first: one more Get, with confirm_timeout to answer.
  o = r.poll_result(t0 + 400ms, Guid(0x10), miss);
  CHECK_FALSE(noted(o, Note::Kind::master_lost));
  CHECK(r.state() == SmState::standby);
  CHECK(o.actions == std::vector<Action>{Action{K::confirm, Guid(0x10)}});
  CHECK(r.tick(t0 + 500ms).actions.empty());  // no poll beside the confirmation
  o = r.poll_result(t0 + 650ms, Guid(0x10), miss);
  CHECK(noted(o, Note::Kind::master_lost));
  CHECK(r.state() == SmState::discovering);
  CHECK(has(o, K::discover));
  CHECK(has(o, K::query, Guid(0x10)));  // asked again while the walk runs
  // The walk finds nobody else answering: this SM takes over.
  r.discovered(t0 + 700ms, kSelf, {SmPort{Guid(0x10)}}, true);
  CHECK(r.state() == SmState::discovering);
  o = r.query_result(t0 + 750ms, Guid(0x10), miss);
  CHECK(r.state() == SmState::master);
  CHECK(has(o, K::become_master));
}

// A master whose loop was busy for longer than three polls answers the confirmation: it stays
// master, and the standby keeps polling it (the split brain of a 32k-CA resweep).
TEST_CASE("standby: a master that answers the confirmation is busy, not lost") {
  Role r = standby_under_master();
  const auto miss = mad::fail(mad::Errc::timeout, "no response");
  (void)r.poll_result(1ms, Guid(0x10), info(0x10, 9, SmState::master, 101));  // the first poll's answer
  Nanos t = 100ms;
  for (int i = 0; i < 3; ++i, t += 100ms) {
    REQUIRE(has(r.tick(t), K::poll));
    (void)r.poll_result(t + 100ms, Guid(0x10), miss);
  }
  REQUIRE(r.state() == SmState::standby);
  Output o = r.poll_result(t + 200ms, Guid(0x10), info(0x10, 9, SmState::master, 102));
  CHECK(r.state() == SmState::standby);
  CHECK_FALSE(noted(o, Note::Kind::master_lost));
  CHECK(noted(o, Note::Kind::warning));
  CHECK(r.watched() == Guid(0x10));
  // The misses start again from none: three more are needed before another confirmation.
  CHECK(has(r.tick(t + 300ms), K::poll));
  CHECK(r.poll_result(t + 400ms, Guid(0x10), miss).actions.empty());
}

TEST_CASE("standby: an answer in between resets the misses") {
  Role r = standby_under_master();
  const auto miss = mad::fail(mad::Errc::timeout, "no response");
  for (int round = 0; round < 5; ++round) {
    const Nanos t = Nanos(std::chrono::milliseconds(300 * round));
    r.tick(t);
    r.poll_result(t + 100ms, Guid(0x10), miss);
    r.tick(t + 100ms);
    r.poll_result(t + 200ms, Guid(0x10), miss);
    r.tick(t + 200ms);
    r.poll_result(t + 210ms, Guid(0x10), info(0x10, 9, SmState::master, static_cast<uint32_t>(200 + round)));
    CHECK(r.state() == SmState::standby);
  }
}

TEST_CASE("standby: an ActCount that stops moving loses the master") {
  Role r = standby_under_master();
  Nanos t = 0ms;
  int answers = 0;
  while (r.state() == SmState::standby && answers < 10) {
    r.tick(t);
    r.poll_result(t + 1ms, Guid(0x10), info(0x10, 9, SmState::master, 100));
    ++answers;
    t += 100ms;
  }
  // The first poll sets the baseline; three more answers with 100 are three polls without a move.
  CHECK(answers == 4);
  CHECK(r.state() == SmState::discovering);
}

TEST_CASE("standby: the master's SM_Key changes: not believed any more") {
  Role r = standby_under_master();
  Output o = r.poll_result(1ms, Guid(0x10), info(0x10, 9, SmState::master, 101, 0xBAD));
  CHECK(noted(o, Note::Kind::security));
  CHECK(noted(o, Note::Kind::master_lost));
  CHECK(r.state() == SmState::discovering);
}

TEST_CASE("standby waiting for a higher SM that never becomes master elects again") {
  Config c = cfg(5);
  c.settle_polls = 4;
  Role r(c);
  elect(r, info(0x10, 9, SmState::standby));
  REQUIRE(r.state() == SmState::standby);
  Nanos t = 0ms;
  for (int i = 0; i < 3; ++i) {
    r.poll_result(t + 1ms, Guid(0x10), info(0x10, 9, SmState::standby, static_cast<uint32_t>(i)));
    CHECK(r.state() == SmState::standby);
    t += 100ms;
    r.tick(t);
  }
  Output o = r.poll_result(t + 1ms, Guid(0x10), info(0x10, 9, SmState::standby, 9));
  CHECK(r.state() == SmState::discovering);
  CHECK(has(o, K::discover));
}

TEST_CASE("standby: the SM watched says it is master of nothing any more (handed over elsewhere)") {
  Role r = standby_under_master();
  Output o = r.poll_result(1ms, Guid(0x10), info(0x10, 9, SmState::standby, 101));
  CHECK(r.state() == SmState::discovering);
  CHECK(has(o, K::discover));
}

TEST_CASE("standby outranking its master tells it once (trap 144), as OpenSM expects") {
  Role r(cfg(12));
  Output o = elect(r, info(0x10, 3, SmState::master, 1));
  REQUIRE(r.state() == SmState::standby);
  o = r.poll_result(1ms, Guid(0x10), info(0x10, 3, SmState::master, 2));
  CHECK(has(o, K::notify_master, Guid(0x10)));
  r.tick(100ms);
  o = r.poll_result(101ms, Guid(0x10), info(0x10, 3, SmState::master, 3));
  CHECK_FALSE(has(o, K::notify_master));
}

TEST_CASE("master: hands over to a higher standby; stands by under it once it answers") {
  Role r(cfg(5));
  r.start(0ms);
  r.discovered(0ms, kSelf, {}, true);
  REQUIRE(r.state() == SmState::master);
  Output o = r.sm_port_changed(1s, Guid(0x10));  // trap 144: an SM came
  CHECK(has(o, K::query, Guid(0x10)));
  o = r.query_result(1s, Guid(0x10), info(0x10, 7, SmState::discovering));
  CHECK_FALSE(has(o, K::handover));  // not yet: it has not settled
  CHECK(r.next_deadline() <= 1s + 100ms);
  o = r.tick(1s + 100ms);
  CHECK(has(o, K::query, Guid(0x10)));
  o = r.query_result(1s + 100ms, Guid(0x10), info(0x10, 7, SmState::standby));
  CHECK(has(o, K::handover, Guid(0x10)));
  CHECK(noted(o, Note::Kind::handover));
  CHECK(r.state() == SmState::master);  // until it answers
  o = r.handover_result(1s + 101ms, Guid(0x10), info(0x10, 7, SmState::master));
  CHECK(r.state() == SmState::standby);
  CHECK(r.watched() == Guid(0x10));
  CHECK(has(o, K::stand_by));
  CHECK(has(o, K::poll, Guid(0x10)));
}

TEST_CASE("master: a failed handover keeps mastership and tries again") {
  Role r(cfg(5));
  r.start(0ms);
  r.discovered(0ms, kSelf, {SmPort{Guid(0x10)}}, true);
  r.query_result(0ms, Guid(0x10), info(0x10, 1, SmState::standby));
  REQUIRE(r.state() == SmState::master);
  Output o = r.sm_port_changed(1s, Guid(0x10));
  o = r.query_result(1s, Guid(0x10), info(0x10, 7, SmState::standby));
  REQUIRE(has(o, K::handover));
  o = r.handover_result(1s + 100ms, Guid(0x10), mad::fail(mad::Errc::timeout, "no response"));
  CHECK(r.state() == SmState::master);
  CHECK(noted(o, Note::Kind::warning));
  o = r.tick(1s + 200ms);
  CHECK(has(o, K::query, Guid(0x10)));
}

TEST_CASE("master: the handover answer is lost but the ACKNOWLEDGE arrives") {
  Role r(cfg(5));
  r.start(0ms);
  r.discovered(0ms, kSelf, {}, true);
  REQUIRE(r.state() == SmState::master);
  r.sm_port_changed(1s, Guid(0x10));
  Output o = r.query_result(1s, Guid(0x10), info(0x10, 7, SmState::standby));
  REQUIRE(has(o, K::handover, Guid(0x10)));
  auto set = r.on_set(5ms, mad::sm_info_ctl::acknowledge, info(0x10, 7, SmState::master));
  CHECK(set.status == 0);
  CHECK(r.state() == SmState::standby);
  CHECK(r.watched() == Guid(0x10));
}

TEST_CASE("sticky master keeps the subnet when a preferred SM comes back") {
  Role r(cfg(5, true));
  r.start(0ms);
  r.discovered(0ms, kSelf, {}, true);
  REQUIRE(r.state() == SmState::master);
  r.sm_port_changed(1s, Guid(0x10));
  Output o = r.query_result(1s, Guid(0x10), info(0x10, 15, SmState::standby));
  CHECK_FALSE(has(o, K::handover));
  CHECK(noted(o, Note::Kind::handover));
  CHECK(r.state() == SmState::master);
  // ... but a second master (split brain) is resolved by the election rules.
  o = r.tick(2s);
  REQUIRE(has(o, K::query, Guid(0x10)));
  o = r.query_result(2s, Guid(0x10), info(0x10, 15, SmState::master));
  CHECK(has(o, K::handover, Guid(0x10)));
}

TEST_CASE("split brain: the lower master hands over, the higher one waits and resweeps") {
  SUBCASE("this SM is lower") {
    Role r(cfg(3));
    r.start(0ms);
    r.discovered(0ms, kSelf, {}, true);
    r.discovered(5s, kSelf, {SmPort{Guid(0x10)}}, true);  // a healed partition: a new SM port
    Output o = r.query_result(5s, Guid(0x10), info(0x10, 9, SmState::master));
    CHECK(has(o, K::handover, Guid(0x10)));
    r.handover_result(5s + 1ms, Guid(0x10), info(0x10, 9, SmState::master));
    CHECK(r.state() == SmState::standby);
  }
  SUBCASE("this SM is higher") {
    Role r(cfg(9));
    r.start(0ms);
    r.discovered(0ms, kSelf, {}, true);
    r.discovered(5s, kSelf, {SmPort{Guid(0x10)}}, true);
    Output o = r.query_result(5s, Guid(0x10), info(0x10, 3, SmState::master));
    CHECK(o.actions.empty());
    CHECK(noted(o, Note::Kind::warning));
    CHECK(r.next_deadline() <= 5s + 100ms);  // it is watched until it hands over
    auto set = r.on_set(5s + 50ms, mad::sm_info_ctl::handover, info(0x10, 3, SmState::master));
    CHECK(set.status == 0);
    CHECK(r.state() == SmState::master);
    CHECK(has(set.out, K::resweep));
    CHECK(has(set.out, K::acknowledge, Guid(0x10)));
  }
}

TEST_CASE("standby receives HANDOVER: master, and acknowledges") {
  Role r = standby_under_master();
  auto set = r.on_set(1s, mad::sm_info_ctl::handover, info(0x10, 9, SmState::master));
  CHECK(set.status == 0);
  CHECK(r.state() == SmState::master);
  CHECK(has(set.out, K::become_master));
  CHECK(has(set.out, K::acknowledge, Guid(0x10)));
}

TEST_CASE("a HANDOVER while discovering: the old master does not count") {
  Role r(cfg(1));
  r.start(0ms);
  r.discovered(0ms, kSelf, {SmPort{Guid(0x10)}}, true);
  auto set = r.on_set(1ms, mad::sm_info_ctl::handover, info(0x10, 9, SmState::master));
  CHECK(set.status == 0);
  CHECK(r.state() == SmState::discovering);
  // Its answer to our query was sent before it handed over.
  Output o = r.query_result(2ms, Guid(0x10), info(0x10, 9, SmState::master));
  CHECK(r.state() == SmState::master);
  CHECK(has(o, K::acknowledge, Guid(0x10)));
}

TEST_CASE("SM_Key: a peer with another key is not believed; its control packets are refused") {
  SUBCASE("no standing by under a master with the wrong key") {
    Role r(cfg(1, false, 0x5EC2E7));
    Output o = elect(r, info(0x10, 15, SmState::master, 1, 0xBAD));
    CHECK(noted(o, Note::Kind::security));
    CHECK(r.state() == SmState::master);
  }
  SUBCASE("no handover to a higher SM with the wrong key") {
    Role r(cfg(1, false, 0x5EC2E7));
    r.start(0ms);
    r.discovered(0ms, kSelf, {}, true);
    r.sm_port_changed(1s, Guid(0x10));
    Output o = r.query_result(1s, Guid(0x10), info(0x10, 15, SmState::standby, 1, 0xBAD));
    CHECK_FALSE(has(o, K::handover));
    CHECK(noted(o, Note::Kind::security));
    // Reported once, not on every check.
    r.tick(3s);
    o = r.query_result(3s, Guid(0x10), info(0x10, 15, SmState::standby, 2, 0xBAD));
    CHECK_FALSE(noted(o, Note::Kind::security));
  }
  SUBCASE("a Set with the wrong key changes nothing") {
    Role r(cfg(1, false, 0x5EC2E7));
    r.start(0ms);
    r.discovered(0ms, kSelf, {}, true);
    auto set = r.on_set(1s, mad::sm_info_ctl::discover, info(0x10, 15, SmState::master, 1, 0xBAD));
    CHECK(set.status == mad::status::invalid_field);
    CHECK(noted(set.out, Note::Kind::security));
    CHECK(r.state() == SmState::master);
  }
}

TEST_CASE("control packets: legality, DISABLE and STANDBY") {
  Role r = standby_under_master();
  SUBCASE("HANDOVER from an SM that is not master") {
    auto set = r.on_set(1s, mad::sm_info_ctl::handover, info(0x11, 9, SmState::standby));
    CHECK(set.status == mad::status::invalid_field);
    CHECK(r.state() == SmState::standby);
  }
  SUBCASE("DISABLE, then STANDBY") {
    auto set = r.on_set(1s, mad::sm_info_ctl::disable, info(0x10, 9, SmState::master));
    CHECK(set.status == 0);
    CHECK(r.state() == SmState::not_active);
    CHECK_FALSE(r.next_deadline());  // no polling
    CHECK(r.tick(10s).actions.empty());
    set = r.on_set(11s, mad::sm_info_ctl::standby, info(0x10, 9, SmState::master));
    CHECK(set.status == 0);
    CHECK(r.state() == SmState::standby);
    CHECK(has(set.out, K::poll, Guid(0x10)));
  }
  SUBCASE("DISCOVER") {
    auto set = r.on_set(1s, mad::sm_info_ctl::discover, info(0x10, 9, SmState::master));
    CHECK(set.status == 0);
    CHECK(r.state() == SmState::discovering);
    CHECK(has(set.out, K::discover));
  }
  SUBCASE("an unknown modifier") {
    auto set = r.on_set(1s, 77, info(0x10, 9, SmState::master));
    CHECK(set.status == mad::status::invalid_field);
  }
}

TEST_CASE("a master told to DISCOVER stops configuring until it is elected again") {
  Role r(cfg(5));
  r.start(0ms);
  r.discovered(0ms, kSelf, {}, true);
  REQUIRE(r.state() == SmState::master);
  auto set = r.on_set(1s, mad::sm_info_ctl::discover, info(0x10, 9, SmState::master));
  CHECK(set.status == 0);
  CHECK(has(set.out, K::stand_by));
  CHECK(has(set.out, K::discover));
  Output o = r.discovered(2s, kSelf, {SmPort{Guid(0x10)}}, true);
  CHECK(r.state() == SmState::discovering);  // waits for 0x10's answer
  o = r.query_result(2s, Guid(0x10), info(0x10, 9, SmState::master));
  CHECK(r.state() == SmState::standby);
}

TEST_CASE("the master's ActCount moves at least once per heartbeat; SMInfo shows state and key") {
  Config c = cfg(5, false, 0x1234);
  Role r(c);
  r.start(0ms);
  r.discovered(0ms, kSelf, {}, true);
  REQUIRE(r.state() == SmState::master);
  uint32_t last = r.act_count();
  for (Nanos t = c.heartbeat; t < 2s; t += c.heartbeat) {
    REQUIRE(r.next_deadline());
    CHECK(*r.next_deadline() <= t);
    r.tick(t);
    CHECK(r.act_count() > last);
    last = r.act_count();
  }
  CHECK(r.self_info(true).sm_key == 0x1234);
  CHECK(r.self_info(false).sm_key == 0);
  CHECK(r.self_info(false).priority == 5);
}

TEST_CASE("a complete walk forgets SMs that are gone") {
  Role r(cfg(5));
  r.start(0ms);
  r.discovered(0ms, kSelf, {SmPort{Guid(0x10)}}, true);
  r.query_result(0ms, Guid(0x10), info(0x10, 1, SmState::standby));
  REQUIRE(r.peers().size() == 1);
  r.tick(5s);
  r.query_result(5s, Guid(0x10), mad::fail(mad::Errc::timeout, "x"));
  Output o = r.discovered(6s, kSelf, {}, true);
  CHECK(r.peers().empty());
  CHECK(noted(o, Note::Kind::peer) == false);  // it did not answer last: nothing to say
}

TEST_CASE("stopping: a master hands over to its best believed standby, then goes NotActive") {
  Role r(cfg(9));
  r.start(0ms);
  r.discovered(0ms, kSelf, {SmPort{Guid(0x30)}, SmPort{Guid(0x40)}, SmPort{Guid(0x50)}}, true);
  r.query_result(0ms, Guid(0x30), info(0x30, 2, SmState::standby));
  r.query_result(0ms, Guid(0x40), info(0x40, 4, SmState::standby));
  r.query_result(0ms, Guid(0x50), info(0x50, 6, SmState::standby, 1, 0x99));  // another SM_Key
  REQUIRE(r.state() == SmState::master);
  Output o = r.resign(1s);
  CHECK(has(o, K::handover, Guid(0x40)));  // the highest believed one, not 0x50
  CHECK_FALSE(has(o, K::handover, Guid(0x50)));
  CHECK(r.state() == SmState::master);  // until it answers
  CHECK(r.resign(1s).actions.empty());  // asked once
  o = r.handover_result(1s + 1ms, Guid(0x40), info(0x40, 4, SmState::master));
  CHECK(r.state() == SmState::not_active);  // not a standby the new master would hand back to
  CHECK(has(o, K::stand_by));
  CHECK_FALSE(has(o, K::poll));
}

TEST_CASE("stopping: the handover's answer is lost, its ACKNOWLEDGE ends it too") {
  Role r(cfg(9));
  r.start(0ms);
  r.discovered(0ms, kSelf, {SmPort{Guid(0x40)}}, true);
  r.query_result(0ms, Guid(0x40), info(0x40, 4, SmState::standby));
  REQUIRE(has(r.resign(1s), K::handover, Guid(0x40)));
  r.on_set(1s + 1ms, mad::sm_info_ctl::acknowledge, info(0x40, 4, SmState::master));
  CHECK(r.state() == SmState::not_active);
}

TEST_CASE("stopping: nobody to hand over to, or not master: nothing to do") {
  Role alone(cfg(9));
  alone.start(0ms);
  alone.discovered(0ms, kSelf, {}, true);
  REQUIRE(alone.state() == SmState::master);
  CHECK(alone.resign(1s).actions.empty());
  Role sb = standby_under_master();
  CHECK(sb.resign(1s).actions.empty());
  CHECK(sb.state() == SmState::standby);
}

// 25 SMInfo DISCOVERs in a row with a valid SM_Key forced 25 full walks: one is taken per
// hold-off, the others are refused (busy) and reported once.
TEST_CASE("DISCOVER: one full walk per hold-off, the rest refused and reported") {
  Role r = standby_under_master();
  const SmInfo master = info(0x10, 9, SmState::master, 101);
  int walks = 0, refused = 0, reported = 0;
  for (int i = 0; i < 25; ++i) {
    auto res = r.on_set(Nanos(10ms) * (i + 1), mad::sm_info_ctl::discover, master);
    if (has(res.out, K::discover)) ++walks;
    if (res.status == mad::status::busy) ++refused;
    if (noted(res.out, Note::Kind::security)) ++reported;
    // The walk ends as standby under the same master, as the SM would report it.
    if (r.state() == SmState::discovering) {
      (void)r.discovered(Nanos(10ms) * (i + 1), kSelf, {SmPort{master.guid}}, true);
      (void)r.query_result(Nanos(10ms) * (i + 1), master.guid, master);
    }
  }
  CHECK(walks == 1);
  CHECK(refused == 24);
  CHECK(reported == 1);
  // After the hold-off one is taken again, and the refusals are summed up.
  auto later = r.on_set(6s, mad::sm_info_ctl::discover, master);
  CHECK(has(later.out, K::discover));
  CHECK(noted(later.out, Note::Kind::security));
}
