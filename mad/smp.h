// The common MAD header and the Subnet Management Packet (SMP), LID-routed (class 0x01) and
// directed-route (class 0x81), IBA 1.x chapter 13.4 and 14.2.1. A MAD is 256 bytes on the wire.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/types.h"

namespace mad {

inline constexpr size_t kMadSize = 256;
inline constexpr size_t kSmpDataOffset = 64;
inline constexpr size_t kSmpDataSize = 64;
using MadBytes = std::array<uint8_t, kMadSize>;
using SmpData = std::array<uint8_t, kSmpDataSize>;

namespace mgmt_class {
inline constexpr uint8_t subn_lid_routed = 0x01;
inline constexpr uint8_t subn_directed_route = 0x81;
inline constexpr uint8_t subn_adm = 0x03;
inline constexpr uint8_t perf = 0x04;
}  // namespace mgmt_class

namespace method {
inline constexpr uint8_t get = 0x01;
inline constexpr uint8_t set = 0x02;
inline constexpr uint8_t send = 0x03;
inline constexpr uint8_t trap = 0x05;
inline constexpr uint8_t report = 0x06;
inline constexpr uint8_t trap_repress = 0x07;
inline constexpr uint8_t get_table = 0x12;
inline constexpr uint8_t del = 0x15;
inline constexpr uint8_t response_bit = 0x80;
inline constexpr uint8_t get_resp = get | response_bit;
inline constexpr uint8_t report_resp = report | response_bit;
inline constexpr bool is_response(uint8_t m) { return (m & response_bit) != 0; }
}  // namespace method

namespace attr {
inline constexpr uint16_t class_port_info = 0x0001;
inline constexpr uint16_t notice = 0x0002;
inline constexpr uint16_t inform_info = 0x0003;
inline constexpr uint16_t node_description = 0x0010;
inline constexpr uint16_t node_info = 0x0011;
inline constexpr uint16_t switch_info = 0x0012;
inline constexpr uint16_t guid_info = 0x0014;
inline constexpr uint16_t port_info = 0x0015;
inline constexpr uint16_t pkey_table = 0x0016;
inline constexpr uint16_t sl2vl_table = 0x0017;
inline constexpr uint16_t vl_arb_table = 0x0018;
inline constexpr uint16_t linear_fwd_table = 0x0019;
inline constexpr uint16_t random_fwd_table = 0x001A;
inline constexpr uint16_t multicast_fwd_table = 0x001B;
inline constexpr uint16_t sm_info = 0x0020;
std::string_view name(uint16_t attr_id);
}  // namespace attr

// MAD status (bits 0-14; in a DR SMP bit 15 is the Direction bit and lives in Smp::direction).
namespace status {
inline constexpr uint16_t ok = 0x0000;
inline constexpr uint16_t busy = 0x0001;
inline constexpr uint16_t redirect = 0x0002;
inline constexpr uint16_t bad_version = 0x0004;            // code 1 in bits 2-4
inline constexpr uint16_t unsupported_method = 0x0008;     // code 2
inline constexpr uint16_t unsupported_method_attr = 0x000C; // code 3
inline constexpr uint16_t invalid_field = 0x001C;          // code 7: bad attribute or modifier
std::string describe(uint16_t status);
}  // namespace status

// Bytes 0-23 of every MAD.
struct MadHeader {
  uint8_t base_version = 1;
  uint8_t mgmt_class = 0;
  uint8_t class_version = 1;
  uint8_t method = 0;           // with the response bit
  uint16_t status = 0;          // full 16 bits as on the wire
  uint16_t class_specific = 0;  // full 16 bits as on the wire
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
  bool operator==(const MadHeader&) const = default;
};

inline constexpr size_t kMadHeaderSize = 24;
Result<MadHeader> decode_mad_header(std::span<const uint8_t> mad);
void encode_mad_header(const MadHeader& h, std::span<uint8_t> mad);

// An SMP with its class-specific fields decoded. For class 0x01 the DR fields are unused.
struct Smp {
  uint8_t mgmt_class = mgmt_class::subn_directed_route;
  uint8_t method = method::get;
  uint16_t status = 0;        // bits 0-14 (the D bit is `direction`)
  bool direction = false;     // DR: false = outbound, true = returning
  uint8_t hop_ptr = 0;        // DR
  uint8_t hop_cnt = 0;        // DR, 0..63
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
  uint64_t mkey = 0;
  Lid dr_slid = kPermissiveLid;  // DR
  Lid dr_dlid = kPermissiveLid;  // DR
  SmpData data{};
  std::array<uint8_t, 64> initial_path{};  // DR: [1..hop_cnt] are the output ports
  std::array<uint8_t, 64> return_path{};   // DR: filled in by the switches on the way

  bool is_directed() const { return mgmt_class == mgmt_class::subn_directed_route; }
  bool operator==(const Smp&) const = default;
};

// Decodes a SMP (class 0x01 or 0x81). Refuses short buffers, other classes, base version != 1
// and hop counts above 63.
Result<Smp> decode_smp(std::span<const uint8_t> mad);
MadBytes encode_smp(const Smp& s);

// A Get or Set sent by directed route along `path` from the SM's own port (pure DR:
// DrSLID = DrDLID = permissive, hop pointer 0).
Smp make_dr_smp(uint8_t method, uint16_t attr_id, uint32_t attr_mod, const DrPath& path);
// A Get or Set sent LID-routed (class 0x01).
Smp make_lid_smp(uint8_t method, uint16_t attr_id, uint32_t attr_mod);
// The DR path recorded in an SMP's InitialPath.
DrPath initial_path_of(const Smp& s);

std::string print(const Smp& s);

}  // namespace mad
