// Drives a SubnetManager over its transport: wait for a MAD or the SM's next deadline, feed
// it, repeat. The same loop serves libibumad and the simulator (whose receive() runs the
// fabric on virtual time).
#pragma once

#include <functional>

#include "mad/transport.h"
#include "sm/subnet_manager.h"

namespace sm {

// Runs until `stop()` is true (checked after every batch) or the transport fails. `idle`
// bounds each wait when the SM has nothing scheduled (so `stop` is looked at regularly).
mad::Result<void> run_loop(SubnetManager& sm, mad::Transport& t, const std::function<bool()>& stop,
                           mad::Nanos idle = std::chrono::milliseconds(100));

}  // namespace sm
