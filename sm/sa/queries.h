// One SA request in, its answer out: header checks, dispatch by method and attribute,
// ComponentMask filtering over the index's records, PathRecords, or the handler that claims
// the attribute. Pure apart from the handlers' state, so the server, the unit tests and the
// fuzzer share it.
#pragma once

#include <span>
#include <vector>

#include "mad/sa_mad.h"
#include "sm/sa/handler.h"
#include "sm/sa/index.h"

namespace sm::sa {

struct Answer {
  bool respond = false;   // false: nothing to send (a response, an unparseable MAD)
  mad::SaMad response;    // header, status, ComponentMask echo, AttributeOffset
  bool rmpp = false;      // GetTable: `payload` goes out by RMPP after `response`'s headers
  std::vector<uint8_t> payload;
};

// `ix` may be null (no index yet): requests get a busy status. `handlers` answer the
// attributes they claim (Set and Delete reach only them); the index the rest. `qos_policy`:
// PathRecords carry the SL and limits of the level each query matches (null: SL 0).
Answer answer_query(const Index* ix, std::span<Handler* const> handlers, const mad::MadBytes& request,
                    const mad::MadAddress& from, uint64_t subnet_prefix, const qos::Policy* qos_policy = nullptr);

}  // namespace sm::sa
