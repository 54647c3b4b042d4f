#include "mad/guid_info.h"


#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

void GuidInfo::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  for (size_t i = 0; i < kEntries; ++i) w.write_be64(8 * i, guids[i].value());
}

Result<GuidInfo> GuidInfo::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("GUIDInfo needs {} bytes, got {}", kSize, in.size()));
  ByteReader r(in);
  GuidInfo g;
  for (size_t i = 0; i < kEntries; ++i) g.guids[i] = Guid(r.read_be64(8 * i));
  if (!r.ok()) return fail(Errc::truncated, "GUIDInfo truncated");
  return g;
}

std::string GuidInfo::to_string() const {
  std::string s;
  for (size_t i = 0; i < kEntries; ++i) append_format(s, "GUID{}: {}\n", i, guids[i]);
  s.pop_back();
  return s;
}

}  // namespace mad
