// High availability on the simulated fabric: several real SubnetManagers, each on its own
// endpoint, driven together (cli::Cluster over sim::MultiDriver). Election, failover with no
// LID changed and no LFT block written, handover back (and not, when sticky), SM_Key
// mismatch, split brain after a healed partition, MAD loss without a false takeover.
#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <map>

#include "sim/netfile.h"
#include "sim/verifier.h"
#include "cli/drill.h"

using namespace std::chrono_literals;
using cli::Cluster;

namespace {

sim::FabricSpec load(const std::string& name) {
  auto s = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/" + name);
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  return std::move(*s);
}

struct Sm {
  std::string node;
  uint8_t priority;
  bool sticky = false;
  uint64_t key = 0;
};

std::unique_ptr<Cluster> cluster(const std::vector<Sm>& sms, const std::string& fabric = "ft3-r8.net",
                                 sim::SimConfig sc = {}, sm::Level level = sm::Level::error) {
  std::vector<cli::DrillSm> d;
  for (const Sm& s : sms) {
    cli::DrillSm x;
    x.node = s.node;
    x.cfg.ha.priority = s.priority;
    x.cfg.ha.sticky = s.sticky;
    x.cfg.ha.sm_key = s.key;
    d.push_back(std::move(x));
  }
  auto c = Cluster::create(load(fabric), sc, std::move(d), level);
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  return std::move(*c);
}

bool up_with_one_master(Cluster& c) { return c.settled() && c.masters().size() == 1; }

void bring_up(Cluster& c) {
  for (size_t i = 0; i < c.size(); ++i) c.start(i);
  REQUIRE(c.run_until([&] { return up_with_one_master(c); }, 20s));
  c.run_for(500ms);
}

std::map<uint64_t, uint16_t> lids(const Cluster& c) {
  std::map<uint64_t, uint16_t> out;
  for (const auto& n : c.fabric().nodes())
    for (const auto& p : n.ports)
      if (n.is_switch() ? p.num == 0 : p.num != 0) out[p.guid.value()] = p.lid;
  return out;
}

uint64_t lft_blocks(const Cluster& c) {
  uint64_t n = 0;
  for (const auto& node : c.fabric().nodes())
    if (node.is_switch()) n += node.sw->lft_blocks_written;
  return n;
}

std::map<uint64_t, uint32_t> rereg(const Cluster& c) {
  std::map<uint64_t, uint32_t> out;
  for (const auto& n : c.fabric().nodes())
    if (!n.is_switch())
      for (const auto& p : n.ports)
        if (p.num != 0) out[p.guid.value()] = p.client_rereg_count;
  return out;
}

// The LID of SM i's port, and whether every linked CA port and switch holds it as SM LID.
uint16_t sm_lid(const Cluster& c, size_t i) { return c.fabric().node(c.node_of(i)).ports[1].lid; }
bool everyone_points_at(const Cluster& c, uint16_t lid) {
  for (const auto& n : c.fabric().nodes()) {
    if (n.is_switch()) {
      if (n.ports[0].sm_lid != lid) return false;
      continue;
    }
    for (const auto& p : n.ports)
      if (p.num != 0 && p.link_up() && p.sm_lid != lid) return false;
  }
  return true;
}

size_t count_notes(const Cluster& c, size_t sm, ha::Note::Kind kind, size_t from = 0) {
  size_t n = 0;
  for (size_t k = from; k < c.ha_events().size(); ++k)
    if (c.ha_events()[k].sm == sm && c.ha_events()[k].note.kind == kind) ++n;
  return n;
}

bool routed(const Cluster& c) {
  const auto v = sim::verify_routing(c.fabric());
  for (const auto& s : v.samples) MESSAGE(s);
  return v.all_routed() && v.ports_not_active == 0;
}

// The cables of the directed route a walk from CA `from` takes to CA `to` (as
// fabric::Topology's canonical paths: breadth-first, ports in ascending order): each as
// (switch, port it leaves by).
std::vector<std::pair<sim::NodeIdx, uint8_t>> walked_route(const sim::SimFabric& f, sim::NodeIdx from, sim::NodeIdx to) {
  std::map<sim::NodeIdx, std::pair<sim::NodeIdx, uint8_t>> parent;  // node -> (previous, port out of it)
  const sim::NodeIdx first = f.node(from).ports[1].peer;
  std::vector<sim::NodeIdx> queue{first};
  parent[first] = {from, 1};
  for (size_t head = 0; head < queue.size(); ++head) {
    const auto& n = f.node(queue[head]);
    for (const auto& p : n.ports)
      if (p.num && p.link_up() && f.node(p.peer).is_switch() && !parent.contains(p.peer)) {
        parent[p.peer] = {queue[head], p.num};
        queue.push_back(p.peer);
      }
  }
  std::vector<std::pair<sim::NodeIdx, uint8_t>> out;
  for (sim::NodeIdx at = f.node(to).ports[1].peer; at != first; at = parent.at(at).first) out.push_back(parent.at(at));
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("election: the highest priority becomes master; the others stand by and write nothing") {
  auto c = cluster({{"H00000", 5}, {"H00064", 15}, {"H00127", 10}});
  bring_up(*c);
  CHECK(c->masters() == std::vector<size_t>{1});
  CHECK(c->sm(0).state() == mad::SmState::standby);
  CHECK(c->sm(2).state() == mad::SmState::standby);
  CHECK(c->sm(0).ha_role().watched() == c->sm(1).ha_role().self());
  CHECK(everyone_points_at(*c, sm_lid(*c, 1)));
  CHECK(routed(*c));
  // Standbys walked the fabric and configured nothing.
  for (const auto& s : c->sweeps())
    if (s.sm != 1) {
      CHECK_FALSE(s.report.up);
      CHECK(s.report.program.lft_blocks_written == 0);
      CHECK(s.report.program.port_sets == 0);
    }
}

TEST_CASE("election: equal priorities go to the lower port GUID") {
  auto c = cluster({{"H00127", 7}, {"H00000", 7}});
  bring_up(*c);
  REQUIRE(c->masters().size() == 1);
  const size_t m = c->masters().front();
  CHECK(c->sm(m).ha_role().self() < c->sm(1 - m).ha_role().self());
}

TEST_CASE("failover: master killed; the next SM takes over within a second, nothing rewritten") {
  auto c = cluster({{"H00000", 15}, {"H00064", 10}, {"H00127", 5}});
  bring_up(*c);
  REQUIRE(c->masters() == std::vector<size_t>{0});
  const auto lids0 = lids(*c);
  const uint64_t blocks0 = lft_blocks(*c);
  const auto rr0 = rereg(*c);
  const size_t events0 = c->ha_events().size();
  const mad::Nanos killed = c->now();
  c->kill(0);
  REQUIRE(c->run_until([&] { return up_with_one_master(*c); }, 5s));
  CHECK(c->masters() == std::vector<size_t>{1});
  // Detection: three missed polls (100 ms each); then one walk, and master.
  std::optional<mad::Nanos> lost, master;
  for (size_t k = events0; k < c->ha_events().size(); ++k) {
    const auto& e = c->ha_events()[k];
    if (e.note.kind == ha::Note::Kind::master_lost && !lost) lost = e.at;
    if (e.note.kind == ha::Note::Kind::state && e.note.text.starts_with("entering Master") && !master) master = e.at;
  }
  REQUIRE(lost);
  REQUIRE(master);
  MESSAGE("detected after " << (*lost - killed).count() / 1000000 << " ms, master after "
                            << (*master - killed).count() / 1000000 << " ms");
  CHECK(*lost - killed >= 200ms);
  CHECK(*lost - killed <= 450ms);
  CHECK(*master - killed < 1s);
  c->run_for(1s);
  CHECK(c->masters() == std::vector<size_t>{1});
  CHECK(lids(*c) == lids0);               // every LID kept
  CHECK(lft_blocks(*c) == blocks0);       // the same routes: no block differs
  CHECK(everyone_points_at(*c, sm_lid(*c, 1)));
  // ClientReregister exactly where the SM LID changed: every CA port, once; not the killed
  // SM's own port, whose link stays up but nobody there listens any more... it is a CA port too.
  const auto rr1 = rereg(*c);
  size_t told = 0;
  for (const auto& [guid, n] : rr1) {
    CHECK(n - rr0.at(guid) <= 1);
    told += n - rr0.at(guid);
  }
  CHECK(told == rr1.size());
  CHECK(routed(*c));
  // sm3 now stands by under sm2.
  CHECK(c->sm(2).state() == mad::SmState::standby);
  CHECK(c->sm(2).ha_role().watched() == c->sm(1).ha_role().self());
}

TEST_CASE("handover: the preferred SM comes back and gets the subnet; not when sticky") {
  for (bool sticky : {false, true}) {
    INFO("sticky " << sticky);
    auto c = cluster({{"H00000", 15, sticky}, {"H00064", 10, sticky}});
    bring_up(*c);
    c->kill(0);
    REQUIRE(c->run_until([&] { return up_with_one_master(*c) && c->masters().front() == 1; }, 5s));
    c->run_for(500ms);
    const auto lids0 = lids(*c);
    const uint64_t blocks0 = lft_blocks(*c);
    const auto rr0 = rereg(*c);
    c->start(0);
    c->run_for(3s);
    REQUIRE(c->masters().size() == 1);
    CHECK(c->settled());
    if (sticky) {
      CHECK(c->masters().front() == 1);
      CHECK(c->sm(0).state() == mad::SmState::standby);
      CHECK(rereg(*c) == rr0);  // nobody re-registers
    } else {
      CHECK(c->masters().front() == 0);
      CHECK(c->sm(1).state() == mad::SmState::standby);
      CHECK(everyone_points_at(*c, sm_lid(*c, 0)));
    }
    CHECK(lids(*c) == lids0);
    CHECK(lft_blocks(*c) == blocks0);
    CHECK(routed(*c));
  }
}

TEST_CASE("SM_Key: an SM with another key is not believed, whatever its priority") {
  // sm1 and sm2 share a key; sm3 (the highest priority) carries another one.
  auto c = cluster({{"H00000", 10, false, 0x600D}, {"H00064", 5, false, 0x600D}, {"H00127", 15, false, 0xBAD}});
  c->start(0);
  c->start(1);
  REQUIRE(c->run_until([&] { return up_with_one_master(*c); }, 20s));
  REQUIRE(c->masters() == std::vector<size_t>{0});
  const size_t from = c->ha_events().size();
  c->start(2);
  c->run_for(3s);
  // No handover to it, no standing by under it: sm1 stays master, sm2 keeps polling sm1.
  CHECK(c->sm(0).state() == mad::SmState::master);
  CHECK(c->sm(1).state() == mad::SmState::standby);
  CHECK(c->sm(1).ha_role().watched() == c->sm(0).ha_role().self());
  CHECK(count_notes(*c, 0, ha::Note::Kind::security, from) >= 1);  // logged as a security event
  CHECK(count_notes(*c, 0, ha::Note::Kind::handover, from) == 0);
  // And it believes nobody either: it runs as master of its own (a rogue SM).
  CHECK(c->sm(2).state() == mad::SmState::master);
  CHECK(count_notes(*c, 2, ha::Note::Kind::security, from) >= 1);
}

TEST_CASE("a rogue master (another SM_Key) is undone on every light sweep; whole within one after it dies") {
  // Issue 15: the ports kept pointing at a killed rogue for 25-38 s while the master said up.
  std::vector<cli::DrillSm> d(2);
  d[0].node = "H00000";
  d[0].cfg.ha.priority = 10;
  d[0].cfg.ha.sm_key = 0x600D;
  d[0].cfg.sweep_interval = 2s;
  d[1].node = "H00127";
  d[1].cfg.ha.priority = 15;
  d[1].cfg.ha.sm_key = 0xBAD;
  d[1].cfg.sweep_interval = 0s;  // it takes the ports once and then sits there, as a killed one would
  auto made = Cluster::create(load("ft3-r8.net"), {}, std::move(d), sm::Level::info);
  REQUIRE_MESSAGE(made, (made ? "" : made.error().message));
  Cluster& c = **made;
  c.start(0);
  REQUIRE(c.run_until([&] { return up_with_one_master(c); }, 20s));
  const uint16_t ours = sm_lid(c, 0);
  const auto before = lids(c);
  c.start(1);
  // The rogue takes the ports (and would keep them): the master notices within a light sweep.
  REQUIRE(c.run_until([&] { return !everyone_points_at(c, ours); }, 10s));
  auto logged = [&](const std::string& needle) {
    for (const auto& l : c.log_lines(0))
      if (l.find(needle) != std::string::npos) return true;
    return false;
  };
  REQUIRE(c.run_until([&] { return logged("E0810"); }, 5s));
  CHECK(logged("another SM acts as master"));
  // Every light sweep while it is there puts the ports back.
  REQUIRE(c.run_until([&] { return everyone_points_at(c, ours); }, 5s));
  c.kill(1);
  // Within one light sweep (2 s) and the heavy sweep it starts, the fabric is whole.
  CHECK(c.run_until([&] { return everyone_points_at(c, ours) && c.sm(0).subnet_up() && !c.sm(0).sweeping(); }, 3s));
  c.run_for(5s);
  CHECK(everyone_points_at(c, ours));
  CHECK(lids(c) == before);
  CHECK(routed(c));
  CHECK(logged("W0811"));
  CHECK(c.sm(0).state() == mad::SmState::master);
}

TEST_CASE("split brain: a partition gives each part a master; healing leaves one, LIDs kept") {
  auto c = cluster({{"H00000", 15}, {"H00127", 5}});
  bring_up(*c);
  const auto lids0 = lids(*c);
  // Cut sm1's leaf switch off the tree: sm1 and its leaf's CAs on one side.
  const auto& f = c->fabric();
  const sim::NodeIdx leaf = f.node(c->node_of(0)).ports[1].peer;
  std::vector<uint8_t> cut;
  for (const auto& p : f.node(leaf).ports)
    if (p.num && p.link_up() && f.node(p.peer).is_switch()) cut.push_back(p.num);
  REQUIRE(!cut.empty());
  for (uint8_t p : cut) REQUIRE(c->fabric().link_down(leaf, p));
  REQUIRE(c->run_until([&] { return c->masters().size() == 2; }, 5s));
  // The cut-off master times out its re-reads across the cut for a few seconds.
  REQUIRE(c->run_until([&] { return c->settled(); }, 20s));
  CHECK(c->masters().size() == 2);  // one per part: not split brain yet
  for (uint8_t p : cut) REQUIRE(c->fabric().link_up(leaf, p));
  REQUIRE(c->run_until([&] { return up_with_one_master(*c); }, 10s));
  c->run_for(2s);
  CHECK(c->masters() == std::vector<size_t>{0});  // the election's winner
  CHECK(c->sm(1).state() == mad::SmState::standby);
  CHECK(lids(*c) == lids0);
  CHECK(everyone_points_at(*c, sm_lid(*c, 0)));
  CHECK(routed(*c));
}

// A cable cut on the one route a standby polls its master by silences the polls for good (the
// standby does not walk again); the master is alive, reroutes and answers by other routes. The
// confirmation asks by a second directed route and by LID, and the standby stays standby.
TEST_CASE("a cut cable on the standby's route to its master: asked another way, no takeover") {
  auto c = cluster({{"H00000", 15}, {"H00127", 5}}, "ft3-r8.net", {}, sm::Level::warn);
  bring_up(*c);
  REQUIRE(c->masters() == std::vector<size_t>{0});
  const size_t from = c->ha_events().size();
  const auto route = walked_route(c->fabric(), c->node_of(1), c->node_of(0));
  REQUIRE(route.size() >= 3);  // leaf, above it, ...: a cable between two switches to cut
  REQUIRE(c->fabric().link_down(route[1].first, route[1].second));
  c->run_for(3s);
  CHECK(count_notes(*c, 1, ha::Note::Kind::master_lost, from) == 0);
  CHECK(c->masters() == std::vector<size_t>{0});
  CHECK(c->sm(1).state() == mad::SmState::standby);
  bool rerouted = false;
  for (const std::string& l : c->log_lines(1)) rerouted = rerouted || l.find("W0812") != std::string::npos;
  CHECK(rerouted);
  // Still watching: a master killed now is found lost as quickly as ever.
  const mad::Nanos killed = c->now();
  c->kill(0);
  REQUIRE(c->run_until([&] { return c->masters() == std::vector<size_t>{1}; }, 5s));
  CHECK(c->now() - killed < 1s);
  CHECK(routed(*c));
}

TEST_CASE("MAD loss: polls lost now and then do not make a standby take over") {
  auto c = cluster({{"H00000", 15}, {"H00064", 10}, {"H00127", 5}});
  bring_up(*c);
  const size_t from = c->ha_events().size();
  c->fabric().set_drop_rate(0.05);
  for (int i = 0; i < 10; ++i) {
    c->run_for(500ms);
    CHECK(c->masters() == std::vector<size_t>{0});
  }
  c->fabric().set_drop_rate(0);
  c->run_for(2s);
  CHECK(c->masters() == std::vector<size_t>{0});
  for (size_t sm : {size_t{1}, size_t{2}})
    for (size_t k = from; k < c->ha_events().size(); ++k)
      if (c->ha_events()[k].sm == sm) CHECK_FALSE(c->ha_events()[k].note.text.starts_with("entering Master"));
  CHECK(routed(*c));
}

TEST_CASE("the drill: the same script gives the same figures, twice") {
  auto run = [] {
    auto c = cluster({{"H00000", 15}, {"H00016", 10}, {"H00031", 5}}, "ft2-r8.net");
    cli::DrillOptions o;
    o.settle = 2s;
    auto r = cli::run_drill(*c, o);
    REQUIRE(r);
    return std::move(*r);
  };
  const cli::DrillResult a = run();
  const cli::DrillResult b = run();
  CHECK(a.ok());
  REQUIRE(a.events.size() == b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    INFO(a.events[i].event);
    CHECK(a.events[i].detection_ms == b.events[i].detection_ms);
    CHECK(a.events[i].master_ms == b.events[i].master_ms);
    CHECK(a.events[i].up_ms == b.events[i].up_ms);
    CHECK(a.events[i].lft_blocks == b.events[i].lft_blocks);
    CHECK(a.events[i].rereg_ports == b.events[i].rereg_ports);
    CHECK(a.events[i].masters == b.events[i].masters);
    CHECK(a.events[i].lids_changed == 0);
    CHECK(a.events[i].one_master);
  }
  CHECK(a.events[0].event == "kill");
  CHECK(a.events[0].lft_blocks == 0);
}

// A master whose routing never returns (a hung engine) answers SMInfo all along, with its
// ActCount moving: no standby would notice. Its worker_timeout does: it steps down and hands
// the subnet over, and the standby is master within seconds.
TEST_CASE("hung routing: the master steps down at its worker_timeout and the standby takes over") {
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  auto calls = std::make_shared<std::atomic<int>>(0);
  std::vector<cli::DrillSm> d(2);
  d[0].node = "H00000";
  d[0].cfg.ha.priority = 10;
  d[0].cfg.worker_timeout = 2s;
  d[0].cfg.worker_wait_limit = 50ms;  // wall: then virtual time moves on without the job
  d[0].cfg.routing_hook = [calls, gate] {
    if (calls->fetch_add(1) >= 1) gate.wait();  // the bring-up routes; every later routing hangs
  };
  d[1].node = "H00064";
  d[1].cfg.ha.priority = 5;
  auto made = Cluster::create(load("ft3-r8.net"), {}, std::move(d), sm::Level::error);
  REQUIRE(made);
  Cluster& c = **made;
  bring_up(c);
  REQUIRE(c.masters() == std::vector<size_t>{0});
  const mad::Nanos asked = c.now();
  c.service(0).request_sweep("drill: a resweep whose routing hangs");
  // The old master ends NotActive (its process would exit and be restarted).
  REQUIRE(c.run_until([&] { return c.masters() == std::vector<size_t>{1} && c.sm(1).subnet_up() && !c.sm(1).sweeping(); }, 10s));
  const double s = std::chrono::duration<double>(c.now() - asked).count();
  MESSAGE("the standby is master " << s << " s after the resweep (worker_timeout 2 s)");
  CHECK(s < 5);
  CHECK(c.sm(0).wedged());
  CHECK(c.sm(0).state() == mad::SmState::not_active);
  bool said = false;
  for (const std::string& l : c.log_lines(0)) said = said || l.find("E0410") != std::string::npos;
  CHECK(said);
  CHECK(routed(c));
  release.set_value();
}
