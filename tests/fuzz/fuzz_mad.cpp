// Feeds arbitrary bytes to every MAD decoder. Decoders must return an error, never read out
// of bounds; whatever decodes must encode back to bytes that decode to the same value.
// Seeds (corpus/mad/): ibsim_* are 256-byte SMPs carrying attribute data captured from ibsim
// (see tests/mad/test_attr_golden.cpp) and two traps received from it verbatim; pma_* are PMA
// MADs (PortCounters / PortCountersExtended answers, a ClassPortInfo Get) built by hand.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "mad/attributes.h"
#include "mad/pma.h"
#include "mad/smp.h"

namespace {

// Decodes `in` as attribute A; what decodes must survive encode -> decode unchanged.
template <class A>
void fuzz_attr(std::span<const uint8_t> in) {
  auto a = A::decode(in);
  if (!a) return;
  std::array<uint8_t, A::kSize> buf{};
  a->encode(buf);
  auto again = A::decode(buf);
  if (!again || !(*again == *a)) std::abort();
}

template <class... A>
void fuzz_all(std::span<const uint8_t> in) {
  (fuzz_attr<A>(in), ...);
}

// Through an SMP: decode_attr of the attribute the SMP names, then the same round trip.
template <class A>
void fuzz_smp_attr(const mad::Smp& s) {
  auto a = mad::decode_attr<A>(s);
  if (!a) return;
  mad::Smp s2 = s;
  s2.data = mad::encode_attr(*a);
  auto again = mad::decode_attr<A>(s2);
  if (!again || !(*again == *a)) std::abort();
  // Printing costs ten times the decoding: only here, for the one attribute the SMP names.
  (void)a->to_string();
}

template <class... A>
void fuzz_smp_all(const mad::Smp& s) {
  (fuzz_smp_attr<A>(s), ...);
}

void fuzz_notice_views(std::span<const uint8_t> in) {
  auto n = mad::Notice::decode(in);
  if (!n) return;
  (void)n->trap128();
  (void)n->trap129to131();
  (void)n->trap144();
  (void)n->trap_gid();
  (void)n->trap256();
  (void)mad::trap_name(n->trap_or_device_id);
}

#define FUZZ_ATTRIBUTES                                                                      \
  mad::NodeInfo, mad::NodeDescription, mad::PortInfo, mad::SwitchInfo,                      \
      mad::LinearForwardingTable, mad::MulticastForwardingTable, mad::SmInfo, mad::GuidInfo, \
      mad::PKeyTable, mad::Sl2VlTable, mad::VlArbTable, mad::Notice

#define FUZZ_PMA_ATTRIBUTES mad::PmaClassPortInfo, mad::PortCounters, mad::PortCountersExtended

// Through a PMA MAD: the MAD round trip, then the attribute it names (printed only then).
void fuzz_pma(std::span<const uint8_t> in) {
  auto m = mad::decode_pma(in);
  if (!m) return;
  auto again = mad::decode_pma(mad::encode_pma(*m));
  if (!again || !(*again == *m)) std::abort();
  (void)mad::print(*m);
  switch (m->attr_id) {
    case mad::pma_attr::class_port_info:
      if (auto a = mad::decode_pma_attr<mad::PmaClassPortInfo>(*m)) (void)mad::print(*a);
      break;
    case mad::pma_attr::port_counters:
      if (auto a = mad::decode_pma_attr<mad::PortCounters>(*m)) (void)mad::print(*a);
      break;
    case mad::pma_attr::port_counters_ext:
      if (auto a = mad::decode_pma_attr<mad::PortCountersExtended>(*m)) (void)mad::print(*a);
      break;
    default:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  if (auto s = mad::decode_smp(in)) {
    auto again = mad::decode_smp(mad::encode_smp(*s));
    if (!again || !(*again == *s)) std::abort();
    (void)mad::print(*s);
    fuzz_smp_all<FUZZ_ATTRIBUTES>(*s);
  }
  (void)mad::decode_mad_header(in);
  // Raw attribute bytes at offset 0, and at the SMP data offset (the seeds are whole MADs).
  fuzz_pma(in);
  fuzz_all<FUZZ_ATTRIBUTES>(in);
  fuzz_all<FUZZ_PMA_ATTRIBUTES>(in);
  fuzz_notice_views(in);
  if (in.size() > mad::kSmpDataOffset) {
    fuzz_all<FUZZ_ATTRIBUTES>(in.subspan(mad::kSmpDataOffset));
    fuzz_all<FUZZ_PMA_ATTRIBUTES>(in.subspan(mad::kPmaDataOffset));
    fuzz_notice_views(in.subspan(mad::kSmpDataOffset));
  }
  return 0;
}
