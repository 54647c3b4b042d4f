// The one module that owns fabricsm's SQLite database (WAL mode, versioned schema). The SM
// never writes on the hot path of a sweep: the subnet a sweep published goes in one
// transaction after it (commit), and only rows that differ from what this process last wrote.
// A restart or a takeover reads the GUID -> LID map and the programmed LFTs back. It reads the
// published subnet (sm/subnet.h), never the SM.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mad/error.h"
#include "sm/lid_manager.h"
#include "sm/perfmgr/snapshot.h"
#include "sm/memory.h"
#include "sm/store/sqlite.h"
#include "sm/subnet.h"

namespace sm::store {

enum class OnCorrupt { refuse, start_fresh };

struct OpenOptions {
  std::string path;
  OnCorrupt on_corrupt = OnCorrupt::refuse;
  bool read_only = false;  // `fabricsm show`: no migration, no writes
  // The group that may read the store (mode 0640, e.g. for monitoring); none: owner only (0600).
  std::optional<unsigned> group;
};

struct OpenReport {
  bool created = false;
  int from_version = 0;
  int version = 0;
  std::string set_aside;  // where a corrupt file was moved to
};

struct Event {
  int64_t time_ms;
  std::string level;  // error, warn, info
  int code;
  std::string message;
};

// Another SM as last heard (HA): one row per port GUID, kept across restarts.
struct PeerRecord {
  uint64_t guid = 0;
  uint16_t lid = 0;
  uint8_t priority = 0;
  uint8_t state = 0;  // SMInfo SMState
  uint32_t act_count = 0;
  bool sm_key_ok = false;
  int64_t heard_ms = 0;
};

// An object an SA client created (a multicast group or membership, a service, a
// subscription): opaque to the store, identified by (kind, key).
struct SaObject {
  std::string kind;             // e.g. "mcgroup", "service", "inform"
  std::vector<uint8_t> key;     // unique within the kind
  std::vector<uint8_t> record;  // the owner's encoding; empty: the object is gone
  int64_t expires_ms = 0;       // wall-clock ms; 0: never
  bool operator==(const SaObject&) const = default;
};

struct CommitStats {
  size_t nodes = 0, ports = 0, lids = 0, switches = 0, events = 0;  // rows written
  size_t links = 0;  // port rows whose cable came, went or moved
  double ms = 0;
};

// A cable the store remembers that is not there now (`present` 0), with its ends' names.
struct GoneCable {
  Guid a;
  uint8_t a_port = 0;
  std::string a_description;
  Guid b;
  uint8_t b_port = 0;
  std::string b_description;
  int64_t last_seen_ms = 0;
};

// One port's stored sample of its totals.
struct CounterSample {
  int64_t time_ms = 0;
  std::array<uint64_t, perfmgr::kCounters> totals{};
};

struct CounterCommitStats {
  size_t ports = 0;    // port rows written (those whose counters or ends changed)
  size_t samples = 0;  // sample rows written
  size_t dropped = 0;  // sample rows past the retention deleted
  double ms = 0;
};

class Store {
 public:
  // Opens (or creates) the database. A file that is not a healthy fabricsm database is
  // refused with a clear error, or moved aside (never deleted) and replaced by a fresh one,
  // as `on_corrupt` says. A newer schema is always refused and left untouched.
  static mad::Result<std::unique_ptr<Store>> open(const OpenOptions& opts, OpenReport* report = nullptr);

  mad::Result<LidMap> load_lids();
  mad::Result<LftMemory> load_lft_memory();
  // The number of the last sweep stored (0: none): the next run's sweeps go on from it.
  mad::Result<uint64_t> last_sweep();

  // One transaction: the sweep, the fabric as it is now (structure from the topology, port
  // attributes as last read or written), the LIDs, the programmed tables (those this sweep
  // routed: a subnet that configured nothing keeps the last ones) and the buffered events.
  mad::Result<CommitStats> commit(const Subnet& subnet, int64_t now_ms);
  // Events are buffered (logging must not write to disk) and go out with the next commit,
  // or with flush_events() when no sweep comes (a standby).
  void add_event(Event e) { events_.push_back(std::move(e)); }
  // SM peers go out the same way (the latest record per GUID).
  void note_peer(const PeerRecord& p) { peers_[p.guid] = p; }
  // SA objects go out the same way (the latest state per kind and key; an empty record
  // deletes the row).
  void note_sa_object(SaObject o);
  // Every stored SA object (a restart or a takeover brings them back), sorted by kind, key.
  mad::Result<std::vector<SaObject>> load_sa_objects();
  // Writes buffered events, peers and SA objects in one transaction (nothing to do: no
  // transaction).
  mad::Result<size_t> flush_events();

  // One transaction per counter sweep (counters.cpp): the ports whose counters changed, the
  // open findings, the sweep, and with `sample` a sample of every port's totals; samples
  // older than `drop_before_ms` go.
  mad::Result<CounterCommitStats> commit_counters(const perfmgr::Snapshot& s, bool sample, int64_t drop_before_ms);
  // What the last counter sweep stored: every port (in GUID, port order) and the findings.
  mad::Result<std::vector<perfmgr::PortSample>> load_port_counters();
  mad::Result<std::vector<perfmgr::Finding>> load_findings();
  // One port's samples from `since_ms` on, oldest first, at most `max` (the newest kept).
  mad::Result<std::vector<CounterSample>> load_samples(Guid node, uint8_t port, int64_t since_ms, size_t max);
  // Cables seen once and gone now (the web view marks them failed).
  mad::Result<std::vector<GoneCable>> load_gone_cables();
  // Another SM may have written the database since (a shared store, after a takeover): the
  // next commit writes every row instead of only those this process changed.
  void forget_written();

  Db& db() { return db_; }
  const std::string& path() const { return path_; }

 private:
  Store(Db db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  mad::Result<void> prepare_all();
  mad::Result<size_t> write_events();
  mad::Result<CounterCommitStats> write_counters(const perfmgr::Snapshot& s, bool sample, int64_t drop_before_ms);

  Db db_;
  std::string path_;
  std::vector<Event> events_;
  std::unordered_map<uint64_t, PeerRecord> peers_;
  std::map<std::pair<std::string, std::vector<uint8_t>>, SaObject> sa_objects_;
  // What this process last wrote, so a commit writes only rows that changed.
  struct PortRow {
    uint64_t hash;
    uint64_t peer;  // node at the other end of the cable, 0 = none
    uint8_t peer_port;
  };
  std::unordered_map<uint64_t, uint64_t> node_rows_, lft_rows_;
  std::unordered_map<uint64_t, PortRow> port_rows_;  // (node GUID << 8) | port
  std::unordered_map<uint64_t, uint64_t> lid_rows_;
  struct CounterRow {
    uint64_t hash;
    uint64_t seen;  // the commit that last had this port
  };
  std::unordered_map<uint64_t, CounterRow> counter_rows_;  // (node GUID << 8) | port
  uint64_t counter_commits_ = 0;
  struct Prepared;
  std::shared_ptr<Prepared> st_;
};

}  // namespace sm::store
