// Performance Management (class 0x04, class version 1; IBA 1.3 vol 1 16.1): the PMA MAD and
// the attributes a PerfMgr reads: ClassPortInfo, PortCounters (0x0012) and
// PortCountersExtended (0x001D). A PMA MAD is the 24-byte common header, 40 reserved bytes and
// 192 bytes of attribute data.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/error.h"
#include "mad/gid.h"
#include "mad/smp.h"
#include "mad/types.h"

namespace mad {

inline constexpr uint8_t kPmaClassVersion = 1;

namespace pma_attr {
inline constexpr uint16_t class_port_info = 0x0001;
inline constexpr uint16_t port_counters = 0x0012;
inline constexpr uint16_t port_counters_ext = 0x001D;
std::string_view name(uint16_t attr_id);
}  // namespace pma_attr

inline constexpr size_t kPmaDataOffset = 64;  // after the 24-byte common header and 40 reserved bytes
inline constexpr size_t kPmaDataSize = 192;
using PmaData = std::array<uint8_t, kPmaDataSize>;

// PortSelect value that addresses every port of the node at once (where AllPortSelect is set).
inline constexpr uint8_t kAllPorts = 0xFF;

struct PmaMad {
  uint8_t method = method::get;
  uint8_t class_version = kPmaClassVersion;  // kept so an agent can answer a bad one with a status
  uint16_t status = 0;
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
  PmaData data{};
  bool operator==(const PmaMad&) const = default;
};

MadBytes encode_pma(const PmaMad& m);
// Refuses short buffers, base version != 1 and classes other than 0x04; the class version is
// left for the receiver to judge.
Result<PmaMad> decode_pma(std::span<const uint8_t> mad);
PmaMad make_pma(uint8_t method, uint16_t attr, uint32_t attr_mod = 0);
std::string print(const PmaMad& m);

// ClassPortInfo CapabilityMask bits of a PMA (IBA 1.3 16.1; the bits OpenSM and libibmad name).
namespace pma_cap {
inline constexpr uint16_t all_port_select = 1u << 8;
inline constexpr uint16_t ext_width = 1u << 9;          // IsExtendedWidthSupported: PortCountersExtended
inline constexpr uint16_t ext_width_noietf = 1u << 10;  // the same without the IETF MIB counters
inline constexpr uint16_t samples_only = 1u << 11;
inline constexpr uint16_t xmit_wait = 1u << 12;         // PortCounters:PortXmitWait is counted
}  // namespace pma_cap

// The common ClassPortInfo (IBA 1.3 13.4.8.1, Table 103) as a PMA fills it.
struct PmaClassPortInfo {
  static constexpr uint16_t kAttrId = pma_attr::class_port_info;
  static constexpr size_t kSize = 72;

  uint8_t base_version = 1, class_version = kPmaClassVersion;
  uint16_t cap_mask = 0;
  uint32_t cap_mask2 = 0;       // 27 bits
  uint8_t resp_time_value = 0;  // 5 bits
  Gid redirect_gid;
  uint8_t redirect_tc = 0, redirect_sl = 0;  // SL: 4 bits
  uint32_t redirect_fl = 0;                  // 20 bits
  Lid redirect_lid;
  uint16_t redirect_pkey = 0;
  uint32_t redirect_qp = 0;  // 24 bits
  uint32_t redirect_qkey = 0;
  Gid trap_gid;
  uint8_t trap_tc = 0, trap_sl = 0;
  uint32_t trap_fl = 0;
  Lid trap_lid;
  uint16_t trap_pkey = 0;
  uint8_t trap_hop_limit = 0;
  uint32_t trap_qp = 0;
  uint32_t trap_qkey = 0;

  bool all_port_select() const { return (cap_mask & pma_cap::all_port_select) != 0; }
  // PortCountersExtended answers (either flavour): 64-bit data and packet counters.
  bool extended_counters() const {
    return (cap_mask & (pma_cap::ext_width | pma_cap::ext_width_noietf)) != 0;
  }
  bool xmit_wait() const { return (cap_mask & pma_cap::xmit_wait) != 0; }

  void encode(std::span<uint8_t> out) const;
  static Result<PmaClassPortInfo> decode(std::span<const uint8_t> in);
  bool operator==(const PmaClassPortInfo&) const = default;
};

// CounterSelect bits of PortCounters (IBA 1.3 16.1); CounterSelect2 bit 0 = PortXmitWait.
namespace counter_select {
inline constexpr uint16_t symbol_errors = 1u << 0;
inline constexpr uint16_t link_error_recovery = 1u << 1;
inline constexpr uint16_t link_downed = 1u << 2;
inline constexpr uint16_t rcv_errors = 1u << 3;
inline constexpr uint16_t rcv_remote_phys_errors = 1u << 4;
inline constexpr uint16_t rcv_switch_relay_errors = 1u << 5;
inline constexpr uint16_t xmit_discards = 1u << 6;
inline constexpr uint16_t xmit_constraint_errors = 1u << 7;
inline constexpr uint16_t rcv_constraint_errors = 1u << 8;
inline constexpr uint16_t local_link_integrity_errors = 1u << 9;
inline constexpr uint16_t excessive_buffer_overrun_errors = 1u << 10;
inline constexpr uint16_t vl15_dropped = 1u << 11;
inline constexpr uint16_t xmit_data = 1u << 12;
inline constexpr uint16_t rcv_data = 1u << 13;
inline constexpr uint16_t xmit_pkts = 1u << 14;
inline constexpr uint16_t rcv_pkts = 1u << 15;
inline constexpr uint16_t all = 0xFFFF;
inline constexpr uint8_t select2_xmit_wait = 1u << 0;
}  // namespace counter_select

// CounterSelect bits of PortCountersExtended.
namespace counter_select_ext {
inline constexpr uint16_t xmit_data = 1u << 0;
inline constexpr uint16_t rcv_data = 1u << 1;
inline constexpr uint16_t xmit_pkts = 1u << 2;
inline constexpr uint16_t rcv_pkts = 1u << 3;
inline constexpr uint16_t unicast_xmit_pkts = 1u << 4;
inline constexpr uint16_t unicast_rcv_pkts = 1u << 5;
inline constexpr uint16_t multicast_xmit_pkts = 1u << 6;
inline constexpr uint16_t multicast_rcv_pkts = 1u << 7;
inline constexpr uint16_t all = 0x00FF;
}  // namespace counter_select_ext

// PortCounters (attribute 0x0012, IBA 1.3 16.1). Counters stop at all ones; the data
// counters count 4-byte words.
struct PortCounters {
  static constexpr uint16_t kAttrId = pma_attr::port_counters;
  static constexpr size_t kSize = 44;

  uint8_t port_select = 0;  // kAllPorts: the sum over all ports (where AllPortSelect)
  uint16_t counter_select = 0;
  uint16_t symbol_errors = 0;
  uint8_t link_error_recovery = 0, link_downed = 0;
  uint16_t rcv_errors = 0, rcv_remote_phys_errors = 0, rcv_switch_relay_errors = 0, xmit_discards = 0;
  uint8_t xmit_constraint_errors = 0, rcv_constraint_errors = 0;
  uint8_t counter_select2 = 0;
  uint8_t local_link_integrity_errors = 0;      // 4 bits: encode saturates larger values at 15
  uint8_t excessive_buffer_overrun_errors = 0;  // 4 bits: encode saturates larger values at 15
  uint16_t vl15_dropped = 0;
  uint32_t xmit_data = 0, rcv_data = 0, xmit_pkts = 0, rcv_pkts = 0;
  uint32_t xmit_wait = 0;

  void encode(std::span<uint8_t> out) const;
  static Result<PortCounters> decode(std::span<const uint8_t> in);
  bool operator==(const PortCounters&) const = default;
};

// PortCountersExtended (attribute 0x001D, IBA 1.3 16.1): 64-bit data and packet counters.
struct PortCountersExtended {
  static constexpr uint16_t kAttrId = pma_attr::port_counters_ext;
  static constexpr size_t kSize = 72;

  uint8_t port_select = 0;
  uint16_t counter_select = 0;  // counter_select_ext::*
  uint64_t xmit_data = 0, rcv_data = 0, xmit_pkts = 0, rcv_pkts = 0;
  uint64_t unicast_xmit_pkts = 0, unicast_rcv_pkts = 0, multicast_xmit_pkts = 0, multicast_rcv_pkts = 0;

  void encode(std::span<uint8_t> out) const;
  static Result<PortCountersExtended> decode(std::span<const uint8_t> in);
  bool operator==(const PortCountersExtended&) const = default;
};

std::string print(const PmaClassPortInfo& c);
std::string print(const PortCounters& c);
std::string print(const PortCountersExtended& c);

// PMA data (zero-filled) holding `a` at offset 0.
template <class A>
PmaData encode_pma_attr(const A& a) {
  PmaData d{};
  a.encode(d);
  return d;
}
// The attribute a PMA MAD carries; refuses a MAD of another attribute.
template <class A>
Result<A> decode_pma_attr(const PmaMad& m) {
  if (m.attr_id != A::kAttrId)
    return fail(Errc::invalid, std::string("PMA MAD carries ") + std::string(pma_attr::name(m.attr_id)) +
                                   ", not " + std::string(pma_attr::name(A::kAttrId)));
  return A::decode(m.data);
}

// A Get of one port's PortCounters / PortCountersExtended (kAllPorts: all of them).
PmaMad make_get_counters(uint8_t port);
PmaMad make_get_counters_ext(uint8_t port);
// A Set of PortCounters that clears the selected counters of one port (or all with
// kAllPorts): CounterSelect/CounterSelect2 are the mask, the counter fields are zero.
PmaMad make_clear_counters(uint8_t port, uint16_t select, uint8_t select2);
// The same for PortCountersExtended.
PmaMad make_clear_counters_ext(uint8_t port, uint16_t select);

}  // namespace mad
