#include "sm/perfmgr/counters.h"

namespace sm::perfmgr {

namespace {

constexpr uint64_t all_ones(uint8_t bits) { return bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1; }

void put(Reading& r, Counter c, uint64_t v, uint8_t bits) {
  r.v[index(c)] = v;
  r.bits[index(c)] = bits;
}

}  // namespace

Reading reading_of(const mad::PortCounters& pc, const mad::PortCountersExtended* ext) {
  Reading r;
  put(r, Counter::symbol_errors, pc.symbol_errors, 16);
  put(r, Counter::link_error_recovery, pc.link_error_recovery, 8);
  put(r, Counter::link_downed, pc.link_downed, 8);
  put(r, Counter::rcv_errors, pc.rcv_errors, 16);
  put(r, Counter::rcv_remote_phys_errors, pc.rcv_remote_phys_errors, 16);
  put(r, Counter::rcv_switch_relay_errors, pc.rcv_switch_relay_errors, 16);
  put(r, Counter::xmit_discards, pc.xmit_discards, 16);
  put(r, Counter::xmit_constraint_errors, pc.xmit_constraint_errors, 8);
  put(r, Counter::rcv_constraint_errors, pc.rcv_constraint_errors, 8);
  put(r, Counter::local_link_integrity_errors, pc.local_link_integrity_errors & 0xF, 4);
  put(r, Counter::excessive_buffer_overrun_errors, pc.excessive_buffer_overrun_errors & 0xF, 4);
  put(r, Counter::vl15_dropped, pc.vl15_dropped, 16);
  put(r, Counter::xmit_wait, pc.xmit_wait, 32);
  if (ext) {
    r.extended = true;
    put(r, Counter::xmit_data, ext->xmit_data, 64);
    put(r, Counter::rcv_data, ext->rcv_data, 64);
    put(r, Counter::xmit_pkts, ext->xmit_pkts, 64);
    put(r, Counter::rcv_pkts, ext->rcv_pkts, 64);
    put(r, Counter::unicast_xmit_pkts, ext->unicast_xmit_pkts, 64);
    put(r, Counter::unicast_rcv_pkts, ext->unicast_rcv_pkts, 64);
    put(r, Counter::multicast_xmit_pkts, ext->multicast_xmit_pkts, 64);
    put(r, Counter::multicast_rcv_pkts, ext->multicast_rcv_pkts, 64);
  } else {
    put(r, Counter::xmit_data, pc.xmit_data, 32);
    put(r, Counter::rcv_data, pc.rcv_data, 32);
    put(r, Counter::xmit_pkts, pc.xmit_pkts, 32);
    put(r, Counter::rcv_pkts, pc.rcv_pkts, 32);
  }
  return r;
}

Reading with_extended_of(const mad::PortCounters& pc, const Reading& last) {
  Reading r = reading_of(pc);
  for (size_t i = index(Counter::xmit_data); i < kCounters; ++i) {
    r.v[i] = last.v[i];
    r.bits[i] = last.bits[i];
  }
  r.extended = true;
  return r;
}

bool stuck(const mad::PortCounters& pc) {
  const Reading r = reading_of(pc);
  for (size_t i = 0; i < kCounters; ++i)
    if (r.bits[i] != 0 && r.v[i] == all_ones(r.bits[i])) return true;
  return false;
}

bool same_counts(mad::PortCounters a, mad::PortCounters b) {
  a.port_select = b.port_select = 0;
  a.counter_select = b.counter_select = 0;
  a.counter_select2 = b.counter_select2 = 0;
  return a == b;
}

bool same_errors(mad::PortCounters a, mad::PortCounters b) {
  a.xmit_data = a.rcv_data = a.xmit_pkts = a.rcv_pkts = 0;
  b.xmit_data = b.rcv_data = b.xmit_pkts = b.rcv_pkts = 0;
  return same_counts(a, b);
}

std::optional<SelectBit> select_bit(Counter c) {
  using namespace mad::counter_select;
  switch (c) {
    case Counter::symbol_errors: return SelectBit{symbol_errors, 0};
    case Counter::link_error_recovery: return SelectBit{link_error_recovery, 0};
    case Counter::link_downed: return SelectBit{link_downed, 0};
    case Counter::rcv_errors: return SelectBit{rcv_errors, 0};
    case Counter::rcv_remote_phys_errors: return SelectBit{rcv_remote_phys_errors, 0};
    case Counter::rcv_switch_relay_errors: return SelectBit{rcv_switch_relay_errors, 0};
    case Counter::xmit_discards: return SelectBit{xmit_discards, 0};
    case Counter::xmit_constraint_errors: return SelectBit{xmit_constraint_errors, 0};
    case Counter::rcv_constraint_errors: return SelectBit{rcv_constraint_errors, 0};
    case Counter::local_link_integrity_errors: return SelectBit{local_link_integrity_errors, 0};
    case Counter::excessive_buffer_overrun_errors: return SelectBit{excessive_buffer_overrun_errors, 0};
    case Counter::vl15_dropped: return SelectBit{vl15_dropped, 0};
    case Counter::xmit_wait: return SelectBit{0, 1};
    case Counter::xmit_data: return SelectBit{xmit_data, 0};
    case Counter::rcv_data: return SelectBit{rcv_data, 0};
    case Counter::xmit_pkts: return SelectBit{xmit_pkts, 0};
    case Counter::rcv_pkts: return SelectBit{rcv_pkts, 0};
    default: return std::nullopt;
  }
}

Step PortTrack::advance(const Reading& r, mad::Nanos at) {
  Step s;
  if (!have_ || r.extended != last_.extended) {
    // First read, or the port now answers another set of counters: a baseline.
    s.first = true;
  } else {
    s.seconds = std::chrono::duration<double>(at - at_).count();
    for (size_t i = 0; i < kCounters; ++i) {
      if (r.bits[i] == 0) continue;
      if (r.v[i] < last_.v[i]) {
        s.reset = true;  // a reset: this counter starts again from what it shows
        continue;
      }
      s.delta[i] = r.v[i] - last_.v[i];
      totals_[i] += s.delta[i] * (i == index(Counter::xmit_data) || i == index(Counter::rcv_data) ? 4 : 1);
    }
    if (s.seconds > 0) {
      for (size_t i = 0; i < kCounters; ++i) {
        const bool data = i == index(Counter::xmit_data) || i == index(Counter::rcv_data);
        rates_[i] = static_cast<double>(s.delta[i]) * (data ? 4.0 : 1.0) / s.seconds;
      }
      has_rates_ = true;
    }
  }
  // Past half its range a counter is cleared now, so it cannot reach all ones (and stick)
  // before the next read unless it counts faster than that per sweep.
  for (size_t i = 0; i < kCounters; ++i) {
    const uint8_t bits = r.bits[i];
    if (bits == 0 || bits >= 64) continue;
    if (r.v[i] == all_ones(bits)) s.saturated = true;
    if (r.v[i] > all_ones(bits) / 2)
      if (auto b = select_bit(static_cast<Counter>(i))) {
        // With extended counters the 32-bit data ones are not used: no need to clear them.
        if (r.extended && i >= index(Counter::xmit_data)) continue;
        s.clear_select |= b->select;
        s.clear_select2 |= b->select2;
      }
  }
  last_ = r;
  have_ = true;
  at_ = at;
  return s;
}

void PortTrack::cleared(uint16_t select, uint8_t select2, const mad::PortCounters& after) {
  const Reading now = reading_of(after);
  for (size_t i = 0; i < kCounters; ++i) {
    auto b = select_bit(static_cast<Counter>(i));
    if (!b || !((b->select & select) || (b->select2 & select2))) continue;
    if (last_.extended && i >= index(Counter::xmit_data)) continue;  // read from the extended set
    last_.v[i] = now.v[i];
  }
}

}  // namespace sm::perfmgr
