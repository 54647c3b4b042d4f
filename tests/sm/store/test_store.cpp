// The SQLite store: schema and migrations, refusal of newer/foreign/corrupt files, a sweep's
// commit and what a restart reads back, and diff-only commits.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/temp_dir.h"
#include "sm/store/schema.h"
#include "sm/store/store.h"
#include "tests/sm/harness.h"

using namespace smtest;
namespace fs = std::filesystem;
namespace st = sm::store;

namespace {

using testutil::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

int64_t count(st::Store& s, const char* table) {
  return *s.db().scalar(std::string("SELECT count(*) FROM ") + table);
}

// Brings a fabric up and commits its first sweep.
std::unique_ptr<st::Store> commit_first(Run& r, const std::string& path) {
  REQUIRE(r.until_idle());
  auto s = st::Store::open({.path = path});
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  auto c = (*s)->commit(r.subnet(), 1000);
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  return std::move(*s);
}

}  // namespace

TEST_CASE("a new store has the current schema, WAL, and fabricsm's application id") {
  TempDir t;
  st::OpenReport rep;
  const mode_t old = ::umask(022);  // as a shell leaves it: what SQLite alone creates is world-readable
  auto s = st::Store::open({.path = t.file("a.db")}, &rep);
  REQUIRE(s);
  CHECK(rep.created);
  CHECK(rep.version == st::current_version());
  CHECK(*(*s)->db().scalar("PRAGMA user_version") == st::current_version());
  CHECK(*(*s)->db().scalar("PRAGMA application_id") == st::kApplicationId);
  auto mode = (*s)->db().prepare("PRAGMA journal_mode");
  REQUIRE(mode);
  REQUIRE(*mode->step());
  CHECK(mode->text(0) == "wal");
  // Owner-only, the WAL files too.
  REQUIRE((*s)->db().exec("CREATE TABLE probe (x); INSERT INTO probe VALUES (1)"));
  ::umask(old);
  for (const char* f : {"a.db", "a.db-wal", "a.db-shm"}) {
    CAPTURE(f);
    struct stat st {};
    REQUIRE(::stat(t.file(f).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
  }
}

TEST_CASE("a store with a group is 0640 and that group's; an open tightens a readable file") {
  TempDir t;
  // Another group than ours, to see the change (root may give any; others only their own).
  const gid_t other = ::getegid() == 1 ? 2 : 1;
  if (::geteuid() != 0) {
    MESSAGE("not root: cannot give files another group; skipped");
    return;
  }
  {
    auto s = st::Store::open({.path = t.file("g.db"), .group = other});
    REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
    REQUIRE((*s)->db().exec("CREATE TABLE probe (x); INSERT INTO probe VALUES (1)"));
    for (const char* f : {"g.db", "g.db-wal", "g.db-shm"}) {
      CAPTURE(f);
      struct stat st {};
      REQUIRE(::stat(t.file(f).c_str(), &st) == 0);
      CHECK((st.st_mode & 0777) == 0640);
      CHECK(st.st_gid == other);
    }
  }
  // A store left world-readable (a copy, an older fabricsm): owner-only again when opened.
  REQUIRE(::chmod(t.file("g.db").c_str(), 0644) == 0);
  auto s = st::Store::open({.path = t.file("g.db")});
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  struct stat st {};
  REQUIRE(::stat(t.file("g.db").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("an older schema is upgraded and keeps its data") {
  TempDir t;
  {
    auto db = st::Db::open(t.file("old.db"), st::Db::Mode::read_write_create);
    REQUIRE(db);
    REQUIRE(st::migrate(*db, 0, 1));
    REQUIRE(db->exec("INSERT INTO lids VALUES (4242, 17, 0, 1, 1)"));
  }
  st::OpenReport rep;
  auto s = st::Store::open({.path = t.file("old.db")}, &rep);
  REQUIRE(s);
  CHECK(rep.from_version == 1);
  CHECK(rep.version == st::current_version());
  auto lids = (*s)->load_lids();
  REQUIRE(lids);
  CHECK(lids->at(sm::Guid(4242)).lid == sm::Lid(17));
  CHECK(count(**s, "sm_peers") == 0);  // a table version 2 added
}

TEST_CASE("a newer schema is refused and left untouched") {
  TempDir t;
  { REQUIRE(st::Store::open({.path = t.file("new.db")})); }
  {
    auto db = st::Db::open(t.file("new.db"), st::Db::Mode::read_write);
    REQUIRE(db->exec(fmt::format("PRAGMA user_version = {}", st::current_version() + 1)));
  }
  const std::string before = slurp(t.file("new.db"));
  auto s = st::Store::open({.path = t.file("new.db"), .on_corrupt = st::OnCorrupt::start_fresh});
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("newer than this fabricsm") != std::string::npos);
  CHECK(slurp(t.file("new.db")) == before);
}

TEST_CASE("a corrupt file is refused, or kept aside and replaced, as configured") {
  TempDir t;
  { std::ofstream(t.file("bad.db")) << "this is not an SQLite database, it is a grocery list\n"; }
  const std::string before = slurp(t.file("bad.db"));
  auto refused = st::Store::open({.path = t.file("bad.db")});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("bad.db") != std::string::npos);
  CHECK(slurp(t.file("bad.db")) == before);

  st::OpenReport rep;
  auto fresh = st::Store::open({.path = t.file("bad.db"), .on_corrupt = st::OnCorrupt::start_fresh}, &rep);
  REQUIRE(fresh);
  CHECK(rep.created);
  REQUIRE_FALSE(rep.set_aside.empty());
  CHECK(slurp(rep.set_aside) == before);  // kept, never deleted
}

TEST_CASE("another program's SQLite database is not a fabricsm store") {
  TempDir t;
  {
    auto db = st::Db::open(t.file("other.db"), st::Db::Mode::read_write_create);
    REQUIRE(db->exec("PRAGMA application_id = 1234; CREATE TABLE recipes (name TEXT);"));
  }
  auto s = st::Store::open({.path = t.file("other.db")});
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("not a fabricsm database") != std::string::npos);
}

TEST_CASE("a sweep's commit holds the fabric, the LIDs and the programmed tables") {
  TempDir t;
  Run r(load("ft3-r8.net"));
  auto s = commit_first(r, t.file("f.db"));
  CHECK(count(*s, "nodes") == 208);
  CHECK(count(*s, "lids") == 208);
  CHECK(count(*s, "links") == 384);
  CHECK(count(*s, "switch_lfts") == 80);
  CHECK(count(*s, "sweeps") == 1);
  // Nothing changed: a second commit writes the sweep row and nothing else.
  REQUIRE(r.sweep_again());
  auto c = s->commit(r.subnet(), 2000);
  REQUIRE(c);
  CHECK(c->nodes == 0);
  CHECK(c->ports == 0);
  CHECK(c->links == 0);
  CHECK(c->lids == 0);
  CHECK(c->switches == 0);
  // A link goes down: only its ports and the link row change.
  REQUIRE(r.fabric->link_down(*r.fabric->find("S1_00_00"), 5));
  REQUIRE(r.run_for(std::chrono::seconds(1)));
  c = s->commit(r.subnet(), 3000);
  REQUIRE(c);
  CHECK(c->links == 1);
  CHECK(c->ports >= 2);
  CHECK(c->nodes == 0);
  CHECK(count(*s, "links") == 383);
  // After a takeover on a shared database another SM may have written rows: every row again.
  s->forget_written();
  c = s->commit(r.subnet(), 4000);
  REQUIRE(c);
  CHECK(c->nodes == 208);
  CHECK(c->lids == 208);
  CHECK(c->switches == 80);
  // What a restart reads back.
  auto lids = s->load_lids();
  REQUIRE(lids);
  CHECK(lids->size() == r.subnet().lids->size());
  for (const auto& [g, e] : *r.subnet().lids) CHECK(lids->at(g).lid == e.lid);
  auto mem = s->load_lft_memory();
  REQUIRE(mem);
  const fabric::Topology& topo = r.topo();
  size_t switches = 0;
  for (fabric::NodeId sw : topo.switches()) {
    const sm::SwitchMemory* m = r.subnet().lft(sw);
    REQUIRE(m);
    const sm::SwitchMemory* back = mem->find(topo.node(sw).guid);
    REQUIRE(back);
    CHECK(back->block_hash == m->block_hash);
    CHECK(back->top == m->top);
    CHECK(back->lid == m->lid);
    ++switches;
  }
  CHECK(mem->size() == switches);
}

TEST_CASE("restart keeps LIDs: a fresh SM with the store gives every known GUID its old LID") {
  TempDir t;
  sm::LidMap saved;
  {
    Run r(load("ft3-r8.net"));
    auto s = commit_first(r, t.file("k.db"));
    saved = *r.subnet().lids;
  }
  // The same fabric, but ten CAs are gone (a fresh assignment would close the gap) and the
  // nodes come in another order.
  auto spec = load("ft3-r8.net");
  std::reverse(spec.nodes.begin(), spec.nodes.end());
  const size_t n = spec.nodes.size();
  for (auto& l : spec.links) {
    l.a = static_cast<uint32_t>(n - 1 - l.a);
    l.b = static_cast<uint32_t>(n - 1 - l.b);
  }
  std::rotate(spec.nodes.begin(), spec.nodes.begin() + static_cast<long>(n - 1), spec.nodes.end());  // SM's CA first
  for (auto& l : spec.links) {
    l.a = (l.a + 1) % static_cast<uint32_t>(n);
    l.b = (l.b + 1) % static_cast<uint32_t>(n);
  }
  std::vector<std::string> gone;
  for (const auto& node : spec.nodes)
    if (node.name.starts_with("H0001")) gone.push_back(node.name);  // H00010..H00019
  REQUIRE(gone.size() == 10);
  auto s = st::Store::open({.path = t.file("k.db")});
  REQUIRE(s);
  auto lids = (*s)->load_lids();
  REQUIRE(lids);
  Run r(std::move(spec));
  for (const auto& name : gone) REQUIRE(r.fabric->link_down(*r.fabric->find(name), 1));
  r.start(sm::SmConfig{}, sm::Remembered{std::move(*lids), {}});
  REQUIRE(r.until_idle());
  CHECK(r.sm->last_sweep().lids.restored == 198);
  for (const auto& [guid, lid] : r.lids()) CHECK(saved.at(sm::Guid(guid)).lid == sm::Lid(lid));
  // The missing CAs come back later: to their old LIDs, which nobody took meanwhile.
  for (const auto& name : gone) REQUIRE(r.fabric->link_up(*r.fabric->find(name), 1));
  REQUIRE(r.run_for(std::chrono::seconds(1)));
  CHECK(r.lids().size() == 208);
  for (const auto& [guid, lid] : r.lids()) CHECK(saved.at(sm::Guid(guid)).lid == sm::Lid(lid));
}

TEST_CASE("SA objects survive a restart; the latest state per key wins, an empty record deletes") {
  TempDir tmp;
  const std::string path = tmp.file("sa.db");
  auto obj = [](std::string kind, uint8_t key, std::vector<uint8_t> rec, int64_t exp = 0) {
    return st::SaObject{std::move(kind), {key}, std::move(rec), exp};
  };
  {
    auto s = st::Store::open({path});
    REQUIRE(s);
    (*s)->note_sa_object(obj("service", 1, {1, 2, 3}, 5000));
    (*s)->note_sa_object(obj("service", 2, {9}));
    (*s)->note_sa_object(obj("mcgroup", 1, {7}));
    (*s)->note_sa_object(obj("service", 1, {4, 5}, 6000));  // replaces the first before it is written
    REQUIRE(*(*s)->flush_events() == 0);                      // no events, but the objects went out
    CHECK(count(**s, "sa_objects") == 3);
    (*s)->note_sa_object(obj("service", 2, {}));  // deleted
    REQUIRE((*s)->flush_events());
  }
  auto s = st::Store::open({path});
  REQUIRE(s);
  auto back = (*s)->load_sa_objects();
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  CHECK((*back)[0] == obj("mcgroup", 1, {7}));
  CHECK((*back)[1] == obj("service", 1, {4, 5}, 6000));
}

TEST_CASE("cables keep first and last seen; one that goes stays listed, absent, until it returns") {
  TempDir t;
  Run r(load("ft3-r8.net"));
  auto s = commit_first(r, t.file("c.db"));  // at 1000
  auto q = [&](const std::string& sql) { return *s->db().scalar(sql); };
  CHECK(count(*s, "cables") == 384);
  CHECK(q("SELECT count(*) FROM cables WHERE present = 1 AND first_seen = 1000 AND last_seen = 1000") == 384);
  REQUIRE(r.fabric->link_down(*r.fabric->find("S1_00_00"), 5));
  REQUIRE(r.run_for(std::chrono::seconds(1)));
  REQUIRE(s->commit(r.subnet(), 3000));
  CHECK(count(*s, "cables") == 384);
  CHECK(q("SELECT count(*) FROM cables WHERE present = 0") == 1);
  CHECK(q("SELECT first_seen FROM cables WHERE present = 0") == 1000);
  CHECK(q("SELECT last_seen FROM cables WHERE present = 0") == 3000);
  REQUIRE(r.fabric->link_up(*r.fabric->find("S1_00_00"), 5));
  REQUIRE(r.run_for(std::chrono::seconds(1)));
  REQUIRE(s->commit(r.subnet(), 5000));
  CHECK(q("SELECT count(*) FROM cables WHERE present = 0") == 0);
  CHECK(q("SELECT count(*) FROM cables WHERE first_seen = 1000 AND last_seen = 5000") == 1);
  // A cable that went while no SM ran: the next process's first commit marks it absent.
  REQUIRE(r.fabric->link_down(*r.fabric->find("S1_00_01"), 5));
  REQUIRE(r.run_for(std::chrono::seconds(1)));
  s.reset();
  auto again = st::Store::open({.path = t.file("c.db")});
  REQUIRE(again);
  REQUIRE((*again)->commit(r.subnet(), 7000));
  CHECK(*(*again)->db().scalar("SELECT count(*) FROM cables WHERE present = 0") == 1);
  CHECK(*(*again)->db().scalar("SELECT count(*) FROM links") == 383);
}

TEST_CASE("sweep numbers go on across a restart") {
  TempDir t;
  Run r(load("ft2-r8.net"));
  auto s = commit_first(r, t.file("n.db"));
  REQUIRE(r.sweep_again());
  REQUIRE(s->commit(r.subnet(), 2000));
  auto last = s->last_sweep();
  REQUIRE(last);
  CHECK(*last == r.sm->last_sweep().number);
  CHECK(*last >= 2);
  Run next(load("ft2-r8.net"));
  next.start(sm::SmConfig{}, sm::Remembered{*s->load_lids(), {}, *last});
  REQUIRE(next.until_idle());
  CHECK(next.sm->last_sweep().number == *last + 1);
}
