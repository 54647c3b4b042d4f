// How MADs move through the simulated fabric: directed routes (outbound along InitialPath,
// back along ReturnPath, IBA 14.2.2) and LID routes through the switches' LFTs. A MAD that
// cannot go on is dropped silently, as hardware drops it; the SM sees a timeout.
#include <fmt/format.h>

#include "sim/fabric.h"

namespace sim {

namespace {
constexpr int kMaxLidHops = 64;  // a LID-routed MAD still moving after this is in a loop

bool is_smp(const mad::Packet& p) {
  return p.mad[1] == mad::mgmt_class::subn_lid_routed || p.mad[1] == mad::mgmt_class::subn_directed_route;
}

// Who takes a MAD at the port it arrives at: the endpoint attached there (an SM, or a client
// behind QP1: SA queries, Reports) or the node's agents (SMA, PMA).
bool to_endpoint(const mad::Packet& p) {
  // PerfMgt requests are for the node's PMA; its answers go to whoever asked.
  if (p.mad[1] == mad::mgmt_class::perf) return mad::method::is_response(p.mad[3]);
  if (!is_smp(p)) return true;  // other GMPs go to the agents behind QP1, never to the SMA
  const uint8_t m = p.mad[3];
  const uint16_t attr = static_cast<uint16_t>((p.mad[16] << 8) | p.mad[17]);
  return mad::method::is_response(m) || m == mad::method::trap || m == mad::method::report ||
         attr == mad::attr::sm_info;
}
}  // namespace

bool SimFabric::lost_on(const SimPort& a) {
  double p = a.drop_rate;
  if (a.peer != kNoNode) p += nodes_[a.peer].ports[a.peer_port].drop_rate;
  if (p <= 0.0) return false;
  if (rng_.uniform() >= p) return false;
  ++stats_.dropped_loss;
  return true;
}

bool SimFabric::owns_lid(const SimNode& n, uint8_t port, uint16_t lid) const {
  const SimPort& p = n.ports[n.is_switch() ? 0 : port];
  return p.lid != 0 && lid >= p.lid && lid < p.lid + (1u << p.lmc);
}

void SimFabric::arrive(Arrival a, mad::Nanos delay) {
  // The fabric-wide rate is per MAD, however many links it crosses.
  if (cfg_.drop_rate > 0 && rng_.uniform() < cfg_.drop_rate) {
    ++stats_.dropped_loss;
    return;
  }
  events_.push(clock_.now() + delay, std::move(a));
}

void SimFabric::route(const mad::Packet& p, NodeIdx node, uint8_t port, uint16_t slid,
                      mad::Nanos delay) {
  if (p.mad[1] == mad::mgmt_class::subn_directed_route) {
    auto smp = mad::decode_smp(p.mad);
    if (!smp) {
      ++stats_.dropped_malformed;
      return;
    }
    route_directed(*smp, node, port, delay);
    return;
  }
  route_lid(p, node, port, slid, p.addr.lid.value(), delay);
}

void SimFabric::route_directed(mad::Smp& smp, NodeIdx node, uint8_t port, mad::Nanos delay) {
  // Only pure directed routes (DrSLID = DrDLID = permissive), as ibsim.
  if (!smp.dr_slid.is_permissive() || !smp.dr_dlid.is_permissive()) {
    ++stats_.dropped_malformed;
    return;
  }
  const int hops = smp.hop_cnt;
  if (!smp.direction) {
    // Outbound: hop i leaves the current node by InitialPath[i]; a CA only sends out of the
    // port its SM sits on, and never forwards.
    for (int i = 1; i <= hops; ++i) {
      const SimNode& n = nodes_[node];
      const uint8_t out = smp.initial_path[static_cast<size_t>(i)];
      const bool may_send = n.is_switch() ? (out >= 1 && out <= n.num_ports)
                                          : (i == 1 && out == port);
      if (!may_send || !n.present || (n.silent && i > 1) || !n.ports[out].link_up()) {
        ++stats_.dropped_no_route;
        return;
      }
      const SimPort& sp = n.ports[out];
      if (lost_on(sp)) return;
      smp.return_path[static_cast<size_t>(i)] = sp.peer_port;
      node = sp.peer;
      port = sp.peer_port;
      delay += cfg_.hop_latency;
    }
    smp.hop_ptr = static_cast<uint8_t>(hops + 1);
    mad::Packet pkt;
    pkt.mad = mad::encode_smp(smp);
    pkt.addr.lid = mad::kPermissiveLid;
    arrive(Arrival{pkt, node, port, to_endpoint(pkt), 0xFFFF}, delay);
    return;
  }
  // Returning: hop i goes back out of ReturnPath[i] to the node that sent it on.
  for (int i = hops; i >= 1; --i) {
    const SimNode& n = nodes_[node];
    const uint8_t out = smp.return_path[static_cast<size_t>(i)];
    if (!n.present || out > n.num_ports || out == 0 || !n.ports[out].link_up()) {
      ++stats_.dropped_no_route;
      return;
    }
    const SimPort& sp = n.ports[out];
    if (lost_on(sp)) return;
    node = sp.peer;
    port = sp.peer_port;
    delay += cfg_.hop_latency;
  }
  smp.hop_ptr = 0;
  mad::Packet pkt;
  pkt.mad = mad::encode_smp(smp);
  pkt.addr.lid = mad::kPermissiveLid;
  arrive(Arrival{pkt, node, port, true, 0xFFFF}, delay);
}

void SimFabric::route_lid(const mad::Packet& p, NodeIdx node, uint8_t port, uint16_t slid,
                          uint16_t dlid, mad::Nanos delay) {
  for (int hop = 0; hop <= kMaxLidHops; ++hop) {
    const SimNode& n = nodes_[node];
    if (!n.present) break;
    if (owns_lid(n, port, dlid) && hop > 0) {
      mad::Packet in = p;
      in.addr.lid = mad::Lid(slid);
      arrive(Arrival{in, node, port, to_endpoint(p), slid}, delay);
      return;
    }
    uint8_t out;
    if (n.is_switch()) {
      if (owns_lid(n, port, dlid)) {  // a switch addressing itself (hop 0)
        mad::Packet in = p;
        in.addr.lid = mad::Lid(slid);
        arrive(Arrival{in, node, port, to_endpoint(p), slid}, delay);
        return;
      }
      const SimSwitch& sw = *n.sw;
      if (dlid == 0 || dlid > sw.lft_top || dlid >= sw.lft.size()) break;
      out = sw.lft[dlid];
      if (out == 0 || out > n.num_ports) break;
    } else {
      if (hop > 0) break;  // a CA does not forward
      if (owns_lid(n, port, dlid)) {  // loopback to its own port
        mad::Packet in = p;
        in.addr.lid = mad::Lid(slid);
        arrive(Arrival{in, node, port, to_endpoint(p), slid}, delay);
        return;
      }
      out = port;
    }
    const SimPort& sp = n.ports[out];
    if (!sp.link_up() || sp.state != mad::PortState::active ||
        nodes_[sp.peer].ports[sp.peer_port].state != mad::PortState::active)
      break;
    if (lost_on(sp)) return;
    node = sp.peer;
    port = sp.peer_port;
    delay += cfg_.hop_latency;
    if (hop == kMaxLidHops) {
      ++stats_.dropped_loop;
      return;
    }
  }
  ++stats_.dropped_no_route;
}

void SimFabric::deliver(Arrival& a) {
  SimNode& n = nodes_[a.node];
  if (!n.present) {
    ++stats_.dropped_no_route;
    return;
  }
  if (a.to_endpoint) {
    // An SM on a switch sits behind port 0, whichever port the MAD came in by.
    const EndpointId ep = n.ports[n.is_switch() ? 0 : a.port].endpoint;
    if (ep == kNoEndpoint) {
      // No SM here: an SMInfo request gets the answer a port without an SM gives; a GMP
      // finds no agent and is dropped.
      if (is_smp(a.pkt) && !mad::method::is_response(a.pkt.mad[3]) && a.pkt.mad[3] != mad::method::trap) {
        auto smp = mad::decode_smp(a.pkt.mad);
        if (smp) process_smp(a.node, a.port, *smp, a.slid);
        return;
      }
      ++stats_.dropped_no_route;
      return;
    }
    endpoints_[ep].inbox.push_back(std::move(a.pkt));
    ++stats_.delivered;
    return;
  }
  if (n.silent) {
    ++stats_.dropped_no_route;
    return;
  }
  if (a.pkt.mad[1] == mad::mgmt_class::perf) {
    auto pma = mad::decode_pma(a.pkt.mad);
    if (!pma) {
      ++stats_.dropped_malformed;
      return;
    }
    process_pma(a.node, a.port, *pma, a.slid);
    return;
  }
  auto smp = mad::decode_smp(a.pkt.mad);
  if (!smp) {
    ++stats_.dropped_malformed;
    return;
  }
  process_smp(a.node, a.port, *smp, a.slid);
}

}  // namespace sim
