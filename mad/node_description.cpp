#include "mad/node_description.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/format.h"

namespace mad {

void NodeDescription::encode(std::span<uint8_t> out) const {
  ByteWriter w(out);
  const size_t n = std::min(text.size(), kSize);
  w.zero(0, kSize);
  w.write_bytes(0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), n));
}

Result<NodeDescription> NodeDescription::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated,
                fmt::format("NodeDescription needs {} bytes, got {}", kSize, in.size()));
  const auto bytes = in.first(kSize);
  const auto end = std::find(bytes.begin(), bytes.end(), uint8_t{0});
  NodeDescription d;
  d.text.assign(reinterpret_cast<const char*>(bytes.data()),
                static_cast<size_t>(end - bytes.begin()));
  return d;
}

std::string NodeDescription::to_string() const {
  // Hostile or broken firmware may send anything; keep logs one line and printable.
  std::string s = "NodeDesc: ";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F && c != '\\')
      s += c;
    else
      append_format(s, "\\x{:02x}", u);
  }
  return s;
}

}  // namespace mad
