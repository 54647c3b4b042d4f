// Who wins an election (IBA 14.4.1): the higher SMInfo priority, and on equal priorities the
// lower port GUID.
#pragma once

#include <cstdint>

#include "mad/types.h"

namespace ha {

struct Rank {
  uint8_t priority = 0;
  mad::Guid guid;
};

// True when `a` wins over `b`. Strict: an SM never outranks itself.
constexpr bool outranks(const Rank& a, const Rank& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  return a.guid < b.guid;
}

}  // namespace ha
