// QoS: what the SM writes into the SL-to-VL mapping and VL arbitration tables, from OpenSM's
// options (qos, qos_max_vls, qos_high_limit, qos_vlarb_high, qos_vlarb_low, qos_sl2vl and the
// per-class overrides qos_ca_*, qos_sw0_*, qos_swe_*). A class's unset option (max_vls 0,
// high_limit -1, an empty table) takes the general one, and an unset general one OpenSM's
// default, so an opensm.conf carries over with the same tables.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/vl_arb_table.h"

namespace sm {

// One class's options as configured (text kept for --dump-config and SIGHUP's diff).
struct QosClassOptions {
  int max_vls = 0;       // 0: inherit; else 1..15
  int high_limit = -1;   // -1: inherit; else 0..255 (PortInfo.VLHighLimit)
  std::string vlarb_high, vlarb_low, sl2vl;  // empty: inherit
  bool operator==(const QosClassOptions&) const = default;
};

enum class QosClass : uint8_t { ca, sw0, swe };  // CA ports, switch port 0, switch external ports

struct QosOptions {
  bool enabled = false;
  QosClassOptions general, ca, sw0, swe;
  const QosClassOptions& of(QosClass c) const { return c == QosClass::ca ? ca : c == QosClass::sw0 ? sw0 : swe; }
  bool operator==(const QosOptions&) const = default;
};

// One class's tables, resolved.
struct QosTables {
  unsigned max_vls = 15;
  uint8_t high_limit = 0;
  std::array<mad::VlArbEntry, 64> vlarb_high{}, vlarb_low{};
  std::array<uint8_t, 16> sl2vl{};  // VL by SL (15: drop)
  bool operator==(const QosTables&) const = default;
};

// "VL:weight,VL:weight,..." (VL 0..14, weight 0..255, at most 64 pairs; the rest of the
// table is weight 0, i.e. skipped) and "VL,VL,..." (exactly 16 VLs, one per SL, 0..15).
// Stricter than OpenSM, which reads what it can: a typo there silently changes a table.
mad::Result<std::vector<mad::VlArbEntry>> parse_vlarb(std::string_view text);
mad::Result<std::array<uint8_t, 16>> parse_sl2vl(std::string_view text);
// Checks every table text of `o` (for the configuration's validation).
mad::Result<void> check_qos(const QosOptions& o);
// The class's tables: its own options, else the general ones, else OpenSM's defaults.
QosTables resolve_qos(const QosOptions& o, QosClass c);

// OperationalVLs' encoding (1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7, 5: VL0-14) that holds
// `max_vls` data VLs at most.
uint8_t op_vls_for(unsigned max_vls);
// A VL as a port with `op_vls` (the encoding above) can carry it: masked as OpenSM does, so
// both SMs write the same tables; 15 (drop) stays.
uint8_t vl_within(uint8_t vl, uint8_t op_vls);

}  // namespace sm
