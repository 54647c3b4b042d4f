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
  const double started_ms = since(sweep_wall_ns_, sweep_fabric_).wall_ms;
  pkey_programmer_ = std::make_unique<PKeyProgrammer>(client_, log_, pkey_memory_, model_);
  pkey_programmer_->start(topo_, cfg_.partitions, [this, ok, started_ms] {
    report_.pkeys = pkey_programmer_->stats();
    const PKeyStats& s = report_.pkeys;
    const double ms = since(sweep_wall_ns_, sweep_fabric_).wall_ms - started_ms;
    log_.info_if(s.blocks_written || s.enforcement_sets || s.failures || report_.heavy, code::pkeys_programmed,
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
