// Errors are values: every fallible call returns Result<T> = std::expected<T, Error>.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace mad {

enum class Errc {
  truncated,      // buffer shorter than the wire format needs
  invalid,        // a field holds a value the format does not allow
  mad_status,     // the peer answered with a non-zero MAD status
  timeout,        // no answer after all retries
  io,             // the transport failed (device, socket, ...)
  parse,          // a text input (topology file, config) is malformed
  not_found,      // a name, GUID or LID that does not exist
  exhausted,      // a resource ran out (LID space, window, ...)
  unsupported,    // valid but not implemented here
  conflict,       // two facts that cannot both be true (duplicate GUID, ...)
};

std::string_view errc_name(Errc c);

struct Error {
  Errc code;
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(Errc code, std::string message) {
  return std::unexpected<Error>(Error{code, std::move(message)});
}

}  // namespace mad
