#include "sm/multicast/multicast.h"

#include <algorithm>

namespace sm::multicast {

Multicast::Multicast(Logger& log, MulticastConfig cfg)
    : log_(log), cfg_(std::move(cfg)), handler_(groups_, cfg_.sa) {}

size_t Multicast::restore(std::span<const std::vector<uint8_t>> records) {
  size_t n = 0;
  groups_.clear();
  for (const auto& rec : records) {
    auto g = decode_group(rec);
    if (!g) {
      log_.error(code::stored_group_bad, "multicast: a stored group was not restored: {}", g.error().message);
      continue;
    }
    const std::string name = g->mgid.str();
    const uint16_t mlid = g->mlid.value();
    if (auto r = groups_.restore(std::move(*g)); !r) {
      log_.error(code::stored_group_refused, "multicast: stored group {} was not restored: {}", name, r.error().message);
      continue;
    }
    log_.debug(code::group_restored, "multicast: group {} restored with MLID 0x{:04x}", name, mlid);
    ++n;
  }
  groups_.take_changed();  // the store holds them already
  return n;
}

void Multicast::ensure_partition_groups() {
  for (const Partition& p : cfg_.partitions.partitions) {
    for (const PartitionGroup& pg : p.groups) {
      if (groups_.find(pg.mgid)) {
        groups_.set_kept(pg.mgid, true);  // a client may have created it before the partition named it
        continue;
      }
      // As OpenSM: the full-member P_Key, exact MTU and rate, hop limit 0 for link-local.
      GroupParams gp;
      gp.qkey = pg.qkey;
      gp.pkey = static_cast<uint16_t>(p.pkey | 0x8000);
      gp.mtu = pg.mtu;
      gp.rate = pg.rate;
      gp.sl = pg.sl;
      gp.tclass = pg.tclass;
      gp.flow_label = pg.flow_label;
      gp.scope = pg.mgid.mc_scope();
      gp.hop_limit = gp.scope == 2 ? 0 : 0xFF;
      gp.pkt_life = cfg_.sa.pkt_life;
      auto g = groups_.create(pg.mgid, gp, true);
      if (!g) {
        log_.error(code::broadcast_group_failed, "multicast: group {} of partition {} (0x{:04x}): {}", pg.mgid.str(),
                   p.name, p.pkey, g.error().message);
        continue;
      }
      log_.info(code::broadcast_group, "multicast: group {} of partition {} has MLID 0x{:04x}", pg.mgid.str(), p.name,
                (*g)->mlid.value());
    }
  }
}

void Multicast::set_partitions(PartitionSet partitions) {
  cfg_.partitions = std::move(partitions);
  std::vector<mad::Gid> wanted;
  for (const Partition& p : cfg_.partitions.partitions)
    for (const PartitionGroup& pg : p.groups) wanted.push_back(pg.mgid);
  std::vector<mad::Gid> gone;
  for (const auto& [mgid, g] : groups_.groups())
    if (g.kept && std::find(wanted.begin(), wanted.end(), mgid) == wanted.end()) gone.push_back(mgid);
  for (const mad::Gid& mgid : gone) {
    groups_.set_kept(mgid, false);
    if (!groups_.find(mgid)->has_full_member()) {
      log_.info(code::partition_group_deleted, "multicast: group {} deleted: its partition is gone and it has no full member", mgid.str());
      groups_.erase(mgid);
    }
  }
  ensure_partition_groups();
}

size_t Multicast::drop_absent_members(const Topology& topo) {
  std::vector<std::pair<mad::Gid, mad::Gid>> gone;  // (MGID, port GID)
  for (const auto& [mgid, g] : groups_.groups())
    for (const auto& [port, js] : g.members)
      if (!topo.find_port(port.guid())) gone.emplace_back(mgid, port);
  for (const auto& [mgid, port] : gone) {
    log_.info(code::member_left_fabric, "multicast: port {} left the fabric: no longer a member of {}", port.str(), mgid.str());
    groups_.set_member(mgid, port, 0);
    const Group* g = groups_.find(mgid);
    if (g && !g->kept && !g->has_full_member()) {
      log_.info(code::group_deleted, "multicast: group {} deleted: no full member left", mgid.str());
      groups_.erase(mgid);
    }
  }
  return gone.size();
}

void Multicast::program(const Topology& topo, FabricModel& model, SmpClient& client, bool after_sweep,
                        std::function<void(const Outcome&)> done) {
  ensure_partition_groups();
  if (after_sweep) drop_absent_members(topo);
  planned_version_ = groups_.version();
  if (after_sweep) trees_.clear();
  MftPlan plan = plan_mfts(topo, model, groups_, memory_, trees_, after_sweep, log_);
  if (!writer_) writer_ = std::make_unique<MftWriter>(client, log_, memory_, model);
  if (writer_->busy()) {
    queued_.emplace_back(std::move(plan), std::move(done));
    return;
  }
  run(std::move(plan), std::move(done));
}

void Multicast::run(MftPlan plan, std::function<void(const Outcome&)> done) {
  writer_->start(std::move(plan), [this, done = std::move(done)](const MftStats& s) {
    last_ = s;
    log_.info_if(s.blocks_written || s.failures, code::multicast_programmed,
             "multicast: {} group(s) on {} switch table(s), {} MFT block(s) written, {} MulticastFDBTop set(s), "
             "{} failure(s), {} member(s) not in the subnet",
             s.groups, s.tree_switches, s.blocks_written, s.top_sets, s.failures, s.members_missing);
    if (done) done(Outcome{s.blocks_written, s.failures, s.failed});
    if (!queued_.empty() && !writer_->busy()) {
      auto next = std::move(queued_.front());
      queued_.pop_front();
      run(std::move(next.first), std::move(next.second));
    }
  });
}

std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> Multicast::take_store_changes() {
  std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> out;
  for (const mad::Gid& mgid : groups_.take_changed()) {
    const Group* g = groups_.find(mgid);
    out.emplace_back(mgid_key(mgid), g ? encode_group(*g) : std::vector<uint8_t>{});
  }
  return out;
}

}  // namespace sm::multicast
