// A part of the SA that keeps what clients create: multicast groups and their members,
// services, event subscriptions. The SA asks its handlers before its index: the one that
// claims an attribute answers every method on it (Get, GetTable, Set, Delete), may change its
// state doing so, and says what to send back.
#pragma once

#include <cstdint>
#include <vector>

#include "mad/sa_mad.h"
#include "mad/transport.h"
#include "sm/sa/index.h"

namespace sm::sa {

struct Request {
  const mad::SaMad& mad;         // header (method, attribute, TID), ComponentMask, record
  const mad::MadAddress& from;   // the requester: where joins and Reports are addressed
};

struct Records {
  uint16_t status = 0;  // mad::status / mad::sa_status; non-zero: an error, no records
  std::vector<std::vector<uint8_t>> records;  // each exactly the attribute's size
};
inline Records refused(uint16_t status) { return Records{status, {}}; }

class Handler {
 public:
  virtual ~Handler() = default;
  // The attribute's record size when this handler answers it, 0 when it does not.
  virtual size_t claims(uint16_t attr_id) const = 0;
  // Get/Set/Delete answer with exactly one record (none: NO_RECORDS; more: TOO_MANY_RECORDS,
  // both applied by the SA); GetTable with any number.
  virtual Records handle(const Request& req, const Index& ix) = 0;
};

}  // namespace sm::sa
