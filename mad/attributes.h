// All SMP attribute codecs, and the glue between them and an Smp's 64-byte data field.
#pragma once

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "mad/error.h"
#include "mad/guid_info.h"
#include "mad/linear_forwarding_table.h"
#include "mad/multicast_forwarding_table.h"
#include "mad/node_description.h"
#include "mad/node_info.h"
#include "mad/notice.h"
#include "mad/pkey_table.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/sm_info.h"
#include "mad/smp.h"
#include "mad/switch_info.h"
#include "mad/vl_arb_table.h"

namespace mad {

// SMP data (zero-filled) holding `a` at offset 0. An attribute longer than the SMP data field
// (Notice: 80 bytes) is cut to its first 64 bytes, as IBA prescribes for SMPs.
template <class A>
SmpData encode_attr(const A& a) {
  SmpData d{};
  if constexpr (A::kSize <= kSmpDataSize) {
    a.encode(d);
  } else {
    std::array<uint8_t, A::kSize> full{};
    a.encode(full);
    std::copy_n(full.begin(), kSmpDataSize, d.begin());
  }
  return d;
}

// Decodes the attribute an SMP carries; Errc::invalid when it carries another attribute.
// Bytes of a longer attribute that an SMP has no room for (Notice.IssuerGID) decode as zero.
template <class A>
Result<A> decode_attr(const Smp& s) {
  if (s.attr_id != A::kAttrId)
    return fail(Errc::invalid, fmt::format("SMP carries attribute 0x{:04x}, expected 0x{:04x}",
                                           s.attr_id, A::kAttrId));
  if constexpr (A::kSize <= kSmpDataSize) {
    return A::decode(s.data);
  } else {
    std::array<uint8_t, A::kSize> full{};
    std::copy(s.data.begin(), s.data.end(), full.begin());
    return A::decode(full);
  }
}

}  // namespace mad
