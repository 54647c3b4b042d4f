// The Subnet Administration MAD (class 0x03, class version 2; IBA 1.3 vol 1 15.2.1): the common
// MAD header, the RMPP header (13.6.2.1) every SA MAD carries, then SM_Key, AttributeOffset
// (record stride in 8-byte units) and ComponentMask, and 200 bytes of records.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "mad/error.h"
#include "mad/smp.h"

namespace mad {

inline constexpr uint8_t kSaClassVersion = 2;
inline constexpr size_t kRmppHeaderOffset = 24;
inline constexpr size_t kSaHeaderSize = 56;  // MAD + RMPP + SA headers
inline constexpr size_t kSaDataSize = kMadSize - kSaHeaderSize;  // 200
using SaData = std::array<uint8_t, kSaDataSize>;

namespace sa_method {
inline constexpr uint8_t get = 0x01;
inline constexpr uint8_t set = 0x02;
inline constexpr uint8_t report = 0x06;
inline constexpr uint8_t get_table = 0x12;
inline constexpr uint8_t get_multi = 0x14;
inline constexpr uint8_t del = 0x15;
inline constexpr uint8_t get_resp = 0x81;
inline constexpr uint8_t report_resp = 0x86;
inline constexpr uint8_t get_table_resp = 0x92;
inline constexpr uint8_t get_multi_resp = 0x94;
inline constexpr uint8_t del_resp = 0x95;
std::string_view name(uint8_t method);
}  // namespace sa_method

// SA attribute IDs (IBA 1.3 Table 207).
namespace sa_attr {
inline constexpr uint16_t class_port_info = 0x0001;
inline constexpr uint16_t notice = 0x0002;
inline constexpr uint16_t inform_info = 0x0003;
inline constexpr uint16_t node_record = 0x0011;
inline constexpr uint16_t port_info_record = 0x0012;
inline constexpr uint16_t sl2vl_record = 0x0013;
inline constexpr uint16_t switch_info_record = 0x0014;
inline constexpr uint16_t lft_record = 0x0015;
inline constexpr uint16_t rft_record = 0x0016;
inline constexpr uint16_t mft_record = 0x0017;
inline constexpr uint16_t sm_info_record = 0x0018;
inline constexpr uint16_t link_record = 0x0020;
inline constexpr uint16_t guid_info_record = 0x0030;
inline constexpr uint16_t service_record = 0x0031;
inline constexpr uint16_t pkey_table_record = 0x0033;
inline constexpr uint16_t path_record = 0x0035;
inline constexpr uint16_t vl_arb_record = 0x0036;
inline constexpr uint16_t mcmember_record = 0x0038;
inline constexpr uint16_t trace_record = 0x0039;
inline constexpr uint16_t multipath_record = 0x003A;
inline constexpr uint16_t inform_info_record = 0x00F3;
std::string_view name(uint16_t attr_id);
}  // namespace sa_attr

// SA class-specific status codes (bits 8-15 of the MAD status, IBA 1.3 Table 206).
namespace sa_status {
inline constexpr uint16_t no_resources = 0x0100;
inline constexpr uint16_t req_invalid = 0x0200;
inline constexpr uint16_t no_records = 0x0300;
inline constexpr uint16_t too_many_records = 0x0400;
inline constexpr uint16_t invalid_gid = 0x0500;
inline constexpr uint16_t insufficient_components = 0x0600;
inline constexpr uint16_t denied = 0x0700;
std::string describe(uint16_t status);
}  // namespace sa_status

namespace rmpp {
inline constexpr uint8_t kVersion = 1;
enum class Type : uint8_t { none = 0, data = 1, ack = 2, stop = 3, abort = 4 };
inline constexpr uint8_t flag_active = 0x01;
inline constexpr uint8_t flag_first = 0x02;
inline constexpr uint8_t flag_last = 0x04;
// RMPPStatus codes (IBA 1.3 Table 176).
namespace status {
inline constexpr uint8_t normal = 0;
inline constexpr uint8_t resources_exhausted = 1;
inline constexpr uint8_t total_time_too_long = 118;
inline constexpr uint8_t inconsistent_last = 119;
inline constexpr uint8_t inconsistent_first = 120;
inline constexpr uint8_t bad_type = 121;
inline constexpr uint8_t window_too_small = 122;
inline constexpr uint8_t segment_too_big = 123;
inline constexpr uint8_t illegal_status = 124;
inline constexpr uint8_t unsupported_version = 125;
inline constexpr uint8_t too_many_retries = 126;
inline constexpr uint8_t unspecified = 127;
}  // namespace status
}  // namespace rmpp

// Bytes 24-35 of a MAD of an RMPP class.
struct RmppHeader {
  uint8_t version = 0;          // 0: RMPP not in use
  rmpp::Type type = rmpp::Type::none;
  uint8_t resp_time = 0;        // 5 bits (RRespTime)
  uint8_t flags = 0;            // 3 bits: rmpp::flag_*
  uint8_t status = 0;
  uint32_t segment = 0;         // DATA: segment number; ACK: last segment received
  uint32_t payload_or_window = 0;  // DATA: PayloadLength (first, last); ACK: NewWindowLast

  bool active() const { return (flags & rmpp::flag_active) != 0; }
  bool first() const { return (flags & rmpp::flag_first) != 0; }
  bool last() const { return (flags & rmpp::flag_last) != 0; }
  bool operator==(const RmppHeader&) const = default;
};
RmppHeader decode_rmpp_header(std::span<const uint8_t, kMadSize> mad);
void encode_rmpp_header(const RmppHeader& h, std::span<uint8_t, kMadSize> mad);

struct SaMad {
  MadHeader header;  // mgmt_class 0x03, class_version 2 unless set otherwise
  RmppHeader rmpp;
  uint64_t sm_key = 0;
  uint16_t attr_offset = 0;  // record stride in 8-byte units (0: no records)
  uint64_t comp_mask = 0;
  SaData data{};

  SaMad() {
    header.mgmt_class = mgmt_class::subn_adm;
    header.class_version = kSaClassVersion;
  }
  bool operator==(const SaMad&) const = default;
};

// Decodes a 256-byte SA MAD. Refuses short buffers and other classes; the base and class
// versions are left for the caller to judge (an SA answers a bad version with a status).
Result<SaMad> decode_sa_mad(std::span<const uint8_t> mad);
MadBytes encode_sa_mad(const SaMad& m);
std::string print(const SaMad& m);

// The record stride for a record of `size` bytes, in 8-byte units (IBA 15.2.1.2).
constexpr uint16_t attr_offset_for(size_t size) { return static_cast<uint16_t>((size + 7) / 8); }

}  // namespace mad
