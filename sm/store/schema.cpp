#include "sm/store/schema.h"

#include <fmt/format.h>

namespace sm::store {

const std::vector<std::string_view>& migrations() {
  static const std::vector<std::string_view> m = {
      // 0 -> 1: the fabric, the GUID -> LID map, programmed LFTs, sweeps, events.
      R"sql(
CREATE TABLE nodes (
  guid INTEGER PRIMARY KEY, type INTEGER NOT NULL, num_ports INTEGER NOT NULL,
  description TEXT NOT NULL, system_guid INTEGER NOT NULL, vendor_id INTEGER NOT NULL,
  device_id INTEGER NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
  present INTEGER NOT NULL);
CREATE TABLE ports (
  node_guid INTEGER NOT NULL, port INTEGER NOT NULL, port_guid INTEGER NOT NULL,
  lid INTEGER NOT NULL, lmc INTEGER NOT NULL, state INTEGER NOT NULL, phys INTEGER NOT NULL,
  width INTEGER NOT NULL, speed INTEGER NOT NULL, speed_ext INTEGER NOT NULL,
  PRIMARY KEY (node_guid, port)) WITHOUT ROWID;
CREATE TABLE links (
  a_guid INTEGER NOT NULL, a_port INTEGER NOT NULL, b_guid INTEGER NOT NULL,
  b_port INTEGER NOT NULL, width INTEGER NOT NULL, speed INTEGER NOT NULL,
  speed_ext INTEGER NOT NULL, state INTEGER NOT NULL,
  PRIMARY KEY (a_guid, a_port)) WITHOUT ROWID;
CREATE TABLE lids (
  port_guid INTEGER PRIMARY KEY, lid INTEGER NOT NULL, lmc INTEGER NOT NULL,
  first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL);
CREATE TABLE switch_lfts (
  switch_guid INTEGER PRIMARY KEY, lid INTEGER NOT NULL, top INTEGER NOT NULL,
  lft BLOB NOT NULL, known BLOB NOT NULL, updated INTEGER NOT NULL);
CREATE TABLE sweeps (
  id INTEGER PRIMARY KEY, number INTEGER NOT NULL, started INTEGER NOT NULL,
  heavy INTEGER NOT NULL, trigger TEXT NOT NULL, up INTEGER NOT NULL, failure TEXT NOT NULL,
  switches INTEGER NOT NULL, cas INTEGER NOT NULL, links INTEGER NOT NULL,
  max_lid INTEGER NOT NULL, engine TEXT NOT NULL, smps INTEGER NOT NULL,
  retried INTEGER NOT NULL, timed_out INTEGER NOT NULL, lft_blocks INTEGER NOT NULL,
  port_sets INTEGER NOT NULL, discovery_ms REAL NOT NULL, lids_ms REAL NOT NULL,
  routing_ms REAL NOT NULL, programming_ms REAL NOT NULL, total_ms REAL NOT NULL);
CREATE TABLE events (
  id INTEGER PRIMARY KEY, time INTEGER NOT NULL, level TEXT NOT NULL,
  code INTEGER NOT NULL, message TEXT NOT NULL);
)sql",
      // 1 -> 2: SM peers seen (HA), the sweep's pruned-node count, events by time; a cable is
      // written once, on its ports (both ends), and `links` becomes a view over them.
      R"sql(
ALTER TABLE ports ADD COLUMN peer_guid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ports ADD COLUMN peer_port INTEGER NOT NULL DEFAULT 0;
UPDATE ports SET (peer_guid, peer_port) = (SELECT b_guid, b_port FROM links
  WHERE a_guid = ports.node_guid AND a_port = ports.port)
  WHERE EXISTS (SELECT 1 FROM links WHERE a_guid = ports.node_guid AND a_port = ports.port);
UPDATE ports SET (peer_guid, peer_port) = (SELECT a_guid, a_port FROM links
  WHERE b_guid = ports.node_guid AND b_port = ports.port)
  WHERE EXISTS (SELECT 1 FROM links WHERE b_guid = ports.node_guid AND b_port = ports.port);
DROP TABLE links;
CREATE VIEW links AS
  SELECT node_guid AS a_guid, port AS a_port, peer_guid AS b_guid, peer_port AS b_port,
         width, speed, speed_ext, state
  FROM ports WHERE peer_guid != 0 AND (node_guid < peer_guid OR (node_guid = peer_guid AND port < peer_port));
CREATE TABLE sm_peers (
  guid INTEGER PRIMARY KEY, lid INTEGER NOT NULL, priority INTEGER NOT NULL,
  state INTEGER NOT NULL, act_count INTEGER NOT NULL, sm_key_ok INTEGER NOT NULL,
  first_seen INTEGER NOT NULL, last_heard INTEGER NOT NULL);
ALTER TABLE sweeps ADD COLUMN pruned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX events_by_time ON events (time);
)sql",
      // 2 -> 3: what SA clients created (multicast groups and members, services,
      // subscriptions), so it survives a restart and a takeover on a shared database.
      R"sql(
CREATE TABLE sa_objects (
  kind TEXT NOT NULL, key BLOB NOT NULL, record BLOB NOT NULL, expires INTEGER NOT NULL,
  updated INTEGER NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID;
)sql",
      // 3 -> 4: port counters (the PerfMgr): each port's latest totals and rates with both
      // cable ends named, samples of the totals over time (bounded retention), the counter
      // sweeps, and the open health findings.
      R"sql(
CREATE TABLE port_counters (
  node_guid INTEGER NOT NULL, port INTEGER NOT NULL, lid INTEGER NOT NULL, description TEXT NOT NULL,
  is_switch INTEGER NOT NULL, peer_guid INTEGER NOT NULL, peer_port INTEGER NOT NULL,
  peer_lid INTEGER NOT NULL, peer_description TEXT NOT NULL, peer_is_switch INTEGER NOT NULL,
  sampled INTEGER NOT NULL, extended INTEGER NOT NULL, has_rates INTEGER NOT NULL,
  failures INTEGER NOT NULL, totals BLOB NOT NULL, rates BLOB NOT NULL,
  PRIMARY KEY (node_guid, port)) WITHOUT ROWID;
CREATE TABLE counter_samples (
  time INTEGER NOT NULL, node_guid INTEGER NOT NULL, port INTEGER NOT NULL, totals BLOB NOT NULL,
  PRIMARY KEY (time, node_guid, port)) WITHOUT ROWID;
CREATE TABLE counter_sweeps (
  id INTEGER PRIMARY KEY, number INTEGER NOT NULL, started INTEGER NOT NULL, ms REAL NOT NULL,
  ports INTEGER NOT NULL, queries INTEGER NOT NULL, unanswered INTEGER NOT NULL,
  cleared INTEGER NOT NULL);
CREATE TABLE health_findings (
  rule TEXT NOT NULL, node_guid INTEGER NOT NULL, port INTEGER NOT NULL, severity INTEGER NOT NULL,
  lid INTEGER NOT NULL, description TEXT NOT NULL, is_switch INTEGER NOT NULL,
  peer_guid INTEGER NOT NULL, peer_port INTEGER NOT NULL, peer_lid INTEGER NOT NULL,
  peer_description TEXT NOT NULL, peer_is_switch INTEGER NOT NULL, what TEXT NOT NULL,
  first INTEGER NOT NULL, last INTEGER NOT NULL, isolated INTEGER NOT NULL,
  PRIMARY KEY (rule, node_guid, port)) WITHOUT ROWID;
)sql",
      // 4 -> 5: every cable seen, with first and last seen, kept when it goes (`show links`);
      // each from its lower end, as the links view orders them.
      R"sql(
CREATE TABLE cables (
  a_guid INTEGER NOT NULL, a_port INTEGER NOT NULL, b_guid INTEGER NOT NULL, b_port INTEGER NOT NULL,
  first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, present INTEGER NOT NULL,
  PRIMARY KEY (a_guid, a_port, b_guid, b_port)) WITHOUT ROWID;
INSERT INTO cables SELECT l.a_guid, l.a_port, l.b_guid, l.b_port, max(a.first_seen, b.first_seen),
  min(a.last_seen, b.last_seen), 1 FROM links l JOIN nodes a ON a.guid = l.a_guid JOIN nodes b ON b.guid = l.b_guid;
)sql",
  };
  return m;
}

mad::Result<void> migrate(Db& db, int from, int to) {
  if (from > current_version())
    return mad::fail(mad::Errc::unsupported,
                     fmt::format("its schema version {} is newer than this fabricsm knows ({}); "
                                 "refusing to touch it",
                                 from, current_version()));
  if (from >= to) return {};
  auto tx = Transaction::begin(db);
  if (!tx) return std::unexpected(tx.error());
  for (int v = from; v < to; ++v)
    if (auto r = db.exec(migrations()[static_cast<size_t>(v)]); !r)
      return mad::fail(r.error().code, fmt::format("migration {} -> {}: {}", v, v + 1, r.error().message));
  if (auto r = db.exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {};", kApplicationId, to)); !r)
    return r;
  return tx->commit();
}

}  // namespace sm::store
