// Feeds arbitrary bytes to the SA wire layer: the SA MAD (whatever decodes must round-trip),
// every SA record decoder, and an RMPP receiver fed the bytes as a stream of segments.
// Decoders must return an error, never read out of bounds (ASan/UBSan watch).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include "mad/rmpp.h"
#include "mad/sa_mad.h"
#include "mad/sa_multipath_record.h"
#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "mad/sa_service_records.h"

namespace {

template <class... R>
void decode_all(std::span<const uint8_t> in) {
  ((void)R::decode(in), ...);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  if (auto m = mad::decode_sa_mad(in)) {
    auto again = mad::decode_sa_mad(mad::encode_sa_mad(*m));
    if (!again || !(*again == *m)) std::abort();
    (void)mad::print(*m);
    decode_all<mad::NodeRecord, mad::PortInfoRecord, mad::SmInfoRecord, mad::SwitchInfoRecord, mad::LinkRecord,
               mad::LftRecord, mad::MftRecord, mad::GuidInfoRecord, mad::PKeyTableRecord, mad::PathRecord,
               mad::McMemberRecord, mad::ServiceRecord, mad::InformInfo, mad::InformInfoRecord,
               mad::ClassPortInfo>(std::span<const uint8_t>(m->data));
  }
  decode_all<mad::NodeRecord, mad::PortInfoRecord, mad::PathRecord, mad::McMemberRecord, mad::ServiceRecord>(in);
  // MultiPathRecord: variable length; whatever decodes must come back the same.
  if (auto mp = mad::MultiPathRecord::decode(in)) {
    std::vector<uint8_t> b(mp->size());
    mp->encode(b);
    auto again = mad::MultiPathRecord::decode(b);
    if (!again || !(*again == *mp)) std::abort();
    (void)mp->to_string();
  }
  // The bytes as RMPP segments of 256 bytes each.
  mad::RmppReceiver rx;
  std::optional<mad::MadBytes> ack;
  for (size_t off = 0; off + mad::kMadSize <= size; off += mad::kMadSize) {
    mad::MadBytes seg{};
    std::copy(in.begin() + static_cast<ptrdiff_t>(off), in.begin() + static_cast<ptrdiff_t>(off + mad::kMadSize), seg.begin());
    if (rx.on_segment(seg, ack) == mad::RmppReceiver::Event::complete) (void)rx.message();
  }
  return 0;
}
