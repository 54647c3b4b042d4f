// Counter arithmetic, apart from the wire and the sweep: a port's readings in, its deltas,
// running totals and rates out. IBA counters below 64 bits stop at all ones (they do not
// wrap), so a counter past half its range is cleared by a Set before it sticks (as OpenSM's
// PerfMgr does); a counter that went down (port reset, switch reboot) starts a new baseline
// instead of a negative delta.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "mad/pma.h"
#include "mad/transport.h"
#include "sm/perfmgr/snapshot.h"

namespace sm::perfmgr {

using Values = std::array<uint64_t, kCounters>;

// One read of a port: every counter with the width it has on the wire (0: not read).
struct Reading {
  Values v{};
  std::array<uint8_t, kCounters> bits{};
  bool extended = false;
};

// PortCounters alone (32-bit data counters), or with PortCountersExtended (64-bit data and
// packet counters, the unicast and multicast ones too).
Reading reading_of(const mad::PortCounters& pc, const mad::PortCountersExtended* ext = nullptr);

// What a port's counters did since the last read.
struct Step {
  Values delta{};
  bool reset = false;           // some counter went down: a new baseline, no delta for it
  bool first = false;           // the first read: a baseline only
  bool saturated = false;       // some counter is stuck at all ones: its delta is a lower bound
  uint16_t clear_select = 0;    // PortCounters CounterSelect of the counters to clear now
  uint8_t clear_select2 = 0;    // CounterSelect2 (PortXmitWait)
  double seconds = 0;           // since the last read
};

class PortTrack {
 public:
  // Takes a read made at `at`; the deltas, and what to clear.
  Step advance(const Reading& r, mad::Nanos at);
  // The counters a clear (its Set's answer) left: the new baseline for those selected.
  void cleared(uint16_t select, uint8_t select2, const mad::PortCounters& after);
  const Values& totals() const { return totals_; }
  const std::array<double, kCounters>& rates() const { return rates_; }
  bool has_rates() const { return has_rates_; }
  bool extended() const { return last_.extended; }
  bool have() const { return have_; }
  const Reading& last() const { return last_; }

 private:
  Reading last_;
  bool have_ = false;
  mad::Nanos at_{0};
  Values totals_{};
  std::array<double, kCounters> rates_{};
  bool has_rates_ = false;
};

// `pc` with the extended counters of `last` (a port whose PortCounters show no traffic since
// then: its extended counters cannot have moved either).
Reading with_extended_of(const mad::PortCounters& pc, const Reading& last);
// Whether any counter of a PortCounters read is stuck at all ones (then an unchanged read
// proves nothing).
bool stuck(const mad::PortCounters& pc);
// The data and packet counters of a PortCounters read, for telling whether a port moved traffic.
using Traffic = std::array<uint32_t, 4>;
inline Traffic traffic_of(const mad::PortCounters& pc) { return {pc.xmit_data, pc.rcv_data, pc.xmit_pkts, pc.rcv_pkts}; }
// Two PortCounters reads of the same counters, whatever their select fields say.
bool same_counts(mad::PortCounters a, mad::PortCounters b);
// The same, for the error counters and PortXmitWait only (the data and packet counters aside).
bool same_errors(mad::PortCounters a, mad::PortCounters b);

// The PortCounters CounterSelect bit of a counter (and CounterSelect2 for PortXmitWait);
// nullopt for the extended-only ones.
struct SelectBit {
  uint16_t select = 0;
  uint8_t select2 = 0;
};
std::optional<SelectBit> select_bit(Counter c);

}  // namespace sm::perfmgr
