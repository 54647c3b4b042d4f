// The subnet management agent of every simulated node: answers SMP Get/Set as hardware does
// (IBA 14.2.5), with ibsim's port-state rules. A Set is checked in full before anything is
// applied: a bad field gets status 0x1C and changes nothing. Every SMP the agent answers passes
// the M_Key check first (IBA 14.2.4, as the Linux SMAs do it; see mkey_admits).
#include <algorithm>
#include <chrono>
#include <optional>

#include "mad/attributes.h"
#include "sim/fabric.h"

namespace sim {

namespace {

using mad::PortState;

// The lease ran out: protection is off until an SM sets it again; the key itself stays.
// Checked lazily, when the port is next looked at (as the Linux SMAs do).
void expire_mkey_lease(SimPort& p, mad::Nanos now) {
  if (now < p.mkey_lease_deadline) return;  // not running: the deadline is Nanos::max()
  p.mkey_lease_deadline = kMkeyLeaseNotRunning;
  p.mkey_protect = 0;
}

// `asked_key`: the M_Key of the Get; at protect level 1 a Get without the right key sees 0.
mad::PortInfo port_info_of(const SimNode& n, const SimPort& p, uint8_t in_port,
                           std::optional<uint64_t> asked_key) {
  mad::PortInfo pi;
  const SimPort& addr = n.is_switch() ? n.ports[0] : p;  // switch ports share port 0's LID
  const SimPort& keys = addr;                            // ... and its M_Key
  const bool hide = asked_key && *asked_key != keys.mkey && keys.mkey_protect == 1;
  pi.m_key = hide ? 0 : keys.mkey;
  pi.m_key_lease_period = keys.mkey_lease;
  pi.m_key_protect_bits = keys.mkey_protect;
  pi.m_key_violations = keys.mkey_violations;
  pi.gid_prefix = p.gid_prefix;
  pi.lid = mad::Lid(addr.lid);
  pi.lmc = addr.lmc;
  pi.master_sm_lid = mad::Lid(addr.sm_lid);
  pi.master_sm_sl = addr.sm_sl;
  pi.capability_mask = p.cap_mask;
  pi.local_port_num = mad::PortNum(in_port);
  pi.link_width_enabled = p.width_enabled;
  pi.link_width_supported = p.width_supported;
  pi.link_width_active = p.width_active;
  pi.link_speed_supported = p.speed_supported;
  pi.link_speed_enabled = p.speed_enabled;
  pi.link_speed_active = p.speed_active;
  pi.link_speed_ext_supported = p.speed_ext_supported;
  pi.link_speed_ext_enabled = p.speed_ext_enabled;
  pi.link_speed_ext_active = p.speed_ext_active;
  pi.port_state = p.state;
  pi.phys_state = p.phys;
  pi.link_down_default_state = 2;  // polling
  pi.neighbor_mtu = p.neighbor_mtu;
  pi.mtu_cap = p.mtu_cap;
  pi.vl_cap = p.vl_cap;
  pi.operational_vls = p.op_vls;
  pi.vl_high_limit = p.vl_high_limit;
  pi.vl_arb_high_cap = 8;
  pi.vl_arb_low_cap = 8;
  pi.init_type_reply = 0;
  pi.hoq_life = p.hoq_life;
  pi.vl_stall_count = p.vl_stall;
  pi.guid_cap = 1;  // GUID0 only
  pi.client_reregister = false;  // the port clears it once acted on
  pi.subnet_timeout = p.subnet_timeout;
  pi.resp_time_value = p.resp_time;
  pi.capability_mask2 = 0;
  pi.partition_enforcement_inbound = p.pkey_enforce_in;
  pi.partition_enforcement_outbound = p.pkey_enforce_out;
  return pi;
}

bool subset_or_special(uint8_t enabled, uint8_t supported, uint8_t to_supported) {
  return enabled == 0 || enabled == to_supported || (enabled & ~supported) == 0;
}

}  // namespace

// The M_Key check of an SMP at the agent of `ni`, arrived by `in_port` (IBA 14.2.4.1-14.2.4.3).
// The key that guards a CA is the arrival port's, a switch's is port 0's. True: answer it.
// False: a violation, counted, trapped (256) and dropped without an answer.
bool SimFabric::mkey_admits(NodeIdx ni, uint8_t in_port, const mad::Smp& smp, uint16_t slid) {
  SimNode& n = nodes_[ni];
  SimPort& g = n.ports[n.is_switch() ? 0 : in_port];
  // No key, no protection: one compare on every SMP of an unprotected fabric. No lease can be
  // running either: only a violation starts the timer, and the key only becomes 0 by an
  // accepted Set (which stops it), set_mkey or a reboot (which stop it too).
  if (g.mkey == 0) return true;
  expire_mkey_lease(g, clock_.now());
  const uint8_t m = smp.method;
  const bool guarded = m == mad::method::get || m == mad::method::set ||
                       m == mad::method::trap_repress;
  if (!guarded) return true;  // other methods get "unsupported method", key or not
  if (smp.mkey == g.mkey) {
    g.mkey_lease_deadline = kMkeyLeaseNotRunning;  // the owner is alive: the lease holds
    return true;
  }
  // A wrong key. A Get passes at levels 0 and 1 (level 1 hides the key in PortInfo) and is
  // refused at 2 and 3; a Set or TrapRepress is refused at every level. Levels 2 and 3 behave
  // the same for these checks, as in the Linux SMAs.
  if (m == mad::method::get && g.mkey_protect < 2) return true;
  if (g.mkey_violations != 0xFFFF) ++g.mkey_violations;
  if (g.mkey_lease != 0 && g.mkey_lease_deadline == kMkeyLeaseNotRunning)
    g.mkey_lease_deadline = clock_.now() + std::chrono::seconds(g.mkey_lease);
  ++stats_.mkey_refused;
  send_mkey_trap(ni, in_port, smp, slid);
  return false;
}

void SimFabric::process_smp(NodeIdx ni, uint8_t in_port, mad::Smp& smp, uint16_t slid) {
  SimNode& n = nodes_[ni];
  if (mad::method::is_response(smp.method)) {  // an answer nobody here asked for
    ++stats_.dropped_no_route;
    return;
  }
  if (!mkey_admits(ni, in_port, smp, slid)) return;
  ++stats_.smps_processed;
  ++n.smps_handled;
  if (smp.method == mad::method::trap_repress) return;  // the SM acknowledged a trap
  const bool is_get = smp.method == mad::method::get;
  const bool is_set = smp.method == mad::method::set;
  uint16_t st = mad::status::ok;
  const uint32_t mod = smp.attr_mod;

  if (!is_get && !is_set) {
    st = mad::status::unsupported_method;
  } else {
    switch (smp.attr_id) {
      case mad::attr::node_info: {
        if (is_set) { st = mad::status::unsupported_method_attr; break; }
        mad::NodeInfo ni_attr;
        ni_attr.node_type = n.type;
        ni_attr.num_ports = n.num_ports;
        ni_attr.system_image_guid = n.system_guid;
        ni_attr.node_guid = n.guid;
        ni_attr.port_guid = n.is_switch() ? n.guid : n.ports[in_port].guid;
        ni_attr.partition_cap = n.partition_cap;
        ni_attr.device_id = n.device_id;
        ni_attr.revision = 0xA1;
        ni_attr.local_port_num = mad::PortNum(in_port);
        ni_attr.vendor_id = n.vendor_id;
        smp.data = mad::encode_attr(ni_attr);
        break;
      }
      case mad::attr::node_description: {
        if (is_set) { st = mad::status::unsupported_method_attr; break; }
        smp.data = mad::encode_attr(mad::NodeDescription{n.description});
        break;
      }
      case mad::attr::port_info: {
        uint32_t pn = mod & 0xFF;
        if ((mod & 0x7FFFFF00) != 0 || pn > n.num_ports) { st = mad::status::invalid_field; break; }
        if (pn == 0 && !n.is_switch()) pn = in_port;
        SimPort& p = n.ports[pn];
        expire_mkey_lease(n.ports[n.is_switch() ? 0 : pn], clock_.now());  // shown as it is now
        if (is_set) {
          if (!n.is_switch() && pn != in_port) { st = mad::status::invalid_field; break; }
          auto req = mad::PortInfo::decode(smp.data);
          if (!req) { st = mad::status::invalid_field; break; }
          st = apply_port_info(ni, static_cast<uint8_t>(pn), *req);
        }
        smp.data = mad::encode_attr(
            port_info_of(n, p, in_port, is_get ? std::optional(smp.mkey) : std::nullopt));
        break;
      }
      case mad::attr::switch_info: {
        if (!n.is_switch()) { st = mad::status::unsupported_method_attr; break; }
        SimSwitch& sw = *n.sw;
        if (is_set) {
          auto req = mad::SwitchInfo::decode(smp.data);
          if (!req || req->linear_fdb_top.value() >= sw.lft_cap) {
            st = mad::status::invalid_field;
          } else {
            sw.lft_top = req->linear_fdb_top.value();
            sw.life_time = req->life_time_value;
            sw.default_port = req->default_port.value();
            sw.mft_top = req->multicast_fdb_top.value();
            if (req->port_state_change) sw.port_state_change = false;  // write 1 to clear
          }
        }
        mad::SwitchInfo si;
        si.linear_fdb_cap = sw.lft_cap;
        si.multicast_fdb_cap = sw.mft_cap;
        si.linear_fdb_top = mad::Lid(sw.lft_top);
        si.default_port = mad::PortNum(sw.default_port);
        si.life_time_value = sw.life_time;
        si.port_state_change = sw.port_state_change;
        si.lids_per_port = 0;
        si.partition_enforcement_cap = sw.pkey_enforce_cap;
        si.filter_raw_inbound_cap = si.filter_raw_outbound_cap = true;
        si.multicast_fdb_top = mad::Lid(sw.mft_top);
        smp.data = mad::encode_attr(si);
        break;
      }
      case mad::attr::linear_fwd_table: {
        if (!n.is_switch()) { st = mad::status::unsupported_method_attr; break; }
        SimSwitch& sw = *n.sw;
        const size_t base = static_cast<size_t>(mod) * 64;
        if (mod > 0xFFFF || base >= sw.lft_cap) { st = mad::status::invalid_field; break; }
        if (is_set) {
          if (sw.lft.size() < base + 64) sw.lft.resize(base + 64, 0xFF);
          std::copy_n(smp.data.begin(), 64, sw.lft.begin() + static_cast<ptrdiff_t>(base));
          ++sw.lft_blocks_written;
        } else {
          for (size_t i = 0; i < 64; ++i)
            smp.data[i] = base + i < sw.lft.size() ? sw.lft[base + i] : 0xFF;
        }
        break;
      }
      case mad::attr::multicast_fwd_table: {
        if (!n.is_switch()) { st = mad::status::unsupported_method_attr; break; }
        SimSwitch& sw = *n.sw;
        const auto idx = mad::mft_index_of_mod(mod);
        const size_t positions = (static_cast<size_t>(n.num_ports) + 16) / 16;
        if (static_cast<size_t>(idx.block) * 32 >= sw.mft_cap || idx.position >= positions) {
          st = mad::status::invalid_field;
          break;
        }
        if (is_set && sw.mft.empty()) sw.mft.assign(sw.mft_cap * positions, 0);
        mad::MulticastForwardingTable table =
            mad::MulticastForwardingTable::decode(smp.data).value_or(mad::MulticastForwardingTable{});
        for (size_t i = 0; i < 32; ++i) {
          const size_t at = (static_cast<size_t>(idx.block) * 32 + i) * positions + idx.position;
          if (is_set) sw.mft[at] = table.port_masks[i];
          else table.port_masks[i] = sw.mft.empty() ? 0 : sw.mft[at];
        }
        smp.data = mad::encode_attr(table);
        break;
      }
      case mad::attr::pkey_table: {
        const uint8_t pn = n.is_switch() ? mad::pkey_port_of_mod(mod).value() : in_port;
        const uint16_t block = mad::pkey_block_of_mod(mod);
        if (pn > n.num_ports) { st = mad::status::invalid_field; break; }
        auto& keys = n.ports[pn].pkeys;
        const size_t base = static_cast<size_t>(block) * 32;
        if (base >= keys.size()) { st = mad::status::invalid_field; break; }
        const size_t count = std::min<size_t>(32, keys.size() - base);
        if (is_set) {
          const auto t = mad::PKeyTable::decode(smp.data).value_or(mad::PKeyTable{});
          std::copy_n(t.pkeys.begin(), count, keys.begin() + static_cast<ptrdiff_t>(base));
          ++n.ports[pn].pkey_blocks_written;
        }
        mad::PKeyTable out;
        std::copy_n(keys.begin() + static_cast<ptrdiff_t>(base), count, out.pkeys.begin());
        smp.data = mad::encode_attr(out);
        break;
      }
      case mad::attr::guid_info: {
        if (is_set) { st = mad::status::unsupported_method_attr; break; }
        if (mod != 0) { st = mad::status::invalid_field; break; }
        mad::GuidInfo g;
        g.guids[0] = n.is_switch() ? n.guid : n.ports[in_port].guid;
        smp.data = mad::encode_attr(g);
        break;
      }
      case mad::attr::sl2vl_table: {
        const uint8_t out = n.is_switch() ? mad::sl2vl_out_port_of_mod(mod).value() : in_port;
        const uint8_t in = n.is_switch() ? mad::sl2vl_in_port_of_mod(mod).value() : 0;
        if (out > n.num_ports || in > n.num_ports) { st = mad::status::invalid_field; break; }
        SimPort& op = n.ports[out];
        if (is_set) {  // a switch keeps one table per input port (IBA 14.2.5.8)
          if (n.is_switch() && op.sl2vl_by_in.empty()) op.sl2vl_by_in.assign(n.num_ports + 1u, op.sl2vl);
          auto& table = n.is_switch() ? op.sl2vl_by_in[in] : op.sl2vl;
          std::copy_n(smp.data.begin(), table.size(), table.begin());
          ++op.qos_sets;
        }
        const auto& table = op.sl2vl_by_in.empty() ? op.sl2vl : op.sl2vl_by_in[in];
        smp.data = {};
        std::copy(table.begin(), table.end(), smp.data.begin());
        break;
      }
      case mad::attr::vl_arb_table: {
        const uint16_t block = mad::vl_arb_block_of_mod(mod);
        const uint8_t pn = n.is_switch() ? mad::vl_arb_port_of_mod(mod).value() : in_port;
        if (block < 1 || block > 4 || pn > n.num_ports) { st = mad::status::invalid_field; break; }
        auto& v = n.ports[pn].vlarb;
        const size_t base = static_cast<size_t>(block - 1) * 64;
        if (is_set) {
          if (v.empty()) v.assign(4 * 64, 0);
          std::copy_n(smp.data.begin(), 64, v.begin() + static_cast<ptrdiff_t>(base));
          ++n.ports[pn].qos_sets;
        } else {
          for (size_t i = 0; i < 64; ++i) smp.data[i] = v.empty() ? 0 : v[base + i];
        }
        break;
      }
      default:  // SMInfo with no SM at this port, vendor attributes, ...
        st = mad::status::unsupported_method_attr;
        break;
    }
  }

  smp.method = mad::method::get_resp;
  smp.status = st;
  const mad::Nanos start = std::max(clock_.now(), n.sma_busy_until);
  n.sma_busy_until = start + cfg_.sma_latency;
  const mad::Nanos delay = n.sma_busy_until - clock_.now();
  if (smp.is_directed()) {
    smp.direction = true;
    route_directed(smp, ni, in_port, delay);
    return;
  }
  mad::Packet resp;
  resp.mad = mad::encode_smp(smp);
  resp.addr.lid = mad::Lid(slid);
  const SimPort& own = n.ports[n.is_switch() ? 0 : in_port];
  route_lid(resp, ni, in_port, own.lid, slid, delay);
}

uint16_t SimFabric::apply_port_info(NodeIdx ni, uint8_t pn, const mad::PortInfo& req) {
  SimNode& n = nodes_[ni];
  SimPort& p = n.ports[pn];
  // Check everything first.
  const PortState want = req.port_state;
  const SimPort* peer = p.link_up() ? &nodes_[p.peer].ports[p.peer_port] : nullptr;
  if (want != PortState::no_change && want != PortState::down && want != PortState::init) {
    if (!peer) return mad::status::invalid_field;  // changing the state of a port that is down
    if (want == PortState::armed && p.state != PortState::init) return mad::status::invalid_field;
    if (want == PortState::active &&
        (p.state != PortState::armed || peer->state < PortState::armed))
      return mad::status::invalid_field;
  }
  if (req.operational_vls > p.vl_cap) return mad::status::invalid_field;
  if (req.neighbor_mtu > p.mtu_cap) return mad::status::invalid_field;
  if (!subset_or_special(req.link_width_enabled, p.width_supported, 0xFF) ||
      !subset_or_special(req.link_speed_enabled, p.speed_supported, 0xF))
    return mad::status::invalid_field;
  const bool addressable = !n.is_switch() || pn == 0;
  if (addressable && req.lid.value() > mad::Lid::kMaxUnicast) return mad::status::invalid_field;

  // Then apply.
  if (addressable) {  // a switch's LID, SM LID and M_Key are port 0's: its one M_Key
    if (p.lid != req.lid.value()) ++p.lid_changes;
    p.lid = req.lid.value();
    p.lmc = req.lmc;
    p.sm_lid = req.master_sm_lid.value();
    p.sm_sl = req.master_sm_sl;
    p.mkey = req.m_key;
    p.mkey_lease = req.m_key_lease_period;
    p.mkey_protect = req.m_key_protect_bits;
  }
  p.gid_prefix = req.gid_prefix;
  p.hoq_life = req.hoq_life;
  p.vl_stall = req.vl_stall_count;
  if (cfg_.keeps_subnet_timeout) p.subnet_timeout = req.subnet_timeout;
  p.vl_high_limit = req.vl_high_limit;
  if (n.is_switch() && pn != 0 && n.sw->pkey_enforce_cap > 0) {
    p.pkey_enforce_in = req.partition_enforcement_inbound;
    p.pkey_enforce_out = req.partition_enforcement_outbound;
  }
  if (req.operational_vls) p.op_vls = req.operational_vls;
  if (req.neighbor_mtu) p.neighbor_mtu = req.neighbor_mtu;
  if (req.link_width_enabled)
    p.width_enabled = req.link_width_enabled == 0xFF ? p.width_supported : req.link_width_enabled;
  if (req.link_speed_enabled)
    p.speed_enabled = req.link_speed_enabled == 0xF ? p.speed_supported : req.link_speed_enabled;
  if (req.client_reregister && !n.is_switch()) ++p.client_rereg_count;
  switch (want) {
    case PortState::down:  // the link retrains: both ends come back in Init (as ibsim)
      if (peer) {
        p.state = PortState::init;
        SimPort& pp = nodes_[p.peer].ports[p.peer_port];
        pp.state = PortState::init;
        mark_state_change(p.peer);
        mark_state_change(ni);  // Down -> Init by the link state machine, not by the Set itself
      }
      break;
    case PortState::armed:
    case PortState::active:
      p.state = want;
      break;
    default:
      break;
  }
  return mad::status::ok;
}

}  // namespace sim
