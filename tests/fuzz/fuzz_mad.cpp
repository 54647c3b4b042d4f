// Feeds arbitrary bytes to every MAD decoder. Decoders must return an error, never read out
// of bounds; whatever decodes must encode back to bytes that decode to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "mad/smp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  if (auto s = mad::decode_smp(in)) {
    auto again = mad::decode_smp(mad::encode_smp(*s));
    if (!again || !(*again == *s)) std::abort();
    (void)mad::print(*s);
  }
  (void)mad::decode_mad_header(in);
  return 0;
}
