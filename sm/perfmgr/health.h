// Health rules over what the counter sweeps and the SM saw: an error counter rising faster
// than its threshold within one sweep, congestion (PortXmitWait), a flapping port, a link
// running below the width or speed both its ends enable. Findings stay open until they have
// been quiet for the clean time (or an operator clears them).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sm/perfmgr/config.h"
#include "sm/perfmgr/counters.h"
#include "sm/perfmgr/snapshot.h"

namespace sm::perfmgr {

// The threshold a rule uses when the configuration does not set one (nullopt: unknown rule).
std::optional<uint64_t> default_threshold(std::string_view rule);
// Every rule name, for option checks and the README.
std::vector<std::string_view> rule_names();

// When something was seen: the wall clock for what operators read, the transport's clock
// (virtual in the simulator) for how long ago.
struct Stamp {
  int64_t wall_ms = 0;
  int64_t mono_ms = 0;
};

class Health {
 public:
  using Key = std::tuple<std::string, Guid, uint8_t>;  // rule, node, port

  explicit Health(const Config& cfg) : cfg_(&cfg) {}
  void set_config(const Config& cfg) { cfg_ = &cfg; }

  // A port's counters over one sweep.
  void on_step(const PortEnd& at, const std::optional<PortEnd>& peer, const Step& s, Stamp now);
  // What the SM saw: a flapping port (changes within its window), a degraded link.
  void on_flapping(const PortEnd& at, const std::optional<PortEnd>& peer, size_t changes, Stamp now);
  void on_degraded(const PortEnd& at, const std::optional<PortEnd>& peer, std::string what, Stamp now);
  // The sweep (started at `started_mono_ms`) is over: findings that did not fire in it and
  // have been quiet for the clean time close (isolated ones too, unless the clean time is 0:
  // then only `clear` brings them back). Returns the keys of the findings opened in it.
  std::vector<Key> end_sweep(Stamp now, int64_t started_mono_ms);
  // `fabricsm health clear`: every finding (no port) or those at or facing a port. Returns
  // how many were closed.
  size_t clear(std::optional<std::pair<Guid, uint8_t>> port);

  // Open findings, in (rule, node GUID, port) order.
  std::vector<Finding> open() const;
  std::map<Key, Finding>& findings() { return open_; }
  const std::map<std::string, uint64_t>& fired() const { return fired_; }

 private:
  void fire(std::string rule, Severity sev, const PortEnd& at, const std::optional<PortEnd>& peer,
            std::string what, Stamp now);
  uint64_t threshold(std::string_view rule) const;

  const Config* cfg_;
  std::map<Key, Finding> open_;
  std::map<Key, int64_t> last_mono_;  // when each open finding last fired (transport clock)
  std::vector<Key> opened_;           // during this sweep
  std::map<std::string, uint64_t> fired_;                       // findings opened, by rule
};

// "1,234"
std::string grouped(uint64_t v);
// A port for log lines: "\"sw1\" 0x...[3] (LID 5)".
std::string describe(const PortEnd& e);

}  // namespace sm::perfmgr
