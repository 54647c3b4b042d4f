// The PerfMgr: every `sweep_time` it reads the port counters (PMA, class 0x04, LID-routed) of
// every switch port and CA port of the last published subnet, with its own window of queries
// in flight, and only while the SM is not sweeping (the SM's MADs keep priority). Each read
// goes through the counter arithmetic (counters.h) and the health rules (health.h); at the end
// of a counter sweep it publishes a Snapshot (snapshot.h) that the store, the metrics endpoint
// and `fabricsm show` read. Findings whose rule isolates name cables the SM routes around.
// A reactor like the SM: its owner (the service stack) feeds it MADs and time.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ranges>
#include <set>
#include <unordered_map>
#include <vector>

#include "mad/transactions.h"
#include "sm/log.h"
#include "sm/perfmgr/config.h"
#include "sm/perfmgr/counters.h"
#include "sm/perfmgr/health.h"
#include "sm/perfmgr/snapshot.h"
#include "sm/subnet.h"

namespace sm::perfmgr {

using Cable = std::pair<Guid, uint8_t>;  // one end: node GUID, port

// What the PerfMgr sees of the SM at a tick.
struct View {
  std::shared_ptr<const Subnet> subnet;  // the last published one
  bool may_query = false;                // the SM is idle and its role lets counter sweeps run
  mad::Nanos settle_until{0};            // no counter sweep starts before (the SM's last sweep settles)
  std::vector<std::pair<Cable, size_t>> flapping;  // ports flapping now, with their changes
};

class PerfMgr {
 public:
  PerfMgr(mad::Transport& t, Config cfg, Logger& log, std::function<int64_t()> wall_ms);

  // A PMA answer (class 0x04); false when it was not one of ours.
  bool on_mad(const mad::Packet& p);
  void on_tick(const View& v);
  std::optional<mad::Nanos> next_deadline(bool may_query, mad::Nanos settle_until) const;

  std::shared_ptr<const Snapshot> snapshot() const { return published_; }
  bool sweeping() const { return sweep_.has_value(); }
  // Both ends of every cable the SM should route around; isolation_epoch() moves when it changes.
  const std::set<Cable>& isolated() const { return isolated_; }
  uint64_t isolation_epoch() const { return isolation_epoch_; }
  // `fabricsm health clear`: closes findings (every one, or those at or facing a port) and
  // brings their isolated cables back. Returns how many closed.
  size_t clear(std::optional<Cable> port);
  void reconfigure(const Config& cfg);
  const Config& config() const { return cfg_; }
  const mad::TransactionStats& mad_stats() const { return tx_.stats(); }

  // Called after every counter sweep with what it published.
  std::function<void(const std::shared_ptr<const Snapshot>&)> on_sweep_done;

 private:
  struct Track;
  struct Target {
    Track* track;  // in tracks_, which keeps it while the sweep runs
    PortEnd local;
    std::optional<PortEnd> remote;
    bool have_pc = false, have_ext = false, failed = false;
    bool pc_traffic = false;  // pc's data and packet counters were read (not known from a sum)
    mad::PortCounters pc;
    mad::PortCountersExtended ext;
    int waiting = 0;  // answers still to come
  };
  struct NodeJob {
    Guid guid;
    uint16_t lid;
    size_t first, count;  // its targets, one after the other
    auto targets() const { return std::views::iota(first, first + count); }
  };
  // node_sum: a switch's PortCounters over all its ports (AllPortSelect); when nothing moved
  // since the last sweep, its ports need no reads of their own.
  enum class Kind : uint8_t { class_port_info, node_sum, counters, counters_ext, clear };
  struct Request {
    Kind kind;
    size_t index;  // NodeJob for class_port_info, else Target
    uint16_t select = 0;
    uint8_t select2 = 0;
  };
  struct Sweep {
    uint64_t number;
    mad::Nanos started;
    int64_t started_ms;
    std::shared_ptr<const Subnet> subnet;
    NodeId expanded = 0;  // the topology's nodes before this one are taken into nodes
    std::vector<NodeJob> nodes;
    std::vector<Target> targets;
    std::deque<Request> queue;
    size_t in_flight = 0;
    uint64_t sent_at_start = 0;
    uint64_t timeouts = 0, clears = 0, read = 0, quiet = 0;
    std::shared_ptr<Snapshot> closing;  // every query answered: the snapshot being filled
  };
  struct Caps {
    bool extended = false;
    bool all_ports = false;  // AllPortSelect
  };
  struct Track {
    PortTrack counters;
    std::optional<mad::PortCounters> pc;  // PortCounters as last read
    bool pc_traffic = false;               // pc's traffic counters too (else its errors only)
    uint64_t failures = 0;
    int64_t sampled_ms = 0;
    uint64_t sweep = 0;  // the last counter sweep the port was in
  };

  void start_sweep(const View& v);
  bool expand();
  bool sweep_over() const;
  void pump(bool may_query);
  void submit(const Request& r);
  void on_answer(const Request& r, mad::Result<mad::Packet> p);
  void queue_node(size_t node);
  void queue_ports(size_t node);
  void port_quiet(size_t target);
  void port_done(size_t target);
  void finish();
  void check_links(const Subnet& s, NodeId id, Stamp now);
  void check_flapping(const Subnet& s, Stamp now);
  void decide_isolation(const Subnet& s, const std::set<Health::Key>& fresh);
  bool would_disconnect(const Subnet& s, const Cable& a, const Cable& b) const;
  void publish_some();
  mad::Nanos now() const { return tx_clock_.now(); }
  static int64_t mono_ms(mad::Nanos t) { return std::chrono::duration_cast<std::chrono::milliseconds>(t).count(); }
  Stamp stamp() const { return {.wall_ms = wall_ms_(), .mono_ms = mono_ms(now())}; }

  Config cfg_;
  Logger& log_;
  std::function<int64_t()> wall_ms_;
  mad::Transactions tx_;
  const mad::Clock& tx_clock_;
  Health health_;
  std::optional<Sweep> sweep_;
  std::vector<Target> spare_targets_;  // the last sweep's, emptied: its memory for the next
  mad::Nanos next_sweep_{0};
  uint64_t sweeps_ = 0;
  std::vector<std::pair<Cable, size_t>> flapping_;
  std::unordered_map<Guid, Caps> caps_;
  std::unordered_map<Guid, mad::PortCounters> node_sums_;  // each switch's last node_sum
  std::map<Cable, Track> tracks_;
  std::set<Cable> isolated_;
  uint64_t isolation_epoch_ = 0;
  std::shared_ptr<const Snapshot> published_;
  std::shared_ptr<const Subnet> last_subnet_;  // of the last counter sweep
  bool may_query_ = false;
};

}  // namespace sm::perfmgr
