// The SA client of the service tests: sim/sa_client.h.
#pragma once

#include "sim/sa_client.h"

namespace svctest {
using sim::records_of;
using sim::SaClient;
}  // namespace svctest
