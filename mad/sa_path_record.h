// PathRecord (attribute 0x0035, IBA 1.3 vol 1 15.2.5.16) and MCMemberRecord (0x0038,
// 15.2.5.17): the two records clients build queries from field by field, so they are decoded
// into typed fields (zero fields allowed: a query template is mostly zeros). Selectors (2 bits
// above MTU, Rate and PacketLifeTime) are kept apart from their values.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/gid.h"
#include "mad/sa_fields.h"
#include "mad/sa_mad.h"

namespace mad {

// MTU, Rate and PacketLifeTime selectors (IBA 15.2.5.16).
namespace selector {
inline constexpr uint8_t greater_than = 0;
inline constexpr uint8_t less_than = 1;
inline constexpr uint8_t exactly = 2;
inline constexpr uint8_t best = 3;  // largest MTU or rate, smallest lifetime
}  // namespace selector

// PathRecord and MCMemberRecord rate codes (IBA 1.3 Table 213): 2 = 2.5 Gb/s ... 24 = 1200.
namespace rate {
inline constexpr uint8_t r2_5 = 2, r10 = 3, r30 = 4, r5 = 5, r20 = 6, r40 = 7, r60 = 8, r80 = 9,
                         r120 = 10, r14 = 11, r56 = 12, r112 = 13, r168 = 14, r25 = 15, r100 = 16,
                         r200 = 17, r300 = 18, r28 = 19, r50 = 20, r400 = 21, r600 = 22, r800 = 23,
                         r1200 = 24;
// Gb/s x 10 (FDR counted as 14, as the code names it); 0 for an unknown code.
unsigned tenths_gbps(uint8_t code);
bool valid(uint8_t code);
// The fastest code strictly slower than `code` (0: none).
uint8_t next_lower(uint8_t code);
// The rate of a link: LinkWidthActive x LinkSpeedActive (LinkSpeedExtActive when `extended`).
uint8_t of_link(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active, bool extended);
}  // namespace rate

struct PathRecord {
  static constexpr uint16_t kAttrId = sa_attr::path_record;
  static constexpr size_t kSize = 64;
  static std::span<const FieldSpec> components();
  // ComponentMask bits (IBA Table 210 order).
  enum Component : uint64_t {
    c_service_id_msb = 1ull << 0, c_service_id_lsb = 1ull << 1, c_dgid = 1ull << 2, c_sgid = 1ull << 3,
    c_dlid = 1ull << 4, c_slid = 1ull << 5, c_raw_traffic = 1ull << 6, c_flow_label = 1ull << 8,
    c_hop_limit = 1ull << 9, c_tclass = 1ull << 10, c_reversible = 1ull << 11, c_numb_path = 1ull << 12,
    c_pkey = 1ull << 13, c_qos_class = 1ull << 14, c_sl = 1ull << 15, c_mtu_selector = 1ull << 16,
    c_mtu = 1ull << 17, c_rate_selector = 1ull << 18, c_rate = 1ull << 19,
    c_pkt_life_selector = 1ull << 20, c_pkt_life = 1ull << 21, c_preference = 1ull << 22,
  };

  uint64_t service_id = 0;
  Gid dgid, sgid;
  Lid dlid, slid;
  bool raw_traffic = false;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t tclass = 0;
  bool reversible = false;
  uint8_t numb_path = 0;    // 7 bits
  uint16_t pkey = 0;
  uint16_t qos_class = 0;   // 12 bits
  uint8_t sl = 0;           // 4 bits
  uint8_t mtu_selector = 0, mtu = 0;          // 2 + 6 bits
  uint8_t rate_selector = 0, rate = 0;        // 2 + 6 bits
  uint8_t pkt_life_selector = 0, pkt_life = 0;  // 2 + 6 bits
  uint8_t preference = 0;

  void encode(std::span<uint8_t> out) const;
  static Result<PathRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const PathRecord&) const = default;
};

// JoinState bits (IBA 15.2.5.17).
namespace join_state {
inline constexpr uint8_t full = 0x1;
inline constexpr uint8_t non = 0x2;
inline constexpr uint8_t send_only_non = 0x4;
inline constexpr uint8_t send_only_full = 0x8;
}  // namespace join_state

struct McMemberRecord {
  static constexpr uint16_t kAttrId = sa_attr::mcmember_record;
  static constexpr size_t kSize = 52;
  static std::span<const FieldSpec> components();
  enum Component : uint64_t {
    c_mgid = 1ull << 0, c_port_gid = 1ull << 1, c_qkey = 1ull << 2, c_mlid = 1ull << 3,
    c_mtu_selector = 1ull << 4, c_mtu = 1ull << 5, c_tclass = 1ull << 6, c_pkey = 1ull << 7,
    c_rate_selector = 1ull << 8, c_rate = 1ull << 9, c_pkt_life_selector = 1ull << 10,
    c_pkt_life = 1ull << 11, c_sl = 1ull << 12, c_flow_label = 1ull << 13, c_hop_limit = 1ull << 14,
    c_scope = 1ull << 15, c_join_state = 1ull << 16, c_proxy_join = 1ull << 17,
  };

  Gid mgid, port_gid;
  uint32_t qkey = 0;
  Lid mlid;
  uint8_t mtu_selector = 0, mtu = 0;
  uint8_t tclass = 0;
  uint16_t pkey = 0;
  uint8_t rate_selector = 0, rate = 0;
  uint8_t pkt_life_selector = 0, pkt_life = 0;
  uint8_t sl = 0;           // 4 bits
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t scope = 0;        // 4 bits
  uint8_t join_state = 0;   // 4 bits, join_state::*
  bool proxy_join = false;

  void encode(std::span<uint8_t> out) const;
  static Result<McMemberRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const McMemberRecord&) const = default;
};

}  // namespace mad
