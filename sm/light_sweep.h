// A light sweep: SwitchInfo of every known switch, looking for PortStateChange (a port went
// up or down and no trap told us, or the trap was lost). One SMP per switch; the SM re-reads
// only the switches that answer with the bit set, and sweeps in full if one does not answer.
#pragma once

#include <functional>
#include <vector>

#include "sm/types.h"
#include "sm/smp_client.h"

namespace sm {

class LightSweep {
 public:
  struct Result {
    std::vector<Guid> changed;   // PortStateChange set
    std::vector<Guid> silent;    // did not answer
    uint64_t smps = 0;
  };

  explicit LightSweep(SmpClient& client) : client_(client) {}
  void start(const std::vector<std::pair<Guid, DrPath>>& switches, std::function<void()> done);
  const Result& result() const { return result_; }

 private:
  void end();
  SmpClient& client_;
  std::function<void()> done_;
  size_t pending_ = 0;
  Result result_;
};

}  // namespace sm
