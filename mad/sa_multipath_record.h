// MultiPathRecord (attribute 0x003A, IBA 1.3 vol 1 15.2.5.20): a path query between a set of
// source GIDs and a set of destination GIDs, sent with SubnAdmGetMulti and answered with
// PathRecords. A 24-byte head, then SGIDCount source GIDs and DGIDCount destination GIDs of
// 16 bytes each: in the 200 bytes of one SA MAD at most 11 GIDs in all (a request longer
// than one MAD would need RMPP on the request side, which the decoder does not reassemble).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mad/error.h"
#include "mad/gid.h"
#include "mad/sa_fields.h"
#include "mad/sa_mad.h"

namespace mad {

struct MultiPathRecord {
  static constexpr uint16_t kAttrId = sa_attr::multipath_record;
  static constexpr size_t kHeadSize = 24;
  static constexpr size_t kGidSize = 16;
  static constexpr size_t kMaxGids = (kSaDataSize - kHeadSize) / kGidSize;  // 11
  // The head's fields (the GIDs are not ComponentMask fields).
  static std::span<const FieldSpec> components();
  // ComponentMask bits (IBA Table 219 order).
  enum Component : uint64_t {
    c_raw_traffic = 1ull << 0, c_flow_label = 1ull << 2, c_hop_limit = 1ull << 3, c_tclass = 1ull << 4,
    c_reversible = 1ull << 5, c_numb_path = 1ull << 6, c_pkey = 1ull << 7, c_qos_class = 1ull << 8,
    c_sl = 1ull << 9, c_mtu_selector = 1ull << 10, c_mtu = 1ull << 11, c_rate_selector = 1ull << 12,
    c_rate = 1ull << 13, c_pkt_life_selector = 1ull << 14, c_pkt_life = 1ull << 15,
    c_service_id_msb = 1ull << 16, c_independence = 1ull << 17, c_sgid_count = 1ull << 19,
    c_dgid_count = 1ull << 20, c_service_id_lsb = 1ull << 21,
  };

  bool raw_traffic = false;
  uint32_t flow_label = 0;  // 20 bits
  uint8_t hop_limit = 0;
  uint8_t tclass = 0;
  bool reversible = false;
  uint8_t numb_path = 0;    // 7 bits: the most paths to return
  uint16_t pkey = 0;
  uint16_t qos_class = 0;   // 12 bits
  uint8_t sl = 0;           // 4 bits
  uint8_t mtu_selector = 0, mtu = 0;
  uint8_t rate_selector = 0, rate = 0;
  uint8_t pkt_life_selector = 0, pkt_life = 0;
  uint64_t service_id = 0;
  uint8_t independence = 0;  // 2 bits: IndependenceSelector
  std::vector<Gid> sgids, dgids;  // SGIDCount and DGIDCount are their sizes

  size_t size() const { return kHeadSize + kGidSize * (sgids.size() + dgids.size()); }
  // Writes size() bytes, or fewer: the GIDs that fit in `out` (SGIDs first, 255 of each at
  // most), and counts that say how many it wrote.
  void encode(std::span<uint8_t> out) const;
  // The head and the GIDs its counts announce; refuses bytes too short for them.
  static Result<MultiPathRecord> decode(std::span<const uint8_t> in);
  std::string to_string() const;
  bool operator==(const MultiPathRecord&) const = default;
};

}  // namespace mad
