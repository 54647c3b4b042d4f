#include "sm/program/port_plan.h"

#include <algorithm>

namespace sm {

uint32_t differing_fields(const mad::PortInfo& a, const mad::PortInfo& b) {
  namespace f = port_field;
  uint32_t d = 0;
  if (a.lid != b.lid) d |= f::lid;
  if (a.lmc != b.lmc) d |= f::lmc;
  if (a.master_sm_lid != b.master_sm_lid) d |= f::sm_lid;
  if (a.master_sm_sl != b.master_sm_sl) d |= f::sm_sl;
  if (a.subnet_timeout != b.subnet_timeout) d |= f::subnet_timeout;
  if (a.m_key != b.m_key) d |= f::m_key;
  if (a.m_key_lease_period != b.m_key_lease_period) d |= f::m_key_lease;
  if (a.m_key_protect_bits != b.m_key_protect_bits) d |= f::m_key_protect;
  if (a.neighbor_mtu != b.neighbor_mtu) d |= f::neighbor_mtu;
  if (a.operational_vls != b.operational_vls) d |= f::op_vls;
  if (a.hoq_life != b.hoq_life) d |= f::hoq_life;
  if (a.vl_stall_count != b.vl_stall_count) d |= f::vl_stall;
  if (a.vl_high_limit != b.vl_high_limit) d |= f::vl_high_limit;
  return d;
}

void no_change_codes(mad::PortInfo& p) {
  p.port_state = PortState::no_change;
  p.phys_state = mad::PhysState::no_change;
  p.link_width_enabled = 0;
  p.link_speed_enabled = 0;
  p.link_speed_ext_enabled = 0;
  p.link_down_default_state = 0;
}

PortPlan plan_ports(const Topology& topo, const FabricModel& model, Lid sm_lid, const PortPolicy& policy,
                    const mkey::KeyRing* keys, const routing::RoutingTables* tables) {
  PortPlan plan;
  const bool layered = tables != nullptr && tables->has_sls();
  // The SL of (node, port)'s route to the SM: from the switch itself, or a CA's ingress switch.
  const auto sm_sl_of = [&](NodeId id, const Port& p) -> uint8_t {
    if (!layered) return policy.sm_sl;
    const NodeId ingress = topo.node(id).is_switch() ? id : p.linked() ? p.peer : id;
    if (!topo.node(ingress).is_switch() || !tables->has_table(ingress)) return policy.sm_sl;
    return tables->sl(ingress, sm_lid);
  };
  // Looked up once: each port reads its node's record and its peer's.
  std::vector<const NodeRec*> records(topo.node_count());
  for (NodeId id = 0; id < topo.node_count(); ++id) records[id] = model.find(topo.node(id).guid);
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    const NodeRec& rec = *records[id];
    for (const Port& p : topo.ports(id)) {
      const uint8_t pn = p.num.value();
      if (!n.is_switch() && (pn == 0 || p.guid.is_zero())) continue;  // not seen
      const mad::PortInfo& read = rec.ports[pn].info;
      const bool addressable = !n.is_switch() || pn == 0;
      if (!addressable && !p.linked()) continue;
      // A port that holds a key this SM does not know refuses its Sets: left alone.
      const Guid key_port = mkey::key_port(topo, id, pn);
      if (keys && keys->refusing(key_port)) continue;
      PortJob job{id, p.num, read, false, false};
      mad::PortInfo& want = job.want;
      if (addressable && p.lid.is_unicast()) {
        want.lid = p.lid;
        want.lmc = p.lmc;
        want.master_sm_lid = sm_lid;
        want.master_sm_sl = sm_sl_of(id, p);
        want.subnet_timeout = policy.subnet_timeout;
        want.m_key = keys ? keys->own_key(key_port) : policy.m_key;
        want.m_key_lease_period = policy.m_key_lease;
        want.m_key_protect_bits = want.m_key != 0 ? policy.m_key_protect : 0;
        // Clients registered with an SM must do so again when their port's SM or LID
        // changed under them; a port that was not Active has nobody registered yet.
        want.client_reregister =
            !n.is_switch() && read.port_state == PortState::active &&
            read.has_cap(mad::port_cap::is_client_reregistration_supported) &&
            (read.master_sm_lid != sm_lid || read.lid != p.lid);
      }
      // QoS classes as OpenSM has them: CA ports, switch port 0, switch external ports.
      const size_t cls = !n.is_switch() ? 0 : pn == 0 ? 1 : 2;
      if (policy.qos) want.vl_high_limit = policy.qos_high_limit[cls];
      if (p.linked()) {
        const mad::PortInfo& peer = records[p.peer]->ports[p.peer_port.value()].info;
        if (read.mtu_cap && peer.mtu_cap) want.neighbor_mtu = std::min(read.mtu_cap, peer.mtu_cap);
        if (read.vl_cap && peer.vl_cap)
          want.operational_vls = std::min({read.vl_cap, peer.vl_cap, policy.max_op_vls,
                                           policy.qos ? policy.qos_op_vls[cls] : uint8_t{5}});
        if (n.is_switch()) {
          want.hoq_life = topo.node(p.peer).is_switch() ? policy.hoq_life : policy.leaf_hoq_life;
          want.vl_stall_count = policy.vl_stall;
        }
        if (read.port_state == PortState::init) {
          want.port_state = PortState::armed;
          job.activate = true;
        } else if (read.port_state == PortState::armed) {
          job.activate = true;
        }
      }
      const bool arm = want.port_state == PortState::armed;
      no_change_codes(want);
      if (arm) want.port_state = PortState::armed;
      // Compare with what is there: nothing to send when only the "no change" codes differ.
      mad::PortInfo as_read = read;
      no_change_codes(as_read);
      job.configure = (differing_fields(as_read, want) & ~rec.ports[pn].ignored) != 0 || arm ||
                      want.client_reregister;
      if (!job.configure && n.is_switch() && pn == 0) plan.switch_lids.emplace_back(id, read.lid);
      if (job.configure) plan.configure.push_back(plan.jobs.size());
      if (job.activate) plan.activate.push_back(plan.jobs.size());
      if (job.configure || job.activate) plan.jobs.push_back(job);
    }
  }
  return plan;
}

}  // namespace sm
