// What HA needs from the SM it runs in. sm/ implements it (sm/ha_host.*); tests fake it.
// ha/ knows nothing of transports, sweeps or the fabric model beyond this.
#pragma once

#include <functional>

#include "ha/role.h"

namespace ha {

class SmHost {
 public:
  virtual ~SmHost() = default;
  virtual Nanos now() const = 0;
  // Walk the subnet without configuring anything; then call Agent::discovered().
  virtual void discover() = 0;
  // Configure the subnet from now on (finish the walk under way into a sweep, or sweep).
  virtual void become_master() = 0;
  // Configure nothing from now on: no sweeps, no table writes.
  virtual void stand_by() = 0;
  // A heavy sweep (another master handed its part of the subnet to this one).
  virtual void resweep() = 0;
  using SmInfoDone = std::function<void(mad::Result<SmInfo>)>;
  // SubnGet(SMInfo) (`modifier` 0) or SubnSet(SMInfo) with a control `modifier` and `payload`
  // to the SM behind port `port`: one attempt, failed after `timeout` or on a non-zero MAD
  // status. `done` runs exactly once, possibly before this returns.
  virtual void send_sm_info(Guid port, uint32_t modifier, const SmInfo& payload, Nanos timeout,
                            SmInfoDone done) = 0;
  // The SubnGet(SMInfo) of a standby about to take its master for lost: by every route the
  // host knows to that port (so that one cut cable on the usual route is not a dead master),
  // the first answer counts; fails when every route has. A host with one route asks by it.
  virtual void confirm_sm_info(Guid port, Nanos timeout, SmInfoDone done) {
    send_sm_info(port, 0, SmInfo{}, timeout, std::move(done));
  }
  // Trap 144 to the master at `port`, so that an SM (OpenSM) that looks for higher SMs only on
  // traps looks at this one.
  virtual void notify_master(Guid port) = 0;
  virtual void note(const Note& n) = 0;
};

}  // namespace ha
