// A 128-bit Global Identifier (IBA 4.1.1): a 64-bit subnet prefix and a 64-bit interface ID
// (a port GUID for a unicast GID). Held in host order; only the codecs turn it into bytes.
// Multicast GIDs (IBA 4.1.1, 8-bit 0xFF prefix): flags (4 bits), scope (4 bits), then 112
// bits of group ID; IPoIB's are ff1S:401b:PPPP::GGGG:GGGG (S scope, PPPP the P_Key).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "mad/types.h"

namespace mad {

inline constexpr uint64_t kDefaultGidPrefix = 0xFE80000000000000ULL;  // link-local

class Gid {
 public:
  constexpr Gid() = default;
  constexpr Gid(uint64_t prefix, uint64_t interface_id) : prefix_(prefix), iid_(interface_id) {}
  static constexpr Gid port(Guid g, uint64_t prefix = kDefaultGidPrefix) { return Gid(prefix, g.value()); }

  constexpr uint64_t prefix() const { return prefix_; }
  constexpr uint64_t interface_id() const { return iid_; }
  constexpr Guid guid() const { return Guid(iid_); }
  constexpr bool is_zero() const { return prefix_ == 0 && iid_ == 0; }
  constexpr bool is_multicast() const { return (prefix_ >> 56) == 0xFF; }
  constexpr bool is_link_local() const { return (prefix_ >> 54) == (0xFE80ULL >> 6); }
  // Multicast only: bits 4-7 of byte 1 (flags) and bits 0-3 (scope).
  constexpr uint8_t mc_flags() const { return static_cast<uint8_t>((prefix_ >> 52) & 0xF); }
  constexpr uint8_t mc_scope() const { return static_cast<uint8_t>((prefix_ >> 48) & 0xF); }
  // Bytes 2-3 of a multicast GID (0x401b for IPoIB IPv4 groups, 0x601b for IPv6).
  constexpr uint16_t mc_signature() const { return static_cast<uint16_t>(prefix_ >> 32); }
  constexpr uint16_t mc_pkey() const { return static_cast<uint16_t>(prefix_ >> 16); }

  void encode(std::span<uint8_t> out) const;  // 16 bytes, network order
  static Gid decode(std::span<const uint8_t> in);  // reads 16 bytes (zeros past the end)
  // IPv6 notation as saquery and OpenSM print it: "fe80::2:c903:a1:b2c3".
  std::string str() const;

  constexpr auto operator<=>(const Gid&) const = default;

 private:
  uint64_t prefix_ = 0;
  uint64_t iid_ = 0;
};

inline constexpr uint16_t kIpoibSignature = 0x401B;
// The IPoIB IPv4 broadcast group of a partition, as OpenSM creates it: ff12:401b:PPPP::ffff:ffff
// (link-local scope, the full-member P_Key).
constexpr Gid ipoib_broadcast_mgid(uint16_t pkey, uint8_t scope = 2) {
  return Gid((0xFF10ULL | scope) << 48 | static_cast<uint64_t>(kIpoibSignature) << 32 |
                 static_cast<uint64_t>(pkey | 0x8000) << 16,
             0x00000000FFFFFFFFULL);
}

}  // namespace mad

template <>
struct std::hash<mad::Gid> {
  size_t operator()(const mad::Gid& g) const noexcept {
    return std::hash<mad::Guid>()(mad::Guid(g.prefix() * 0x9E3779B97F4A7C15ULL ^ g.interface_id()));
  }
};
