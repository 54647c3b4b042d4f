// The performance management agent of every simulated node (class 0x04, IBA 1.3 16.1):
// ClassPortInfo, PortCounters and PortCountersExtended Get/Set, with ibsim's port rules (a CA
// answers for the port the MAD came in by, a switch for ports 0..N, 0xFF = all of them where
// AllPortSelect), and what feeds it: the counter injection calls, and traffic (set_traffic),
// counted into a port's registers on virtual time whenever they are read or changed.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/fabric.h"

namespace sim {

namespace {

// The register `which` names (const or not, as `c` is).
template <class C>
auto& reg(C& c, Counter which) {
  switch (which) {
    case Counter::symbol_errors: return c.symbol_errors;
    case Counter::link_error_recovery: return c.link_error_recovery;
    case Counter::link_downed: return c.link_downed;
    case Counter::rcv_errors: return c.rcv_errors;
    case Counter::rcv_remote_phys_errors: return c.rcv_remote_phys_errors;
    case Counter::rcv_switch_relay_errors: return c.rcv_switch_relay_errors;
    case Counter::xmit_discards: return c.xmit_discards;
    case Counter::xmit_constraint_errors: return c.xmit_constraint_errors;
    case Counter::rcv_constraint_errors: return c.rcv_constraint_errors;
    case Counter::local_link_integrity_errors: return c.local_link_integrity_errors;
    case Counter::excessive_buffer_overrun_errors: return c.excessive_buffer_overrun_errors;
    case Counter::vl15_dropped: return c.vl15_dropped;
    case Counter::xmit_data: return c.xmit_data;
    case Counter::rcv_data: return c.rcv_data;
    case Counter::xmit_pkts: return c.xmit_pkts;
    case Counter::rcv_pkts: return c.rcv_pkts;
    case Counter::xmit_wait: return c.xmit_wait;
    case Counter::ext_xmit_data: return c.ext_xmit_data;
    case Counter::ext_rcv_data: return c.ext_rcv_data;
    case Counter::ext_xmit_pkts: return c.ext_xmit_pkts;
    case Counter::ext_rcv_pkts: return c.ext_rcv_pkts;
    case Counter::unicast_xmit_pkts: return c.unicast_xmit_pkts;
    case Counter::unicast_rcv_pkts: return c.unicast_rcv_pkts;
    case Counter::multicast_xmit_pkts: return c.multicast_xmit_pkts;
    case Counter::multicast_rcv_pkts: return c.multicast_rcv_pkts;
  }
  return c.symbol_errors;  // not reached: every enumerator is handled above
}

bool is_extended(Counter which) { return which >= Counter::ext_xmit_data; }

// PortCounters registers saturate; the extended ones wrap (unsigned arithmetic).
uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

template <class T>
T clip(uint64_t v) {
  return static_cast<T>(std::min<uint64_t>(v, std::numeric_limits<T>::max()));
}

uint8_t clip4(uint64_t v) { return static_cast<uint8_t>(std::min<uint64_t>(v, 0xF)); }

// What PortCounters shows of the registers: each saturated at its wire width.
mad::PortCounters wire_counters(const SimCounters& c, bool xmit_wait) {
  mad::PortCounters w;
  w.symbol_errors = clip<uint16_t>(c.symbol_errors);
  w.link_error_recovery = clip<uint8_t>(c.link_error_recovery);
  w.link_downed = clip<uint8_t>(c.link_downed);
  w.rcv_errors = clip<uint16_t>(c.rcv_errors);
  w.rcv_remote_phys_errors = clip<uint16_t>(c.rcv_remote_phys_errors);
  w.rcv_switch_relay_errors = clip<uint16_t>(c.rcv_switch_relay_errors);
  w.xmit_discards = clip<uint16_t>(c.xmit_discards);
  w.xmit_constraint_errors = clip<uint8_t>(c.xmit_constraint_errors);
  w.rcv_constraint_errors = clip<uint8_t>(c.rcv_constraint_errors);
  w.local_link_integrity_errors = clip4(c.local_link_integrity_errors);
  w.excessive_buffer_overrun_errors = clip4(c.excessive_buffer_overrun_errors);
  w.vl15_dropped = clip<uint16_t>(c.vl15_dropped);
  w.xmit_data = clip<uint32_t>(c.xmit_data);
  w.rcv_data = clip<uint32_t>(c.rcv_data);
  w.xmit_pkts = clip<uint32_t>(c.xmit_pkts);
  w.rcv_pkts = clip<uint32_t>(c.rcv_pkts);
  w.xmit_wait = xmit_wait ? clip<uint32_t>(c.xmit_wait) : 0;
  return w;
}

mad::PortCountersExtended wire_ext(const SimCounters& c) {
  mad::PortCountersExtended w;
  w.xmit_data = c.ext_xmit_data;
  w.rcv_data = c.ext_rcv_data;
  w.xmit_pkts = c.ext_xmit_pkts;
  w.rcv_pkts = c.ext_rcv_pkts;
  w.unicast_xmit_pkts = c.unicast_xmit_pkts;
  w.unicast_rcv_pkts = c.unicast_rcv_pkts;
  w.multicast_xmit_pkts = c.multicast_xmit_pkts;
  w.multicast_rcv_pkts = c.multicast_rcv_pkts;
  return w;
}

// The sum AllPortSelect reports: PortCounters registers saturating, extended ones wrapping.
void accumulate(SimCounters& total, const SimCounters& c) {
  for (uint8_t i = 0; i <= static_cast<uint8_t>(Counter::multicast_rcv_pkts); ++i) {
    const auto k = static_cast<Counter>(i);
    uint64_t& t = reg(total, k);
    const uint64_t v = reg(c, k);
    t = is_extended(k) ? t + v : sat_add(t, v);
  }
}

void clear_selected(SimCounters& c, uint16_t sel, uint8_t sel2) {
  namespace cs = mad::counter_select;
  const std::pair<uint16_t, Counter> bits[] = {
      {cs::symbol_errors, Counter::symbol_errors},
      {cs::link_error_recovery, Counter::link_error_recovery},
      {cs::link_downed, Counter::link_downed},
      {cs::rcv_errors, Counter::rcv_errors},
      {cs::rcv_remote_phys_errors, Counter::rcv_remote_phys_errors},
      {cs::rcv_switch_relay_errors, Counter::rcv_switch_relay_errors},
      {cs::xmit_discards, Counter::xmit_discards},
      {cs::xmit_constraint_errors, Counter::xmit_constraint_errors},
      {cs::rcv_constraint_errors, Counter::rcv_constraint_errors},
      {cs::local_link_integrity_errors, Counter::local_link_integrity_errors},
      {cs::excessive_buffer_overrun_errors, Counter::excessive_buffer_overrun_errors},
      {cs::vl15_dropped, Counter::vl15_dropped},
      {cs::xmit_data, Counter::xmit_data},
      {cs::rcv_data, Counter::rcv_data},
      {cs::xmit_pkts, Counter::xmit_pkts},
      {cs::rcv_pkts, Counter::rcv_pkts},
  };
  for (const auto& [bit, k] : bits)
    if (sel & bit) reg(c, k) = 0;
  if (sel2 & cs::select2_xmit_wait) c.xmit_wait = 0;
}

void clear_selected_ext(SimCounters& c, uint16_t sel) {
  // CounterSelect bit i clears the i-th extended register, in attribute order.
  for (uint8_t i = 0; i < 8; ++i)
    if (sel & (1u << i))
      reg(c, static_cast<Counter>(static_cast<uint8_t>(Counter::ext_xmit_data) + i)) = 0;
}

}  // namespace

// --- injection ------------------------------------------------------------------------------

namespace {
mad::Result<void> check_counter_port(std::span<const SimNode> nodes, NodeIdx node, uint8_t port) {
  if (node >= nodes.size()) return mad::fail(mad::Errc::not_found, "no such node");
  const SimNode& n = nodes[node];
  if (port > n.num_ports || (port == 0 && !n.is_switch()))
    return mad::fail(mad::Errc::invalid, fmt::format("\"{}\" has no port {}", n.name, port));
  return {};
}
}  // namespace

namespace {
void apply_delta(SimCounters& c, const SimCounterDelta& d) {
  const std::pair<Counter, uint64_t> base[] = {
      {Counter::symbol_errors, d.symbol_errors},
      {Counter::link_error_recovery, d.link_error_recovery},
      {Counter::link_downed, d.link_downed},
      {Counter::rcv_errors, d.rcv_errors},
      {Counter::rcv_remote_phys_errors, d.rcv_remote_phys_errors},
      {Counter::rcv_switch_relay_errors, d.rcv_switch_relay_errors},
      {Counter::xmit_discards, d.xmit_discards},
      {Counter::xmit_constraint_errors, d.xmit_constraint_errors},
      {Counter::rcv_constraint_errors, d.rcv_constraint_errors},
      {Counter::local_link_integrity_errors, d.local_link_integrity_errors},
      {Counter::excessive_buffer_overrun_errors, d.excessive_buffer_overrun_errors},
      {Counter::vl15_dropped, d.vl15_dropped},
      {Counter::xmit_data, d.xmit_data},
      {Counter::rcv_data, d.rcv_data},
      {Counter::xmit_pkts, d.xmit_pkts},
      {Counter::rcv_pkts, d.rcv_pkts},
      {Counter::xmit_wait, d.xmit_wait},
  };
  for (const auto& [k, v] : base) reg(c, k) = sat_add(reg(c, k), v);
  // Traffic moves the extended registers too; they wrap.
  c.ext_xmit_data += d.xmit_data;
  c.ext_rcv_data += d.rcv_data;
  c.ext_xmit_pkts += d.xmit_pkts;
  c.ext_rcv_pkts += d.rcv_pkts;
  c.unicast_xmit_pkts += d.unicast_xmit_pkts;
  c.unicast_rcv_pkts += d.unicast_rcv_pkts;
  c.multicast_xmit_pkts += d.multicast_xmit_pkts;
  c.multicast_rcv_pkts += d.multicast_rcv_pkts;
}

// What a port's traffic adds from `t.since` to `now`: whole words, packets and ticks, the
// parts left over kept in `carry` for next time (so reading often loses nothing).
SimCounterDelta traffic_delta(const SimPortTraffic& t, mad::Nanos now, uint8_t mtu, std::array<double, 5>& carry) {
  SimCounterDelta d;
  if (!t.active() || now <= t.since) return d;
  const double s = static_cast<double>((now - t.since).count()) * 1e-9;
  const double packet = static_cast<double>(1u << std::clamp<unsigned>(mtu + 7u, 8u, 12u));  // 256..4096 bytes
  auto take = [&](size_t i, double add) {
    carry[i] += add;
    const double whole = std::floor(carry[i]);
    carry[i] -= whole;
    return whole >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(whole);
  };
  d.xmit_data = take(0, t.xmit_bytes_per_s * s / 4);
  d.xmit_pkts = take(1, t.xmit_bytes_per_s * s / packet);
  d.rcv_data = take(2, t.rcv_bytes_per_s * s / 4);
  d.rcv_pkts = take(3, t.rcv_bytes_per_s * s / packet);
  d.xmit_wait = take(4, t.xmit_wait * s * 1e9 / static_cast<double>(kXmitWaitTickNs));
  d.unicast_xmit_pkts = d.xmit_pkts;
  d.unicast_rcv_pkts = d.rcv_pkts;
  return d;
}
}  // namespace

void SimFabric::accrue_traffic(SimPort& p) {
  if (p.traffic.active()) apply_delta(p.counters, traffic_delta(p.traffic, clock_.now(), p.neighbor_mtu, p.traffic.carry));
  p.traffic.since = clock_.now();
}

mad::Result<void> SimFabric::set_traffic(std::span<const PortRate> rates) {
  for (const PortRate& r : rates) {
    if (auto ok = check_counter_port(nodes_, r.node, r.port); !ok) return ok;
    if (!(r.xmit_gbps >= 0 && r.rcv_gbps >= 0 && std::isfinite(r.xmit_gbps) && std::isfinite(r.rcv_gbps)) ||
        !(r.xmit_wait >= 0 && r.xmit_wait <= 1))
      return mad::fail(mad::Errc::invalid, fmt::format("traffic on \"{}\"[{}]: rates must be finite and >= 0, the wait in [0, 1]",
                                                       nodes_[r.node].name, r.port));
  }
  for (SimNode& n : nodes_)
    for (SimPort& p : n.ports)
      if (p.traffic.active()) {
        accrue_traffic(p);
        p.traffic.xmit_bytes_per_s = p.traffic.rcv_bytes_per_s = p.traffic.xmit_wait = 0;
      }
  for (const PortRate& r : rates) {
    SimPort& p = nodes_[r.node].ports[r.port];
    accrue_traffic(p);
    p.traffic.xmit_bytes_per_s += r.xmit_gbps * 1e9 / 8;
    p.traffic.rcv_bytes_per_s += r.rcv_gbps * 1e9 / 8;
    p.traffic.xmit_wait = std::min(1.0, std::max(p.traffic.xmit_wait, r.xmit_wait));
  }
  return {};
}

mad::Result<void> SimFabric::add_counters(NodeIdx node, uint8_t port, const SimCounterDelta& d) {
  if (auto r = check_counter_port(nodes_, node, port); !r) return r;
  accrue_traffic(nodes_[node].ports[port]);
  apply_delta(nodes_[node].ports[port].counters, d);
  return {};
}

mad::Result<void> SimFabric::add_counter(NodeIdx node, uint8_t port, Counter which, uint64_t amount) {
  if (auto r = check_counter_port(nodes_, node, port); !r) return r;
  accrue_traffic(nodes_[node].ports[port]);
  uint64_t& v = reg(nodes_[node].ports[port].counters, which);
  v = is_extended(which) ? v + amount : sat_add(v, amount);
  return {};
}

mad::Result<void> SimFabric::set_counter(NodeIdx node, uint8_t port, Counter which, uint64_t value) {
  if (auto r = check_counter_port(nodes_, node, port); !r) return r;
  accrue_traffic(nodes_[node].ports[port]);
  reg(nodes_[node].ports[port].counters, which) = value;
  return {};
}

mad::Result<SimCounters> SimFabric::counters(NodeIdx node, uint8_t port) const {
  if (auto r = check_counter_port(nodes_, node, port); !r) return std::unexpected(r.error());
  const SimPort& p = nodes_[node].ports[port];
  SimCounters c = p.counters;
  std::array<double, 5> carry = p.traffic.carry;  // as a PMA read now would count it
  if (p.traffic.active()) apply_delta(c, traffic_delta(p.traffic, clock_.now(), p.neighbor_mtu, carry));
  return c;
}

// --- the agent ------------------------------------------------------------------------------

void SimFabric::process_pma(NodeIdx ni, uint8_t in_port, mad::PmaMad& m, uint16_t slid) {
  SimNode& n = nodes_[ni];
  ++stats_.pma_processed;
  ++n.pma_handled;
  const bool is_get = m.method == mad::method::get;
  const bool is_set = m.method == mad::method::set;
  uint16_t st = mad::status::ok;

  // The ports a PortSelect names, or none (status invalid_field).
  auto selected = [&](uint8_t sel, uint8_t& first, uint8_t& last) {
    if (sel == mad::kAllPorts) {
      if (!(n.pma_cap & mad::pma_cap::all_port_select)) return false;
      first = n.is_switch() ? 0 : 1;
      last = n.num_ports;
      return true;
    }
    if (n.is_switch() ? sel > n.num_ports : sel != in_port) return false;
    first = last = sel;
    return true;
  };

  if (m.class_version != mad::kPmaClassVersion) {
    st = mad::status::bad_version;
  } else if (!is_get && !is_set) {
    st = mad::status::unsupported_method;
  } else {
    switch (m.attr_id) {
      case mad::pma_attr::class_port_info: {
        if (is_set) { st = mad::status::unsupported_method_attr; break; }
        mad::PmaClassPortInfo cpi;
        cpi.cap_mask = n.pma_cap;
        cpi.resp_time_value = 18;  // 4.096 us * 2^18, about 1 s, as HCAs report
        m.data = mad::encode_pma_attr(cpi);
        break;
      }
      case mad::pma_attr::port_counters: {
        const auto req = mad::PortCounters::decode(m.data);  // cannot fail: 192 bytes
        uint8_t first = 0, last = 0;
        if (m.attr_mod != 0 || !req || !selected(req->port_select, first, last)) {
          st = mad::status::invalid_field;
          break;
        }
        SimCounters total;
        for (unsigned p = first; p <= last; ++p) {
          accrue_traffic(n.ports[p]);
          SimCounters& c = n.ports[p].counters;
          if (is_set) clear_selected(c, req->counter_select, req->counter_select2);
          accumulate(total, c);
        }
        mad::PortCounters out = wire_counters(total, (n.pma_cap & mad::pma_cap::xmit_wait) != 0);
        out.port_select = req->port_select;
        out.counter_select = req->counter_select;
        out.counter_select2 = req->counter_select2;
        m.data = mad::encode_pma_attr(out);
        break;
      }
      case mad::pma_attr::port_counters_ext: {
        if (!(n.pma_cap & (mad::pma_cap::ext_width | mad::pma_cap::ext_width_noietf))) {
          st = mad::status::unsupported_method_attr;
          break;
        }
        const auto req = mad::PortCountersExtended::decode(m.data);
        uint8_t first = 0, last = 0;
        if (m.attr_mod != 0 || !req || !selected(req->port_select, first, last)) {
          st = mad::status::invalid_field;
          break;
        }
        SimCounters total;
        for (unsigned p = first; p <= last; ++p) {
          accrue_traffic(n.ports[p]);
          SimCounters& c = n.ports[p].counters;
          if (is_set) clear_selected_ext(c, req->counter_select);
          accumulate(total, c);
        }
        mad::PortCountersExtended out = wire_ext(total);
        out.port_select = req->port_select;
        out.counter_select = req->counter_select;
        m.data = mad::encode_pma_attr(out);
        break;
      }
      default:  // SamplesResult, PortRcvErrorDetails, vendor attributes, ...
        st = mad::status::unsupported_method_attr;
        break;
    }
  }

  m.method = mad::method::get_resp;
  m.status = st;
  const mad::Nanos start = std::max(clock_.now(), n.pma_busy_until);
  n.pma_busy_until = start + cfg_.sma_latency;
  mad::Packet resp;
  resp.mad = mad::encode_pma(m);
  resp.addr.lid = mad::Lid(slid);
  resp.addr.qpn = 1;
  resp.addr.qkey = mad::kGsiQkey;
  const SimPort& own = n.ports[n.is_switch() ? 0 : in_port];
  route_lid(resp, ni, in_port, own.lid, slid, n.pma_busy_until - clock_.now());
}

}  // namespace sim
