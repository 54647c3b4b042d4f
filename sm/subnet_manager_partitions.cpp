// A sweep's programming step after the LFTs: P_Key tables and partition enforcement; the
// multicast forwarding tables follow.
#include "sm/subnet_manager.h"

namespace sm {

void SubnetManager::program_partitions(bool ok) {
  if (!master_) {  // stood by meanwhile: what the ports hold is the new master's business
    pkey_memory_.clear();
    finish(ok, ok ? "" : "programming failed on some nodes");
    return;
  }
  const int64_t started = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now().time_since_epoch()).count();
  pkey_programmer_ = std::make_unique<PKeyProgrammer>(client_, log_, pkey_memory_, model_);
  pkey_programmer_->start(topo_, cfg_.partitions, [this, ok, started] {
    report_.pkeys = pkey_programmer_->stats();
    const PKeyStats& s = report_.pkeys;
    const double ms = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch()).count() -
                                          started) / 1e6;
    log_.log(s.blocks_written || s.enforcement_sets || s.failures || report_.heavy ? Level::info : Level::debug, 524,
             "sweep {}: P_Keys: {} partition(s), {} block(s) written on {} port(s), {} read back, {} enforcement "
             "Set(s), {} failures, {:.1f} ms",
             sweeps_, cfg_.partitions.partitions.size(), s.blocks_written, s.ports_written, s.blocks_read,
             s.enforcement_sets, s.failures, ms);
    const bool all = ok && pkey_programmer_->ok();
    pkey_programmer_.reset();
    if (all && mc_ && master_) return program_multicast();
    finish(all, all ? "" : "programming failed on some nodes");
  });
}

}  // namespace sm
