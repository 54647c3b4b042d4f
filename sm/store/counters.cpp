// The PerfMgr's part of the store: one transaction per counter sweep, only the port rows that
// changed (an idle port costs nothing), samples of the totals at most every sample interval,
// and the retention applied in the same transaction.
#include <chrono>
#include <cstring>

#include "sm/store/store.h"

namespace sm::store {

namespace {

using perfmgr::Finding;
using perfmgr::kCounters;
using perfmgr::PortEnd;
using perfmgr::PortSample;

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h * 0x100000001B3ULL;
}
uint64_t mix(uint64_t h, std::string_view s) {
  for (char c : s) h = mix(h, static_cast<uint8_t>(c));
  return mix(h, s.size());
}

// Rates as 32-bit floats (7 digits are plenty for a rate), little-endian hosts only.
std::vector<uint8_t> floats(const std::array<double, kCounters>& v) {
  std::array<float, kCounters> f{};
  for (size_t i = 0; i < kCounters; ++i) f[i] = static_cast<float>(v[i]);
  std::vector<uint8_t> out(sizeof f);
  std::memcpy(out.data(), f.data(), out.size());
  return out;
}
std::array<double, kCounters> unfloats(std::span<const uint8_t> b) {
  std::array<float, kCounters> f{};
  std::array<double, kCounters> v{};
  if (b.size() != sizeof f) return v;
  std::memcpy(f.data(), b.data(), b.size());
  for (size_t i = 0; i < kCounters; ++i) v[i] = f[i];
  return v;
}

// LEB128: error counters are small, so a sample is mostly one byte per counter.
std::vector<uint8_t> varints(const std::array<uint64_t, kCounters>& v) {
  std::vector<uint8_t> out;
  out.reserve(kCounters * 2);
  for (uint64_t x : v) {
    do {
      uint8_t b = x & 0x7F;
      x >>= 7;
      out.push_back(static_cast<uint8_t>(b | (x ? 0x80 : 0)));
    } while (x);
  }
  return out;
}

std::array<uint64_t, kCounters> unvarints(std::span<const uint8_t> b) {
  std::array<uint64_t, kCounters> v{};
  size_t at = 0;
  for (size_t i = 0; i < kCounters && at < b.size(); ++i) {
    uint64_t x = 0;
    for (int shift = 0; at < b.size() && shift < 64; shift += 7) {
      const uint8_t c = b[at++];
      x |= static_cast<uint64_t>(c & 0x7F) << shift;
      if (!(c & 0x80)) break;
    }
    v[i] = x;
  }
  return v;
}

uint64_t row_hash(const PortSample& p) {
  uint64_t h = mix(0xCBF29CE484222325ULL, p.local.lid);
  h = mix(h, p.local.description);
  if (p.remote) h = mix(mix(mix(h, p.remote->node.value()), p.remote->port), p.remote->description);
  for (size_t i = 0; i < kCounters; ++i) h = mix(mix(h, p.totals[i]), static_cast<uint64_t>(p.rates[i] * 1000));
  return mix(mix(h, p.failures), p.extended);
}

PortEnd end_at(const Stmt& q, int col) {
  return PortEnd{.node = Guid(q.u64(col)), .description = q.text(col + 3), .port = static_cast<uint8_t>(q.i64(col + 1)),
                 .lid = static_cast<uint16_t>(q.i64(col + 2)), .is_switch = q.i64(col + 4) != 0};
}

}  // namespace

#define FSM_TRY(expr) \
  if (auto r_ = (expr); !r_) return std::unexpected(r_.error())

mad::Result<CounterCommitStats> Store::commit_counters(const perfmgr::Snapshot& s, bool sample, int64_t drop_before_ms) {
  auto r = write_counters(s, sample, drop_before_ms);
  if (!r) counter_rows_.clear();  // what went in is unknown: write every row next time
  return r;
}

mad::Result<CounterCommitStats> Store::write_counters(const perfmgr::Snapshot& s, bool sample, int64_t drop_before_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  CounterCommitStats cs;
  auto tx = Transaction::begin(db_);
  if (!tx) return std::unexpected(tx.error());
  auto port = db_.prepare("INSERT OR REPLACE INTO port_counters VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)");
  auto samp = db_.prepare("INSERT OR REPLACE INTO counter_samples VALUES (?1,?2,?3,?4)");
  auto find = db_.prepare("INSERT INTO health_findings VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)");
  if (!port) return std::unexpected(port.error());
  if (!samp) return std::unexpected(samp.error());
  if (!find) return std::unexpected(find.error());
  const int64_t now_ms = s.sweep.started_ms + static_cast<int64_t>(s.sweep.duration_ms);
  const uint64_t commit = ++counter_commits_;
  counter_rows_.reserve(s.ports.size());
  for (const PortSample& p : s.ports) {
    const uint64_t key = (p.local.node.value() << 8) | p.local.port;
    if (sample) {
      FSM_TRY(samp->bind(1, now_ms).bind(2, p.local.node.value()).bind(3, p.local.port).bind_blob(4, varints(p.totals)).run());
      ++cs.samples;
    }
    const uint64_t h = row_hash(p);
    CounterRow& row = counter_rows_.try_emplace(key, CounterRow{.hash = ~h, .seen = 0}).first->second;
    row.seen = commit;
    if (row.hash == h) continue;
    const PortEnd none;
    const PortEnd& r = p.remote ? *p.remote : none;
    FSM_TRY(port->bind(1, p.local.node.value()).bind(2, p.local.port).bind(3, p.local.lid).bind(4, p.local.description)
                .bind(5, p.local.is_switch ? 1 : 0).bind(6, r.node.value()).bind(7, r.port).bind(8, r.lid)
                .bind(9, r.description).bind(10, r.is_switch ? 1 : 0).bind(11, p.sampled_ms)
                .bind(12, p.extended ? 1 : 0).bind(13, p.has_rates ? 1 : 0).bind(14, p.failures)
                .bind_blob(15, varints(p.totals)).bind_blob(16, floats(p.rates)).run());
    row.hash = h;
    ++cs.ports;
  }
  // Ports the PerfMgr no longer reads (it forgot them: perfmgr_rm_nodes) leave the table.
  for (auto it = counter_rows_.begin(); it != counter_rows_.end();) {
    if (it->second.seen == commit) {
      ++it;
      continue;
    }
    auto del = db_.prepare("DELETE FROM port_counters WHERE node_guid=?1 AND port=?2");
    if (!del) return std::unexpected(del.error());
    FSM_TRY(del->bind(1, it->first >> 8).bind(2, static_cast<int64_t>(it->first & 0xFF)).run());
    it = counter_rows_.erase(it);
  }
  FSM_TRY(db_.exec("DELETE FROM health_findings"));
  for (const Finding& f : s.findings) {
    const PortEnd none;
    const PortEnd& r = f.peer ? *f.peer : none;
    FSM_TRY(find->bind(1, f.rule).bind(2, f.at.node.value()).bind(3, f.at.port).bind(4, static_cast<int>(f.severity))
                .bind(5, f.at.lid).bind(6, f.at.description).bind(7, f.at.is_switch ? 1 : 0).bind(8, r.node.value())
                .bind(9, r.port).bind(10, r.lid).bind(11, r.description).bind(12, r.is_switch ? 1 : 0).bind(13, f.what)
                .bind(14, f.first_ms).bind(15, f.last_ms).bind(16, f.isolated ? 1 : 0).run());
  }
  auto sw = db_.prepare("INSERT INTO counter_sweeps (number, started, ms, ports, queries, unanswered, cleared) "
                        "VALUES (?1,?2,?3,?4,?5,?6,?7)");
  if (!sw) return std::unexpected(sw.error());
  FSM_TRY(sw->bind(1, s.sweep.number).bind(2, s.sweep.started_ms).bind(3, s.sweep.duration_ms).bind(4, s.sweep.ports)
              .bind(5, s.sweep.queries).bind(6, s.sweep.timeouts).bind(7, s.sweep.clears).run());
  if (sample) {
    auto drop = db_.prepare("DELETE FROM counter_samples WHERE time < ?1");
    if (!drop) return std::unexpected(drop.error());
    FSM_TRY(drop->bind(1, drop_before_ms).run());
    cs.dropped = static_cast<size_t>(sqlite3_changes(db_.raw()));
    auto old = db_.prepare("DELETE FROM counter_sweeps WHERE started < ?1");
    if (!old) return std::unexpected(old.error());
    FSM_TRY(old->bind(1, drop_before_ms).run());
  }
  if (auto c = tx->commit(); !c) return std::unexpected(c.error());
  cs.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return cs;
}

mad::Result<std::vector<PortSample>> Store::load_port_counters() {
  auto q = db_.prepare("SELECT node_guid, port, lid, description, is_switch, peer_guid, peer_port, peer_lid, "
                       "peer_description, peer_is_switch, sampled, extended, has_rates, failures, totals, rates "
                       "FROM port_counters ORDER BY node_guid, port");
  if (!q) return std::unexpected(q.error());
  std::vector<PortSample> out;
  while (true) {
    auto r = q->step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    PortSample p;
    p.local = end_at(*q, 0);
    if (q->u64(5) != 0) p.remote = end_at(*q, 5);
    p.sampled_ms = q->i64(10);
    p.extended = q->i64(11) != 0;
    p.has_rates = q->i64(12) != 0;
    p.failures = q->u64(13);
    p.totals = unvarints(q->blob(14));
    p.rates = unfloats(q->blob(15));
    out.push_back(std::move(p));
  }
  return out;
}

mad::Result<std::vector<CounterSample>> Store::load_samples(Guid node, uint8_t port, int64_t since_ms, size_t max) {
  // The key leads with the time: the range is read by it, the port picked out of it.
  auto q = db_.prepare("SELECT time, totals FROM (SELECT time, totals FROM counter_samples WHERE time >= ?1 AND "
                       "node_guid = ?2 AND port = ?3 ORDER BY time DESC LIMIT ?4) ORDER BY time");
  if (!q) return std::unexpected(q.error());
  q->bind(1, since_ms).bind(2, node.value()).bind(3, port).bind(4, static_cast<int64_t>(max));
  std::vector<CounterSample> out;
  while (true) {
    auto r = q->step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    out.push_back({q->i64(0), unvarints(q->blob(1))});
  }
  return out;
}

mad::Result<std::vector<Finding>> Store::load_findings() {
  auto q = db_.prepare("SELECT rule, severity, node_guid, port, lid, description, is_switch, peer_guid, peer_port, "
                       "peer_lid, peer_description, peer_is_switch, what, first, last, isolated FROM health_findings "
                       "ORDER BY rule, node_guid, port");
  if (!q) return std::unexpected(q.error());
  std::vector<Finding> out;
  while (true) {
    auto r = q->step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    Finding f;
    f.rule = q->text(0);
    f.severity = q->i64(1) ? perfmgr::Severity::error : perfmgr::Severity::warning;
    f.at = end_at(*q, 2);
    if (q->u64(7) != 0) f.peer = end_at(*q, 7);
    f.what = q->text(12);
    f.first_ms = q->i64(13);
    f.last_ms = q->i64(14);
    f.isolated = q->i64(15) != 0;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace sm::store
