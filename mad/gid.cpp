#include "mad/gid.h"

#include <fmt/format.h>

#include "mad/byte_io.h"

namespace mad {

void Gid::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  w.write_be64(0, prefix_);
  w.write_be64(8, iid_);
}

Gid Gid::decode(std::span<const uint8_t> in) {
  ByteReader r(in);
  const uint64_t p = r.read_be64(0);
  const uint64_t i = r.read_be64(8);
  return r.ok() ? Gid(p, i) : Gid();
}

std::string Gid::str() const {
  uint16_t w[8];
  for (int i = 0; i < 4; ++i) {
    w[i] = static_cast<uint16_t>(prefix_ >> (48 - 16 * i));
    w[4 + i] = static_cast<uint16_t>(iid_ >> (48 - 16 * i));
  }
  // RFC 5952: the longest run (>= 2) of zero words becomes "::" (the first such run on a tie).
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (w[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && w[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string s;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      s += "::";
      i += best_len - 1;
      continue;
    }
    if (!s.empty() && s.back() != ':') s += ':';
    s += fmt::format("{:x}", w[i]);
  }
  return s;
}

}  // namespace mad
