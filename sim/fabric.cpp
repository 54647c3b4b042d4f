#include "sim/fabric.h"

#include <fmt/format.h>

namespace sim {

namespace {
// PortInfo CapabilityMask bits the simulated agents advertise.
constexpr uint32_t kCapIsSm = 1u << 1;
constexpr uint32_t kCapIsTrapSupported = 1u << 3;
constexpr uint32_t kCapIsSlMapping = 1u << 6;
constexpr uint32_t kCapIsSystemImageGuid = 1u << 11;
constexpr uint32_t kCapIsPkeySwitchExternalPortTrap = 1u << 12;
constexpr uint32_t kCapIsClientReregistration = 1u << 25;
constexpr uint32_t kCapIsMulticastFdbTop = 1u << 30;

constexpr uint32_t kDefaultSwitchVendor = 0x0008F1, kDefaultCaVendor = 0x0002C9;
constexpr uint16_t kDefaultSwitchDevice = 0xA87C, kDefaultCaDevice = 0x5A44;

// LinkWidthSupported of a port whose widest width is `w` (the bits are not in lane order).
uint8_t widths_up_to(uint8_t w) {
  constexpr uint8_t kByLanes[] = {width::x1, width::x2, width::x4, width::x8, width::x12};
  uint8_t bits = 0;
  for (uint8_t x : kByLanes) {
    bits |= x;
    if (x == w) return bits;
  }
  return 0x1F;
}

void init_port(SimNode& n, SimPort& p) {
  p.guid = n.is_switch() ? n.guid : mad::Guid(n.guid.value() + p.num);
  p.width_supported = 0x1F;  // 1x, 4x, 8x, 12x, 2x
  p.width_enabled = p.width_supported;
  p.speed_supported = 0x7;  // SDR, DDR, QDR
  p.speed_enabled = p.speed_supported;
  p.speed_ext_supported = 0xF;  // FDR, EDR, HDR, NDR
  p.speed_ext_enabled = p.speed_ext_supported;
  p.cap_mask = kCapIsTrapSupported | kCapIsSlMapping | kCapIsSystemImageGuid;
  if (!n.is_switch()) p.cap_mask |= kCapIsClientReregistration;
  if (n.is_switch() && p.num == 0) p.cap_mask |= kCapIsPkeySwitchExternalPortTrap | kCapIsMulticastFdbTop;
  const size_t pkey_entries = (n.is_switch() && p.num != 0) ? n.sw->pkey_enforce_cap
                                                            : n.partition_cap;
  p.pkeys.assign(pkey_entries, 0);
  if (!p.pkeys.empty()) p.pkeys[0] = 0xFFFF;
  reset_qos_tables(p);
  if (n.is_switch() && p.num == 0) {  // the base management port is always up
    p.state = mad::PortState::active;
    p.phys = mad::PhysState::link_up;
  }
}
}  // namespace

mad::Result<std::unique_ptr<SimFabric>> SimFabric::build(FabricSpec spec, SimConfig cfg) {
  assign_guids(spec);
  std::unique_ptr<SimFabric> f(new SimFabric());
  f->cfg_ = cfg;
  f->rng_ = SplitMix64(cfg.seed);
  f->nodes_.resize(spec.nodes.size());
  f->by_name_.reserve(spec.nodes.size());
  f->by_guid_.reserve(spec.nodes.size());
  for (NodeIdx i = 0; i < spec.nodes.size(); ++i) {
    const SpecNode& s = spec.nodes[i];
    SimNode& n = f->nodes_[i];
    if (s.num_ports == 0 || s.num_ports > 254)
      return mad::fail(mad::Errc::invalid, fmt::format("node \"{}\": {} ports", s.name, s.num_ports));
    n.type = s.type;
    n.name = s.name;
    n.description = s.description.empty() ? s.name : s.description;
    n.guid = s.node_guid;
    n.system_guid = s.system_guid.is_zero() ? s.node_guid : s.system_guid;
    n.num_ports = s.num_ports;
    const bool is_sw = s.type == mad::NodeType::sw;
    n.vendor_id = s.vendor_id ? s.vendor_id : (is_sw ? kDefaultSwitchVendor : kDefaultCaVendor);
    n.device_id = s.device_id ? s.device_id : (is_sw ? kDefaultSwitchDevice : kDefaultCaDevice);
    n.partition_cap = is_sw ? 8 : 64;
    if (is_sw) {
      n.sw = std::make_unique<SimSwitch>();
      n.sw->lft_cap = cfg.lft_cap;
    }
    n.ports.resize(static_cast<size_t>(s.num_ports) + 1);
    for (uint8_t p = 0; p <= s.num_ports; ++p) {
      n.ports[p].num = p;
      init_port(n, n.ports[p]);
    }
    if (!f->by_name_.emplace(n.name, i).second)
      return mad::fail(mad::Errc::conflict, fmt::format("duplicate node name \"{}\"", n.name));
    if (!f->by_guid_.emplace(n.guid, i).second && !cfg.allow_duplicate_guids)
      return mad::fail(mad::Errc::conflict, fmt::format("duplicate node GUID {}", n.guid));
  }
  for (const SpecLink& l : spec.links) {
    if (l.a >= f->nodes_.size() || l.b >= f->nodes_.size())
      return mad::fail(mad::Errc::invalid, "link to a node that does not exist");
    SimNode& a = f->nodes_[l.a];
    SimNode& b = f->nodes_[l.b];
    if (l.port_a == 0 || l.port_a > a.num_ports || l.port_b == 0 || l.port_b > b.num_ports)
      return mad::fail(mad::Errc::invalid,
                       fmt::format("link \"{}\"[{}] - \"{}\"[{}]: no such port", a.name,
                                   l.port_a, b.name, l.port_b));
    SimPort& pa = a.ports[l.port_a];
    SimPort& pb = b.ports[l.port_b];
    if (pa.cable_node != kNoNode || pb.cable_node != kNoNode)
      return mad::fail(mad::Errc::conflict,
                       fmt::format("link \"{}\"[{}] - \"{}\"[{}]: port cabled twice", a.name,
                                   l.port_a, b.name, l.port_b));
    pa.cable_node = l.b;
    pa.cable_port = l.port_b;
    pb.cable_node = l.a;
    pb.cable_port = l.port_a;
    for (SimPort* p : {&pa, &pb}) {
      p->peer = p->cable_node;
      p->peer_port = p->cable_port;
      p->state = mad::PortState::init;
      p->phys = mad::PhysState::link_up;
      p->width_active = l.width;
      p->speed_active = l.speed;
      p->speed_ext_active = l.speed_ext;
      // A cabled port has the lanes and the speeds its link trained to, and the narrower and
      // slower ones (a 4x HDR port: 1x, 2x, 4x; FDR, EDR, HDR), so a healthy link runs at the
      // best both ends enable; a test lowers width_active to make a degraded cable.
      p->width_supported = widths_up_to(l.width);
      p->width_enabled = p->width_supported;
      if (l.speed_ext != speed::ext_none) {
        p->speed_ext_supported = static_cast<uint8_t>((l.speed_ext << 1) - 1);
        p->speed_ext_enabled = p->speed_ext_supported;
      }
    }
  }
  for (SimNode& n : f->nodes_)
    if (n.is_switch()) n.sw->port_state_change = true;
  return f;
}

mad::Result<EndpointId> SimFabric::attach(NodeIdx node, uint8_t port) {
  if (node >= nodes_.size()) return mad::fail(mad::Errc::not_found, "no such node");
  SimNode& n = nodes_[node];
  if (n.is_switch() ? port != 0 : (port == 0 || port > n.num_ports))
    return mad::fail(mad::Errc::invalid,
                     fmt::format("an SM attaches at switch port 0 or a CA port, not \"{}\"[{}]",
                                 n.name, port));
  if (n.ports[port].endpoint != kNoEndpoint)
    return mad::fail(mad::Errc::conflict, fmt::format("\"{}\"[{}] already has an SM", n.name, port));
  EndpointId id = static_cast<EndpointId>(endpoints_.size());
  endpoints_.push_back(Endpoint{node, port, {}});
  n.ports[port].endpoint = id;
  return id;
}

void SimFabric::set_is_sm(EndpointId ep, bool on) {
  SimPort& p = nodes_[endpoints_[ep].node].ports[endpoints_[ep].port];
  const uint32_t before = p.cap_mask;
  p.cap_mask = on ? (p.cap_mask | kCapIsSm) : (p.cap_mask & ~kCapIsSm);
  if (p.cap_mask != before) send_trap(endpoints_[ep].node, endpoints_[ep].port, 144, p.cap_mask);
}

void SimFabric::detach(EndpointId ep) {
  Endpoint& e = endpoints_[ep];
  if (!e.attached) return;
  e.attached = false;
  e.inbox.clear();
  SimPort& p = nodes_[e.node].ports[e.port];
  if (p.endpoint == ep) p.endpoint = kNoEndpoint;
}

bool SimFabric::any_mail() const {
  for (const Endpoint& e : endpoints_)
    if (!e.inbox.empty()) return true;
  return false;
}

template <class HasMail>
void SimFabric::run_until_any(mad::Nanos deadline, HasMail has_mail) {
  Arrival a;
  while (!has_mail()) {
    auto next = events_.next_time();
    if (!next || *next > deadline) {
      clock_.advance_to(deadline);
      return;
    }
    clock_.advance_to(events_.pop(a));
    deliver(a);
  }
}

void SimFabric::run_until_mail(mad::Nanos deadline) {
  run_until_any(deadline, [this] { return any_mail(); });
}

void SimFabric::inject(EndpointId ep, const mad::Packet& pkt) {
  if (!endpoints_[ep].attached) return;  // a dead process sends nothing
  ++stats_.injected;
  const Endpoint& e = endpoints_[ep];
  route(pkt, e.node, e.port, nodes_[e.node].ports[e.port].lid, mad::Nanos(0));
}

void SimFabric::run_until(mad::Nanos t) {
  Arrival a;
  while (auto next = events_.next_time()) {
    if (*next > t) break;
    clock_.advance_to(events_.pop(a));
    deliver(a);
  }
  clock_.advance_to(t);
}

void SimFabric::run_for_endpoint(EndpointId ep, mad::Nanos deadline) {
  run_until_any(deadline, [this, ep] { return !endpoints_[ep].inbox.empty(); });
}

std::optional<NodeIdx> SimFabric::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<NodeIdx> SimFabric::find_guid(mad::Guid g) const {
  auto it = by_guid_.find(g);
  if (it == by_guid_.end()) return std::nullopt;
  return it->second;
}

}  // namespace sim
