// A light sweep: SwitchInfo of every known switch, looking for PortStateChange (a port went
// up or down and no trap told us, or the trap was lost). One SMP per switch; the SM re-reads
// only the switches that answer with the bit set, and sweeps in full if one does not answer.
// It also reads the SM's own port: a MasterSMLID or LID there that this SM did not set means
// another SM is acting as master.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "mad/attributes.h"

#include "sm/types.h"
#include "sm/smp_client.h"

namespace sm {

class LightSweep {
 public:
  struct Result {
    std::vector<Guid> changed;   // PortStateChange set
    std::vector<Guid> silent;    // did not answer
    std::optional<mad::PortInfo> own;  // the SM's own port, when asked for and answered
    uint64_t smps = 0;
  };

  explicit LightSweep(SmpClient& client) : client_(client) {}
  void start(const std::vector<std::pair<Guid, DrPath>>& switches, std::function<void()> done,
             std::optional<uint8_t> own_port = std::nullopt);
  const Result& result() const { return result_; }

 private:
  void end();
  SmpClient& client_;
  std::function<void()> done_;
  size_t pending_ = 0;
  Result result_;
};

}  // namespace sm
