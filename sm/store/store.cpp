#include "sm/store/store.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "sm/store/schema.h"

namespace sm::store {

namespace {

// A row's content in 64 bits: commits compare it with what this process last wrote.
struct RowHash {
  uint64_t h = 0xCBF29CE484222325ULL;
  RowHash& add(uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0x100000001B3ULL;
    return *this;
  }
  RowHash& add(std::string_view s) {
    for (char c : s) add(static_cast<uint8_t>(c));
    return add(s.size());
  }
};

bool exists(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

// The store's files get the mode the operator chose (0600, or 0640 and the group) each time it
// is opened for writing, so a file left readable by an older version or a copy is tightened;
// files already so are not touched. SQLite gives the -wal and -shm files it creates later the
// database's mode (and, running as root, its owner and group).
mad::Result<void> restrict_mode(const OpenOptions& o) {
  const mode_t mode = o.group ? 0640 : 0600;
  for (const char* ext : {"", "-wal", "-shm"}) {
    const std::string p = o.path + ext;
    struct stat st{};
    if (::stat(p.c_str(), &st) != 0) continue;  // SQLite makes -wal and -shm when it needs them
    if (o.group && st.st_gid != *o.group &&
        ::chown(p.c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(*o.group)) != 0)
      return mad::fail(mad::Errc::io, fmt::format("{}: cannot give it group {}: {}", p, *o.group, std::strerror(errno)));
    if ((st.st_mode & 07777) != mode && ::chmod(p.c_str(), mode) != 0)
      return mad::fail(mad::Errc::io, fmt::format("{}: cannot set mode {:04o}: {}", p, mode, std::strerror(errno)));
  }
  return {};
}

// Why `db` is not a healthy fabricsm database, or "" when it is.
std::string health(Db& db) {
  auto check = db.prepare("PRAGMA quick_check");
  if (!check) return check.error().message;
  auto row = check->step();
  if (!row) return row.error().message;
  if (!*row || check->text(0) != "ok") return "integrity check failed: " + (*row ? check->text(0) : "");
  auto app = db.scalar("PRAGMA application_id");
  auto ver = db.scalar("PRAGMA user_version");
  auto tables = db.scalar("SELECT count(*) FROM sqlite_master");
  if (!app || !ver || !tables) return "unreadable header";
  if (*app != kApplicationId && !(*app == 0 && *ver == 0 && *tables == 0))
    return fmt::format("not a fabricsm database (application id 0x{:08x})", *app);
  return "";
}

mad::Result<void> set_pragmas(Db& db) {
  // WAL: `fabricsm show` reads while the daemon writes. FULL: a committed sweep survives
  // power loss too, at one fsync per sweep.
  return db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
                 "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY;");
}

}  // namespace

struct Store::Prepared {
  Stmt sweep, node, node_gone, node_seen, port, ports_of, lid, lid_seen, lft, event, peer, sa_put, sa_erase;
  Stmt cable_up, cable_down, cables_of, cables_seen, cables_unseen;
};

mad::Result<std::unique_ptr<Store>> Store::open(const OpenOptions& o, OpenReport* report) {
  OpenReport rep;
  auto finish = [&](Db db) -> mad::Result<std::unique_ptr<Store>> {
    std::unique_ptr<Store> s(new Store(std::move(db), o.path));
    if (!o.read_only)
      if (auto r = s->prepare_all(); !r) return std::unexpected(r.error());
    if (report) *report = rep;
    return s;
  };
  if (o.read_only) {
    auto db = Db::open(o.path, Db::Mode::read_only);
    if (!db) return std::unexpected(db.error());
    if (auto why = health(*db); !why.empty()) return mad::fail(mad::Errc::invalid, fmt::format("{}: {}", o.path, why));
    auto ver = db->scalar("PRAGMA user_version");
    if (!ver || *ver != current_version())
      return mad::fail(mad::Errc::unsupported,
                       fmt::format("{}: schema version {} (this fabricsm reads {}); let the daemon "
                                   "open it once to upgrade it",
                                   o.path, ver ? *ver : -1, current_version()));
    rep.version = rep.from_version = static_cast<int>(*ver);
    return finish(std::move(*db));
  }

  bool fresh = !exists(o.path);
  if (!fresh) {
    if (auto r = restrict_mode(o); !r) return std::unexpected(r.error());
    auto db = Db::open(o.path, Db::Mode::read_write);
    std::string why = db ? health(*db) : db.error().message;
    if (why.empty()) {
      auto ver = db->scalar("PRAGMA user_version");
      if (!ver) return std::unexpected(ver.error());
      rep.from_version = static_cast<int>(*ver);
      if (auto r = migrate(*db, rep.from_version); !r)
        return mad::fail(r.error().code, fmt::format("{}: {}", o.path, r.error().message));
      if (auto r = set_pragmas(*db); !r) return std::unexpected(r.error());
      rep.version = current_version();
      return finish(std::move(*db));
    }
    if (o.on_corrupt == OnCorrupt::refuse)
      return mad::fail(mad::Errc::invalid,
                       fmt::format("{}: {}; left as it is (set on_corrupt_db = fresh to keep it "
                                   "aside and start from the fabric)",
                                   o.path, why));
    if (db) *db = Db();  // close before moving it
    rep.set_aside = fmt::format("{}.corrupt-{}", o.path,
                                std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::system_clock::now().time_since_epoch()).count());
    if (std::rename(o.path.c_str(), rep.set_aside.c_str()) != 0)
      return mad::fail(mad::Errc::io, fmt::format("{}: {}; cannot move it aside to {}", o.path, why, rep.set_aside));
    for (const char* ext : {"-wal", "-shm"})
      (void)std::rename((o.path + ext).c_str(), (rep.set_aside + ext).c_str());
    fresh = true;
  }
  // Owner-only from the start (SQLite gives its -wal and -shm files the database's mode): the
  // store names every node and port of the fabric.
  if (const int fd = ::open(o.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600); fd >= 0) ::close(fd);
  if (auto r = restrict_mode(o); !r) return std::unexpected(r.error());
  auto db = Db::open(o.path, Db::Mode::read_write_create);
  if (!db) return std::unexpected(db.error());
  if (auto r = set_pragmas(*db); !r) return std::unexpected(r.error());
  if (auto r = migrate(*db, 0); !r) return std::unexpected(r.error());
  rep.created = true;
  rep.version = current_version();
  return finish(std::move(*db));
}

mad::Result<void> Store::prepare_all() {
  auto p = std::make_shared<Prepared>();
  struct Item {
    Stmt* s;
    const char* sql;
  };
  const Item items[] = {
      {&p->sweep, "INSERT INTO sweeps (number, started, heavy, trigger, up, failure, switches, cas, links, "
                  "max_lid, engine, smps, retried, timed_out, lft_blocks, port_sets, discovery_ms, lids_ms, "
                  "routing_ms, programming_ms, total_ms, pruned) VALUES "
                  "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)"},
      {&p->node, "INSERT INTO nodes VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?8,1) ON CONFLICT(guid) DO UPDATE SET "
                 "type=?2, num_ports=?3, description=?4, system_guid=?5, vendor_id=?6, device_id=?7, "
                 "last_seen=?8, present=1"},
      {&p->node_gone, "UPDATE nodes SET present=0, last_seen=?2 WHERE guid=?1"},
      {&p->node_seen, "UPDATE nodes SET last_seen=?1 WHERE present=1"},
      {&p->port, "INSERT OR REPLACE INTO ports VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)"},
      {&p->ports_of, "DELETE FROM ports WHERE node_guid=?1"},
      {&p->lid, "INSERT INTO lids VALUES (?1,?2,?3,?4,?4) ON CONFLICT(port_guid) DO UPDATE SET "
                "lid=?2, lmc=?3, last_seen=?4"},
      {&p->lid_seen, "UPDATE lids SET last_seen=?1 WHERE port_guid IN "
                     "(SELECT port_guid FROM ports WHERE port_guid != 0)"},
      {&p->lft, "INSERT OR REPLACE INTO switch_lfts VALUES (?1,?2,?3,?4,?5,?6)"},
      {&p->event, "INSERT INTO events (time, level, code, message) VALUES (?1,?2,?3,?4)"},
      {&p->peer, "INSERT INTO sm_peers VALUES (?1,?2,?3,?4,?5,?6,?7,?7) ON CONFLICT(guid) DO UPDATE SET "
                 "lid=?2, priority=?3, state=?4, act_count=?5, sm_key_ok=?6, last_heard=?7"},
      {&p->sa_put, "INSERT OR REPLACE INTO sa_objects VALUES (?1,?2,?3,?4,?5)"},
      {&p->sa_erase, "DELETE FROM sa_objects WHERE kind=?1 AND key=?2"},
      {&p->cable_up, "INSERT INTO cables VALUES (?1,?2,?3,?4,?5,?5,1) ON CONFLICT DO UPDATE SET present=1, "
                     "last_seen=?5"},
      {&p->cable_down, "UPDATE cables SET present=0, last_seen=?5 WHERE a_guid=?1 AND a_port=?2 AND b_guid=?3 "
                       "AND b_port=?4 AND present=1"},
      {&p->cables_of, "UPDATE cables SET present=0, last_seen=?2 WHERE present=1 AND (a_guid=?1 OR b_guid=?1)"},
      {&p->cables_seen, "UPDATE cables SET last_seen=?1 WHERE present=1"},
      // After a start (nothing written yet by this process): cables that went while it was down.
      {&p->cables_unseen, "UPDATE cables SET present=0 WHERE present=1 AND NOT EXISTS (SELECT 1 FROM links l "
                          "WHERE l.a_guid=cables.a_guid AND l.a_port=cables.a_port AND l.b_guid=cables.b_guid "
                          "AND l.b_port=cables.b_port)"},
  };
  for (const Item& it : items) {
    auto s = db_.prepare(it.sql);
    if (!s) return std::unexpected(s.error());
    *it.s = std::move(*s);
  }
  st_ = std::move(p);
  return {};
}

mad::Result<std::vector<GoneCable>> Store::load_gone_cables() {
  auto q = db_.prepare("SELECT c.a_guid, c.a_port, coalesce(a.description, ''), c.b_guid, c.b_port, "
                       "coalesce(b.description, ''), c.last_seen FROM cables c LEFT JOIN nodes a ON a.guid = c.a_guid "
                       "LEFT JOIN nodes b ON b.guid = c.b_guid WHERE c.present = 0 ORDER BY c.a_guid, c.a_port");
  if (!q) return std::unexpected(q.error());
  std::vector<GoneCable> out;
  while (true) {
    auto r = q->step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    out.push_back({Guid(q->u64(0)), static_cast<uint8_t>(q->i64(1)), q->text(2), Guid(q->u64(3)),
                   static_cast<uint8_t>(q->i64(4)), q->text(5), q->i64(6)});
  }
  return out;
}

mad::Result<LidMap> Store::load_lids() {
  auto q = db_.prepare("SELECT port_guid, lid, lmc FROM lids");
  if (!q) return std::unexpected(q.error());
  LidMap m;
  while (true) {
    auto row = q->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    const uint64_t g = q->u64(0);
    m[Guid(g)] = LidEntry{Lid(static_cast<uint16_t>(q->i64(1))), static_cast<uint8_t>(q->i64(2))};
    lid_rows_[g] = RowHash().add(static_cast<uint64_t>(q->i64(1))).add(static_cast<uint64_t>(q->i64(2))).h;
  }
  return m;
}

mad::Result<uint64_t> Store::last_sweep() {
  auto n = db_.scalar("SELECT coalesce(max(number), 0) FROM sweeps");
  if (!n) return std::unexpected(n.error());
  return static_cast<uint64_t>(*n);
}

mad::Result<LftMemory> Store::load_lft_memory() {
  auto q = db_.prepare("SELECT switch_guid, lid, top, lft, known FROM switch_lfts");
  if (!q) return std::unexpected(q.error());
  LftMemory mem;
  while (true) {
    auto row = q->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    SwitchMemory m;
    m.lid = Lid(static_cast<uint16_t>(q->i64(1)));
    m.top = static_cast<uint16_t>(q->i64(2));
    const auto lft = q->blob(3);
    const auto known = q->blob(4);
    const size_t blocks = lft.size() / 64;
    m.block_hash.assign(blocks, 0);
    RowHash rh;
    rh.add(m.lid.value()).add(m.top);
    for (size_t b = 0; b < blocks; ++b) {
      if (b / 8 < known.size() && (known[b / 8] >> (b % 8)) & 1)
        m.block_hash[b] = lft_block_hash(std::span<const uint8_t, 64>(lft.data() + b * 64, 64));
      rh.add(m.block_hash[b]);
    }
    lft_rows_[q->u64(0)] = rh.h;
    mem.put(Guid(q->u64(0)), std::move(m));
  }
  return mem;
}

mad::Result<size_t> Store::write_events() {
  for (const Event& e : events_)
    if (auto r = st_->event.bind(1, e.time_ms).bind(2, e.level).bind(3, e.code).bind(4, e.message).run(); !r)
      return std::unexpected(r.error());
  const size_t n = events_.size();
  events_.clear();
  for (const auto& [g, r] : peers_)
    if (auto w = st_->peer.bind(1, r.guid).bind(2, r.lid).bind(3, r.priority).bind(4, r.state)
                     .bind(5, r.act_count).bind(6, r.sm_key_ok ? 1 : 0).bind(7, r.heard_ms).run(); !w)
      return std::unexpected(w.error());
  peers_.clear();
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  for (const auto& [k, o] : sa_objects_) {
    auto w = o.record.empty()
                 ? st_->sa_erase.bind(1, o.kind).bind_blob(2, o.key).run()
                 : st_->sa_put.bind(1, o.kind).bind_blob(2, o.key).bind_blob(3, o.record).bind(4, o.expires_ms)
                       .bind(5, now).run();
    if (!w) return std::unexpected(w.error());
  }
  sa_objects_.clear();
  return n;
}

void Store::forget_written() {
  node_rows_.clear();
  lft_rows_.clear();
  port_rows_.clear();
  lid_rows_.clear();
  counter_rows_.clear();
}

void Store::note_sa_object(SaObject o) {
  auto key = std::make_pair(o.kind, o.key);
  sa_objects_[std::move(key)] = std::move(o);
}

mad::Result<std::vector<SaObject>> Store::load_sa_objects() {
  auto q = db_.prepare("SELECT kind, key, record, expires FROM sa_objects ORDER BY kind, key");
  if (!q) return std::unexpected(q.error());
  std::vector<SaObject> out;
  while (true) {
    auto row = q->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    const auto key = q->blob(1);
    const auto rec = q->blob(2);
    out.push_back(SaObject{q->text(0), {key.begin(), key.end()}, {rec.begin(), rec.end()}, q->i64(3)});
  }
  return out;
}

mad::Result<size_t> Store::flush_events() {
  if (events_.empty() && peers_.empty() && sa_objects_.empty()) return 0;
  auto tx = Transaction::begin(db_);
  if (!tx) return std::unexpected(tx.error());
  auto n = write_events();
  if (!n) return n;
  if (auto r = tx->commit(); !r) return std::unexpected(r.error());
  return n;
}

mad::Result<CommitStats> Store::commit(const Subnet& subnet, int64_t now_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  const SweepReport& s = subnet.sweep;
  const Topology& topo = *subnet.topology;
  CommitStats cs;
  auto tx = Transaction::begin(db_);
  if (!tx) return std::unexpected(tx.error());
  Prepared& p = *st_;
#define FSM_TRY(expr) \
  if (auto r_ = (expr); !r_) return std::unexpected(r_.error())
  FSM_TRY(p.sweep.bind(1, s.number).bind(2, now_ms - static_cast<int64_t>(s.total.wall_ms)).bind(3, s.heavy ? 1 : 0)
              .bind(4, s.trigger).bind(5, s.up ? 1 : 0).bind(6, s.failure).bind(7, s.switches).bind(8, s.cas)
              .bind(9, s.links).bind(10, s.max_lid).bind(11, s.engine).bind(12, s.smps_sent)
              .bind(13, s.smps_retried).bind(14, s.smps_timed_out).bind(15, s.program.lft_blocks_written)
              .bind(16, s.program.port_sets).bind(17, s.discovery.wall_ms).bind(18, s.lid_assignment.wall_ms)
              .bind(19, s.routing.wall_ms).bind(20, s.programming.wall_ms).bind(21, s.total.wall_ms)
              .bind(22, s.pruned).run());

  // Nodes and their ports (with the cable on each); nodes that left are kept, marked absent,
  // their ports dropped.
  std::unordered_set<uint64_t> present;
  present.reserve(topo.node_count());
  size_t cable_ends = 0;
  const bool first_commit = port_rows_.empty();
  // A cable from its lower end, in the links view's order (GUIDs as SQLite holds them).
  auto cable = [&](Stmt& st, uint64_t g, uint8_t port, uint64_t peer, uint8_t peer_port) {
    const auto a = std::make_pair(static_cast<int64_t>(g), port);
    const auto b = std::make_pair(static_cast<int64_t>(peer), peer_port);
    const bool lower = a < b;
    return st.bind(1, lower ? g : peer).bind(2, lower ? port : peer_port).bind(3, lower ? peer : g)
        .bind(4, lower ? peer_port : port).bind(5, now_ms).run();
  };
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    const uint64_t g = n.guid.value();
    present.insert(g);
    const uint64_t h = RowHash().add(static_cast<uint64_t>(n.type)).add(n.num_ports).add(n.description)
                           .add(n.system_guid.value()).add(n.vendor_id).add(n.device_id).h;
    if (auto it = node_rows_.find(g); it == node_rows_.end() || it->second != h) {
      FSM_TRY(p.node.bind(1, g).bind(2, static_cast<int>(n.type)).bind(3, n.num_ports).bind(4, n.description)
                  .bind(5, n.system_guid.value()).bind(6, n.vendor_id).bind(7, n.device_id).bind(8, now_ms).run());
      node_rows_[g] = h;
      ++cs.nodes;
    }
    const NodeRec* rec = subnet.node(id);
    for (const Port& q : topo.ports(id)) {
      if (!n.is_switch() && q.num.value() == 0) continue;
      if (!rec || q.num.value() >= rec->ports.size() || !rec->ports[q.num.value()].have_info) continue;
      const mad::PortInfo& pi = rec->ports[q.num.value()].info;  // as last read or written
      const uint64_t key = g << 8 | q.num.value();
      const uint64_t peer = q.linked() ? topo.node(q.peer).guid.value() : 0;
      const uint8_t peer_port = q.linked() ? q.peer_port.value() : 0;
      const uint64_t ph = RowHash().add(q.guid.value()).add(pi.lid.value()).add(pi.lmc)
                              .add(static_cast<uint64_t>(pi.port_state)).add(static_cast<uint64_t>(pi.phys_state))
                              .add(pi.link_width_active).add(pi.link_speed_active).add(pi.link_speed_ext_active)
                              .add(peer).add(peer_port).h;
      auto it = port_rows_.find(key);
      if (it != port_rows_.end() && it->second.hash == ph) continue;
      const bool was = it != port_rows_.end() && it->second.peer != 0;
      if (was ? it->second.peer != peer || it->second.peer_port != peer_port : peer != 0) {  // came, went, moved
        ++cable_ends;
        if (was) FSM_TRY(cable(p.cable_down, g, q.num.value(), it->second.peer, it->second.peer_port));
        if (peer != 0) FSM_TRY(cable(p.cable_up, g, q.num.value(), peer, peer_port));
      }
      FSM_TRY(p.port.bind(1, g).bind(2, q.num.value()).bind(3, q.guid.value()).bind(4, pi.lid.value())
                  .bind(5, pi.lmc).bind(6, static_cast<int>(pi.port_state))
                  .bind(7, static_cast<int>(pi.phys_state)).bind(8, pi.link_width_active)
                  .bind(9, pi.link_speed_active).bind(10, pi.link_speed_ext_active).bind(11, peer)
                  .bind(12, peer_port).run());
      port_rows_[key] = PortRow{ph, peer, peer_port};
      ++cs.ports;
    }
  }
  for (auto it = node_rows_.begin(); it != node_rows_.end();) {
    if (present.contains(it->first)) {
      ++it;
      continue;
    }
    FSM_TRY(p.node_gone.bind(1, it->first).bind(2, now_ms).run());
    FSM_TRY(p.ports_of.bind(1, it->first).run());
    FSM_TRY(p.cables_of.bind(1, it->first).bind(2, now_ms).run());
    for (auto pit = port_rows_.begin(); pit != port_rows_.end();)
      pit = (pit->first >> 8) == it->first ? port_rows_.erase(pit) : std::next(pit);
    ++cs.nodes;
    it = node_rows_.erase(it);
  }
  cs.links = (cable_ends + 1) / 2;  // each cable has two ends
  if (first_commit) FSM_TRY(p.cables_unseen.run());
  // The GUID -> LID map (entries are kept for absent ports: they come back to the same LID).
  for (const auto& [g, e] : *subnet.lids) {
    const uint64_t h = RowHash().add(e.lid.value()).add(e.lmc).h;
    if (auto it = lid_rows_.find(g.value()); it != lid_rows_.end() && it->second == h) continue;
    FSM_TRY(p.lid.bind(1, g.value()).bind(2, e.lid.value()).bind(3, e.lmc).bind(4, now_ms).run());
    lid_rows_[g.value()] = h;
    ++cs.lids;
  }
  if (s.heavy) {  // "last seen" moves once per heavy sweep, not on every small change
    FSM_TRY(p.node_seen.bind(1, now_ms).run());
    FSM_TRY(p.lid_seen.bind(1, now_ms).run());
    FSM_TRY(p.cables_seen.bind(1, now_ms).run());
  }
  // Programmed LFTs: the entries routing asked for, and which blocks are known written.
  for (NodeId sw : topo.switches()) {
    const Guid g = topo.node(sw).guid;
    const SwitchMemory* held = subnet.lft(sw);
    if (!held || !subnet.tables || !subnet.tables->has_table(sw)) continue;
    const SwitchMemory& mem = *held;
    const routing::RoutingTables& tables = *subnet.tables;
    RowHash rh;
    rh.add(mem.lid.value()).add(mem.top);
    for (uint64_t bh : mem.block_hash) rh.add(bh);
    if (auto it = lft_rows_.find(g.value()); it != lft_rows_.end() && it->second == rh.h) continue;
    const auto lft = tables.lft(sw);
    std::vector<uint8_t> content(mem.block_hash.size() * 64, routing::kNoRoute);
    std::copy_n(lft.begin(), std::min(lft.size(), content.size()), content.begin());
    std::vector<uint8_t> known((mem.block_hash.size() + 7) / 8, 0);
    for (size_t b = 0; b < mem.block_hash.size(); ++b)
      if (mem.block_hash[b]) known[b / 8] = static_cast<uint8_t>(known[b / 8] | (1u << (b % 8)));
    FSM_TRY(p.lft.bind(1, g.value()).bind(2, mem.lid.value()).bind(3, mem.top).bind_blob(4, content)
                .bind_blob(5, known).bind(6, now_ms).run());
    lft_rows_[g.value()] = rh.h;
    ++cs.switches;
  }
  auto ev = write_events();
  if (!ev) return std::unexpected(ev.error());
  cs.events = *ev;
  FSM_TRY(tx->commit());
#undef FSM_TRY
  cs.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return cs;
}

}  // namespace sm::store
