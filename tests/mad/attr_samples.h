// One sample value per attribute with every field set to a distinct non-zero value (where the
// field allows it), shared by the round-trip and the IBA-layout golden tests.
#pragma once

#include "mad/attributes.h"

namespace test {

inline mad::NodeInfo sample_node_info() {
  mad::NodeInfo n;
  n.base_version = 1;
  n.class_version = 1;
  n.node_type = mad::NodeType::sw;
  n.num_ports = 36;
  n.system_image_guid = mad::Guid(0x0002c90300a1b2c3);
  n.node_guid = mad::Guid(0x0002c90300a1b2c4);
  n.port_guid = mad::Guid(0x0002c90300a1b2c5);
  n.partition_cap = 8;
  n.device_id = 0xcf08;
  n.revision = 0x000000a1;
  n.local_port_num = mad::PortNum(7);
  n.vendor_id = 0x0002c9;
  return n;
}

inline mad::NodeDescription sample_node_description() {
  return mad::NodeDescription{"sw-leaf-07 HCA-1 rack 3"};
}

inline mad::PortInfo sample_port_info() {
  mad::PortInfo p;
  p.m_key = 0x1122334455667788;
  p.gid_prefix = 0xfe80000000abcdef;
  p.lid = mad::Lid(0x0102);
  p.master_sm_lid = mad::Lid(0x0304);
  p.capability_mask = mad::port_cap::is_sm | mad::port_cap::is_trap_supported |
                      mad::port_cap::is_client_reregistration_supported;  // 0x0200000a
  p.diag_code = 0x0506;
  p.m_key_lease_period = 0x0708;
  p.local_port_num = mad::PortNum(9);
  p.link_width_enabled = mad::link_width::x1 | mad::link_width::x4;
  p.link_width_supported = 0x1f;
  p.link_width_active = mad::link_width::x4;
  p.link_speed_supported = 7;
  p.port_state = mad::PortState::armed;
  p.phys_state = mad::PhysState::link_up;
  p.link_down_default_state = 2;
  p.m_key_protect_bits = 2;
  p.lmc = 5;
  p.link_speed_active = 4;
  p.link_speed_enabled = 6;
  p.neighbor_mtu = mad::mtu::mtu2048;
  p.master_sm_sl = 9;
  p.vl_cap = 4;
  p.init_type = 0xa;
  p.vl_high_limit = 0x0b;
  p.vl_arb_high_cap = 0x0c;
  p.vl_arb_low_cap = 0x0d;
  p.init_type_reply = 0xe;
  p.mtu_cap = mad::mtu::mtu4096;
  p.vl_stall_count = 6;
  p.hoq_life = 0x13;
  p.operational_vls = 3;
  p.partition_enforcement_inbound = true;
  p.partition_enforcement_outbound = false;
  p.filter_raw_inbound = true;
  p.filter_raw_outbound = false;
  p.m_key_violations = 0x1415;
  p.p_key_violations = 0x1617;
  p.q_key_violations = 0x1819;
  p.guid_cap = 0x20;
  p.client_reregister = true;
  p.mcast_pkey_trap_suppression_enabled = 2;
  p.subnet_timeout = 0x12;
  p.resp_time_value = 0x11;
  p.local_phy_errors = 0xa;
  p.overrun_errors = 0xb;
  p.max_credit_hint = 0x1c1d;
  p.link_round_trip_latency = 0x1e1f20;
  p.capability_mask2 = 0x0431;
  p.link_speed_ext_active = 2;
  p.link_speed_ext_supported = 7;
  p.link_speed_ext_enabled = 0x1e;
  return p;
}

inline mad::SwitchInfo sample_switch_info() {
  mad::SwitchInfo s;
  s.linear_fdb_cap = 0xc000;
  s.random_fdb_cap = 0x0100;
  s.multicast_fdb_cap = 0x0400;
  s.linear_fdb_top = mad::Lid(0x002c);
  s.default_port = mad::PortNum(1);
  s.default_mcast_primary_port = mad::PortNum(2);
  s.default_mcast_not_primary_port = mad::PortNum(3);
  s.life_time_value = 18;
  s.port_state_change = true;
  s.optimized_sl2vl_programming = 2;
  s.lids_per_port = 4;
  s.partition_enforcement_cap = 0x40;
  s.inbound_enforcement_cap = true;
  s.outbound_enforcement_cap = false;
  s.filter_raw_inbound_cap = true;
  s.filter_raw_outbound_cap = false;
  s.enhanced_port0 = true;
  s.multicast_fdb_top = mad::Lid(0xc010);
  return s;
}

inline mad::LinearForwardingTable sample_lft() {
  mad::LinearForwardingTable t;
  for (size_t i = 0; i < t.ports.size(); ++i) t.ports[i] = mad::PortNum(static_cast<uint8_t>(i + 1));
  t.ports[63] = mad::LinearForwardingTable::kUnreachable;
  return t;
}

inline mad::MulticastForwardingTable sample_mft() {
  mad::MulticastForwardingTable t;
  for (size_t i = 0; i < t.port_masks.size(); ++i)
    t.port_masks[i] = static_cast<uint16_t>(0x1000 + i * 0x0101);
  return t;
}

inline mad::SmInfo sample_sm_info() {
  mad::SmInfo s;
  s.guid = mad::Guid(0x0002c90300001234);
  s.sm_key = 0x0102030405060708;
  s.act_count = 0x0a0b0c0d;
  s.priority = 0xe;
  s.state = mad::SmState::master;
  return s;
}

inline mad::GuidInfo sample_guid_info() {
  mad::GuidInfo g;
  for (size_t i = 0; i < g.guids.size(); ++i) g.guids[i] = mad::Guid(0x0002c90300000000 + i + 1);
  return g;
}

inline mad::PKeyTable sample_pkey_table() {
  mad::PKeyTable t;
  for (size_t i = 0; i < t.pkeys.size(); ++i)
    t.pkeys[i] = static_cast<uint16_t>((i % 2 ? 0x8000 : 0) | (0x100 + i));
  t.pkeys[0] = mad::kDefaultPKey;
  return t;
}

inline mad::Sl2VlTable sample_sl2vl() {
  mad::Sl2VlTable t;
  for (size_t i = 0; i < t.vl.size(); ++i) t.vl[i] = static_cast<uint8_t>(15 - i);
  return t;
}

inline mad::VlArbTable sample_vl_arb() {
  mad::VlArbTable t;
  for (size_t i = 0; i < t.entries.size(); ++i)
    t.entries[i] = {static_cast<uint8_t>(i % 15 + 1), static_cast<uint8_t>(0x40 + i)};
  return t;
}

inline mad::Notice sample_notice() {
  mad::Notice n;
  n.is_generic = true;
  n.type = mad::notice_type::security;
  n.producer_or_vendor = mad::producer_type::class_manager;
  n.trap_or_device_id = mad::trap::bad_m_key;
  n.issuer_lid = mad::Lid(0x0a0b);
  n.toggle = true;
  n.count = 0x1234;
  for (size_t i = 0; i < n.data_details.size(); ++i) n.data_details[i] = static_cast<uint8_t>(i + 1);
  for (size_t i = 0; i < n.issuer_gid.size(); ++i) n.issuer_gid[i] = static_cast<uint8_t>(0xf0 + i);
  return n;
}

// sample<A>() for the tests that run over every attribute type.
template <class A>
A sample();
template <> inline mad::NodeInfo sample() { return sample_node_info(); }
template <> inline mad::NodeDescription sample() { return sample_node_description(); }
template <> inline mad::PortInfo sample() { return sample_port_info(); }
template <> inline mad::SwitchInfo sample() { return sample_switch_info(); }
template <> inline mad::LinearForwardingTable sample() { return sample_lft(); }
template <> inline mad::MulticastForwardingTable sample() { return sample_mft(); }
template <> inline mad::SmInfo sample() { return sample_sm_info(); }
template <> inline mad::GuidInfo sample() { return sample_guid_info(); }
template <> inline mad::PKeyTable sample() { return sample_pkey_table(); }
template <> inline mad::Sl2VlTable sample() { return sample_sl2vl(); }
template <> inline mad::VlArbTable sample() { return sample_vl_arb(); }
template <> inline mad::Notice sample() { return sample_notice(); }

}  // namespace test
