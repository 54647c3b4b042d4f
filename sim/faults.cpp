// Fault injection (links down and up, nodes removed and rebooted, MAD loss) and the traps the
// hardware sends when its links change. (Counter injection sits with the PMA, in pma.cpp.)
#include <fmt/format.h>

#include <algorithm>

#include "mad/attributes.h"
#include "sim/fabric.h"

namespace sim {

void SimFabric::mark_state_change(NodeIdx node) {
  if (nodes_[node].is_switch()) nodes_[node].sw->port_state_change = true;
}

namespace {
// LinkDownedCounter counts a link leaving LinkUp, as the port's PMA sees it.
void count_link_downed(SimPort& p) {
  if (p.counters.link_downed != UINT64_MAX) ++p.counters.link_downed;
}
}  // namespace

void SimFabric::send_trap(NodeIdx ni, uint8_t port, uint16_t number, uint32_t detail) {
  const SimNode& n = nodes_[ni];
  const SimPort& from = n.ports[n.is_switch() ? 0 : port];
  if (number == mad::trap::link_state_change) {
    send_notice(ni, port, mad::Notice::make_trap128(mad::Lid(from.lid), mad::Lid(from.lid)));
    return;
  }
  mad::Trap144 t;
  t.lid = mad::Lid(from.lid);
  t.capability_mask = detail;
  send_notice(ni, port,
              mad::Notice::make_trap144(mad::Lid(from.lid),
                                        n.is_switch() ? mad::producer_type::sw
                                                      : mad::producer_type::ca,
                                        t));
}

// Trap 256 for an SMP the M_Key check refused at (ni, port). LIDADDR is the requester: the
// SLID of a LID-routed SMP; a directed-route one has no SLID, so it is the permissive LID and
// the DR fields say where the SMP came from. DRNoticeReturnPath is the SMP's ReturnPath as it
// lies in the SMP (byte i = hop i, byte 0 unused), cut at 30 bytes: truncated past 29 hops.
void SimFabric::send_mkey_trap(NodeIdx ni, uint8_t port, const mad::Smp& smp, uint16_t slid) {
  const SimNode& n = nodes_[ni];
  const SimPort& from = n.ports[n.is_switch() ? 0 : port];
  mad::Trap256 t;
  t.method = smp.method;
  t.attr_id = smp.attr_id;
  t.attr_mod = smp.attr_mod;
  t.m_key = smp.mkey;
  if (smp.is_directed()) {
    t.lid = mad::kPermissiveLid;
    t.dr_slid = smp.dr_slid;
    t.dr_notice = true;
    t.dr_hop_count = smp.hop_cnt;
    const size_t room = t.dr_return_path.size();
    t.dr_path_truncated = smp.hop_cnt >= room;
    const size_t n_bytes = std::min<size_t>(room, size_t{smp.hop_cnt} + 1);
    std::copy_n(smp.return_path.begin(), n_bytes, t.dr_return_path.begin());
  } else {
    t.lid = mad::Lid(slid);
  }
  send_notice(ni, port,
              mad::Notice::make_trap256(mad::Lid(from.lid),
                                        n.is_switch() ? mad::producer_type::sw
                                                      : mad::producer_type::ca,
                                        t));
}

// A trap goes LID-routed from the port (port 0 of a switch) to its MasterSMLID, once it has
// a LID and an SM LID.
void SimFabric::send_notice(NodeIdx ni, uint8_t port, const mad::Notice& notice) {
  const SimNode& n = nodes_[ni];
  if (!n.present) return;
  const uint8_t out = n.is_switch() ? 0 : port;
  const SimPort& from = n.ports[out];
  if (from.lid == 0 || from.sm_lid == 0) return;  // nobody to tell yet
  mad::Smp smp = mad::make_lid_smp(mad::method::trap, mad::attr::notice, 0);
  smp.tid = 0x5452415000000000ULL | ++stats_.traps_sent;  // "TRAP"
  smp.data = mad::encode_attr(notice);
  mad::Packet pkt;
  pkt.mad = mad::encode_smp(smp);
  pkt.addr.lid = mad::Lid(from.sm_lid);
  route_lid(pkt, ni, out, from.lid, from.sm_lid, cfg_.sma_latency);
}

namespace {
mad::Result<void> check_port(const std::vector<SimNode>& nodes, NodeIdx node, uint8_t port) {
  if (node >= nodes.size()) return mad::fail(mad::Errc::not_found, "no such node");
  if (port == 0 || port > nodes[node].num_ports)
    return mad::fail(mad::Errc::invalid, fmt::format("\"{}\" has no port {}", nodes[node].name, port));
  return {};
}
}  // namespace

mad::Result<void> SimFabric::link_down(NodeIdx node, uint8_t port) {
  if (auto r = check_port(nodes_, node, port); !r) return r;
  SimPort& a = nodes_[node].ports[port];
  if (!a.link_up()) return {};
  const NodeIdx peer = a.peer;
  SimPort& b = nodes_[peer].ports[a.peer_port];
  for (SimPort* p : {&a, &b}) {
    p->peer = kNoNode;
    p->state = mad::PortState::down;
    p->phys = mad::PhysState::polling;
    count_link_downed(*p);
  }
  for (NodeIdx n : {node, peer}) {
    mark_state_change(n);
    if (nodes_[n].is_switch()) send_trap(n, 0, mad::trap::link_state_change, 0);
  }
  return {};
}

mad::Result<void> SimFabric::link_up(NodeIdx node, uint8_t port) {
  if (auto r = check_port(nodes_, node, port); !r) return r;
  SimPort& a = nodes_[node].ports[port];
  if (a.link_up()) return {};
  if (a.cable_node == kNoNode)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("\"{}\"[{}] has no cable", nodes_[node].name, port));
  if (!nodes_[node].present || !nodes_[a.cable_node].present) return {};  // nothing to train with
  SimPort& b = nodes_[a.cable_node].ports[a.cable_port];
  a.peer = a.cable_node;
  a.peer_port = a.cable_port;
  b.peer = node;
  b.peer_port = port;
  for (SimPort* p : {&a, &b}) {
    p->state = mad::PortState::init;
    p->phys = mad::PhysState::link_up;
  }
  for (NodeIdx n : {node, a.cable_node}) {
    mark_state_change(n);
    if (nodes_[n].is_switch()) send_trap(n, 0, mad::trap::link_state_change, 0);
  }
  return {};
}

mad::Result<void> SimFabric::remove_node(NodeIdx node) {
  if (node >= nodes_.size()) return mad::fail(mad::Errc::not_found, "no such node");
  SimNode& n = nodes_[node];
  if (!n.present) return {};
  // Its neighbours see their links drop (and trap); the node itself says nothing.
  for (uint8_t p = 1; p <= n.num_ports; ++p) {
    SimPort& a = n.ports[p];
    if (!a.link_up()) continue;
    SimPort& b = nodes_[a.peer].ports[a.peer_port];
    const NodeIdx peer = a.peer;
    b.peer = kNoNode;
    b.state = mad::PortState::down;
    b.phys = mad::PhysState::polling;
    count_link_downed(b);
    a.peer = kNoNode;
    a.state = mad::PortState::down;
    a.phys = mad::PhysState::polling;
    mark_state_change(peer);
    if (nodes_[peer].is_switch()) send_trap(peer, 0, mad::trap::link_state_change, 0);
  }
  n.present = false;
  return {};
}

mad::Result<void> SimFabric::restore_node(NodeIdx node) {
  if (node >= nodes_.size()) return mad::fail(mad::Errc::not_found, "no such node");
  SimNode& n = nodes_[node];
  if (n.present) return {};
  n.present = true;
  n.sma_busy_until = clock_.now();
  n.pma_busy_until = clock_.now();
  for (SimPort& p : n.ports) {  // as after a power cycle
    p.counters = {};  // the PMA starts counting from 0 again
    p.lid = 0;
    p.lmc = 0;
    p.sm_lid = 0;
    p.mkey = 0;  // no M_Key in NVRAM: protection starts off
    p.mkey_protect = 0;
    p.mkey_lease = 0;
    p.mkey_violations = 0;
    p.mkey_lease_deadline = kMkeyLeaseNotRunning;
    p.client_rereg = false;
    std::fill(p.pkeys.begin(), p.pkeys.end(), uint16_t{0});
    if (!p.pkeys.empty()) p.pkeys[0] = 0xFFFF;
    p.pkey_enforce_in = p.pkey_enforce_out = false;
    reset_qos_tables(p);
    if (!n.is_switch() || p.num != 0) {
      p.state = mad::PortState::down;
      p.phys = mad::PhysState::polling;
    }
  }
  if (n.is_switch()) {
    SimSwitch& sw = *n.sw;
    sw.lft.clear();
    sw.lft_top = 0;
    sw.mft.clear();
    sw.mft_top = 0;
    sw.port_state_change = true;
  }
  for (uint8_t p = 1; p <= n.num_ports; ++p)
    if (n.ports[p].cable_node != kNoNode) (void)link_up(node, p);
  return {};
}

mad::Result<void> SimFabric::set_mkey(NodeIdx node, uint8_t port, uint64_t key,
                                      uint8_t protect_bits, uint16_t lease_s) {
  if (node >= nodes_.size()) return mad::fail(mad::Errc::not_found, "no such node");
  SimNode& n = nodes_[node];
  if (n.is_switch() ? port != 0 : (port == 0 || port > n.num_ports))
    return mad::fail(mad::Errc::invalid,
                     fmt::format("\"{}\" has no M_Key at port {}{}", n.name, port,
                                 n.is_switch() ? " (a switch keeps its one M_Key at port 0)" : ""));
  if (protect_bits > 3)
    return mad::fail(mad::Errc::invalid,
                     fmt::format("M_Key protect bits {} (must be 0..3)", protect_bits));
  SimPort& p = n.ports[port];
  p.mkey = key;
  p.mkey_protect = protect_bits;
  p.mkey_lease = lease_s;
  p.mkey_lease_deadline = kMkeyLeaseNotRunning;  // as an accepted Set stops it
  return {};
}

mad::Result<void> SimFabric::set_silent(NodeIdx node, bool silent) {
  if (node >= nodes_.size()) return mad::fail(mad::Errc::not_found, "no such node");
  nodes_[node].silent = silent;
  return {};
}

mad::Result<void> SimFabric::set_port_drop_rate(NodeIdx node, uint8_t port, double rate) {
  if (node >= nodes_.size() || port > nodes_[node].num_ports)
    return mad::fail(mad::Errc::not_found, "no such port");
  nodes_[node].ports[port].drop_rate = rate;
  return {};
}

}  // namespace sim
