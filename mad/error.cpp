#include "mad/error.h"

namespace mad {

std::string_view errc_name(Errc c) {
  switch (c) {
    case Errc::truncated: return "truncated";
    case Errc::invalid: return "invalid";
    case Errc::mad_status: return "mad-status";
    case Errc::timeout: return "timeout";
    case Errc::io: return "io";
    case Errc::parse: return "parse";
    case Errc::not_found: return "not-found";
    case Errc::exhausted: return "exhausted";
    case Errc::unsupported: return "unsupported";
    case Errc::conflict: return "conflict";
  }
  return "unknown";
}

}  // namespace mad
