#include "sm/partitions/pkey_programmer.h"

#include <algorithm>

#include "mad/attributes.h"
#include "mad/pkey_table.h"

namespace sm {

namespace {
constexpr size_t kBlock = mad::PKeyTable::kEntries;

size_t blocks_of(size_t entries) { return (entries + kBlock - 1) / kBlock; }

std::span<const uint16_t> block_of(const std::vector<uint16_t>& t, uint16_t b) {
  const size_t from = static_cast<size_t>(b) * kBlock;
  return {t.data() + from, std::min(kBlock, t.size() - from)};
}
}  // namespace

void forget_reset_ports(PKeyMemory& memory, const FabricModel& model) {
  for (auto it = memory.begin(); it != memory.end();) {
    const auto& [guid, port] = it->first;
    const FabricModel::NodeRec* n = model.find(guid);
    bool reset = !n || port >= n->ports.size();
    if (!reset && n->is_switch()) {
      const auto& p0 = n->ports[0];
      reset = !p0.have_info || !p0.info.lid.is_unicast();
      if (port != 0) reset = reset || !n->ports[port].have_info || n->ports[port].info.port_state < PortState::armed;
    } else if (!reset) {
      reset = !n->ports[port].have_info || n->ports[port].info.port_state < PortState::armed;
    }
    it = reset ? memory.erase(it) : std::next(it);
  }
}

void PKeyProgrammer::start(const Topology& topo, const PartitionSet& set, std::function<void()> done) {
  topo_ = &topo;
  done_ = std::move(done);
  stats_ = {};
  targets_.clear();
  work_.clear();
  next_ = 0;
  plan(resolve_pkeys(topo, set));
  written_.assign(targets_.size(), 0);
  stage_ = 1;
  begin();
  end();
}

void PKeyProgrammer::plan(const std::vector<PortPKeys>& ports) {
  const Topology& t = *topo_;
  for (const PortPKeys& pk : ports) {
    const FabricModel::NodeRec* rec = model_.find(t.node(pk.node).guid);
    if (!rec) continue;
    const size_t cap = rec->info.partition_cap;
    std::vector<uint16_t> keys = pk.pkeys;
    if (keys.size() > cap) {
      if (warn_log_.allow())
        log_.warn(code::pkey_over_capacity, "P_Keys: {} port {} ({}) holds {} P_Keys, its partitions need {}: the last {} left out",
                  pk.guid, pk.port, rec->description, cap, keys.size(), keys.size() - cap);
      keys.resize(cap);
    }
    const Port& port = t.port(pk.node, pk.port);
    // The switch port facing this CA port enforces the same table, when it can hold it.
    if (!t.node(pk.node).is_switch() && port.linked() && t.node(port.peer).is_switch()) {
      const FabricModel::NodeRec* sw = model_.find(t.node(port.peer).guid);
      const size_t ecap = sw ? sw->sw.partition_enforcement_cap : 0;
      if (sw && ecap > 0) {
        Target ext{port.peer, port.peer_port, {}, true, keys.size() <= ecap, false};
        if (ext.enforce) {
          ext.want = keys;
          ext.want.resize(ecap, 0);
        } else if (warn_log_.allow()) {
          log_.warn(code::pkey_no_enforcement, "P_Keys: switch {} port {} enforces at most {} P_Keys, {} port {} has {}: no enforcement there",
                    t.node(port.peer).guid, port.peer_port, ecap, pk.guid, pk.port, keys.size());
        }
        add_target(std::move(ext));
      }
    }
    if (cap == 0) continue;
    keys.resize(cap, 0);
    add_target(Target{pk.node, pk.port, std::move(keys), false, false, false});
  }
  // Enforcement (stage 2) is planned once the tables are in.
}

void PKeyProgrammer::add_target(Target t) {
  const uint32_t id = static_cast<uint32_t>(targets_.size());
  targets_.push_back(std::move(t));
  const Target& tg = targets_.back();
  const PKeyPortMemory& m = mem(tg);
  const bool known = m.table.size() == tg.want.size();
  for (uint16_t b = 0; b < blocks_of(tg.want.size()); ++b) {
    if (!known) work_.push_back(Work{Work::Kind::read, id, b});
    else if (!std::ranges::equal(block_of(m.table, b), block_of(tg.want, b)))
      work_.push_back(Work{Work::Kind::write, id, b});
  }
}

PKeyPortMemory& PKeyProgrammer::mem(const Target& t) {
  return memory_[{topo_->node(t.node).guid, t.port.value()}];
}

uint32_t PKeyProgrammer::attr_mod(const Target& t, uint16_t block) const {
  return topo_->node(t.node).is_switch() ? mad::pkey_attr_mod(block, t.port) : mad::pkey_attr_mod(block);
}

mad::DrPath PKeyProgrammer::path(const Target& t) const { return topo_->path_to_port(t.node, t.port); }

void PKeyProgrammer::fail(uint32_t t, std::string what) {
  ++stats_.failures;
  targets_[t].failed = true;
  if (fail_log_.allow()) log_.error(code::pkey_failed, "P_Keys: {}", what);
}

void PKeyProgrammer::pump() {
  const auto& tx = client_.transactions();
  while (next_ < work_.size() && tx.queued() == 0 &&
         tx.outstanding() < static_cast<size_t>(tx.config().window))
    issue(work_[next_++]);
}

void PKeyProgrammer::issue(const Work& w) {
  switch (w.kind) {
    case Work::Kind::read: read_block(w.target, w.block); break;
    case Work::Kind::write: write_block(w.target, w.block); break;
    case Work::Kind::enforce: set_enforcement(w.target); break;
  }
}

void PKeyProgrammer::end() {
  --pending_;
  pump();
  if (pending_ != 0 || next_ < work_.size()) return;
  if (stage_ == 1) {
    stage_ = 2;
    work_.clear();
    next_ = 0;
    stats_.ports_written = static_cast<uint64_t>(std::ranges::count(written_, 1));
    for (uint32_t i = 0; i < targets_.size(); ++i) {
      const Target& t = targets_[i];
      if (!t.external || t.failed) continue;
      const FabricModel::NodeRec* rec = model_.find(topo_->node(t.node).guid);
      if (!rec || t.port.value() >= rec->ports.size() || !mem(t).enforcement_kept) continue;
      const mad::PortInfo& pi = rec->ports[t.port.value()].info;
      if (pi.partition_enforcement_inbound != t.enforce || pi.partition_enforcement_outbound != t.enforce)
        work_.push_back(Work{Work::Kind::enforce, i, 0});
    }
    begin();
    end();
    return;
  }
  if (stage_ == 2) {
    stage_ = 3;
    if (fail_log_.suppressed()) log_.error(code::pkey_failures_suppressed, "P_Keys: {} more failures not logged", fail_log_.suppressed());
    if (warn_log_.suppressed()) log_.warn(code::pkey_warnings_suppressed, "P_Keys: {} more warnings not logged", warn_log_.suppressed());
    auto d = std::move(done_);
    d();
  }
}

void PKeyProgrammer::read_block(uint32_t t, uint16_t block) {
  begin();
  client_.get(path(targets_[t]), mad::attr::pkey_table, attr_mod(targets_[t], block),
              [this, t, block](mad::Result<mad::Smp> r) {
                ++stats_.blocks_read;
                const Target& tg = targets_[t];
                auto table = r ? mad::decode_attr<mad::PKeyTable>(*r)
                               : mad::Result<mad::PKeyTable>(std::unexpected(r.error()));
                if (!table) {
                  // Unknown: write it (a Set answers with what the port then holds).
                  write_block(t, block);
                } else {
                  PKeyPortMemory& m = mem(tg);
                  if (m.table.size() != tg.want.size()) m.table.assign(tg.want.size(), 0);
                  const auto want = block_of(tg.want, block);
                  std::copy_n(table->pkeys.begin(), want.size(), m.table.begin() + block * kBlock);
                  if (!std::ranges::equal(block_of(m.table, block), want)) write_block(t, block);
                }
                end();
              });
}

void PKeyProgrammer::write_block(uint32_t t, uint16_t block) {
  mad::PKeyTable out;
  const auto blk = block_of(targets_[t].want, block);
  std::copy(blk.begin(), blk.end(), out.pkeys.begin());
  begin();
  client_.set(path(targets_[t]), mad::attr::pkey_table, attr_mod(targets_[t], block), mad::encode_attr(out),
              [this, t, block](mad::Result<mad::Smp> r) {
                const Target& tg = targets_[t];
                PKeyPortMemory& m = mem(tg);
                if (m.table.size() != tg.want.size()) m.table.assign(tg.want.size(), 0);
                auto table = r ? mad::decode_attr<mad::PKeyTable>(*r)
                               : mad::Result<mad::PKeyTable>(std::unexpected(r.error()));
                const auto want = block_of(tg.want, block);
                if (table && std::equal(want.begin(), want.end(), table->pkeys.begin())) {
                  ++stats_.blocks_written;
                  written_[t] = 1;
                  std::copy(want.begin(), want.end(), m.table.begin() + block * kBlock);
                } else {
                  memory_.erase({topo_->node(tg.node).guid, tg.port.value()});  // unknown again
                  const Node& n = topo_->node(tg.node);
                  fail(t, fmt::format("P_KeyTable block {} on {} port {} ({}): {}", block, n.guid, tg.port,
                                      n.description, r ? "the port did not keep it" : r.error().message));
                }
                end();
              });
}

void PKeyProgrammer::set_enforcement(uint32_t t) {
  const Target& target = targets_[t];
  mad::PortInfo want = model_.find(topo_->node(target.node).guid)->ports[target.port.value()].info;
  want.port_state = PortState::no_change;
  want.phys_state = mad::PhysState::no_change;
  want.link_width_enabled = 0;
  want.link_speed_enabled = 0;
  want.link_speed_ext_enabled = 0;
  want.link_down_default_state = 0;
  want.client_reregister = false;
  want.partition_enforcement_inbound = want.partition_enforcement_outbound = target.enforce;
  begin();
  client_.set(path(target), mad::attr::port_info, target.port.value(), mad::encode_attr(want),
              [this, t](mad::Result<mad::Smp> r) {
                const Target& tg = targets_[t];
                const Node& n = topo_->node(tg.node);
                auto pi = r ? mad::decode_attr<mad::PortInfo>(*r)
                            : mad::Result<mad::PortInfo>(std::unexpected(r.error()));
                if (!pi) {
                  fail(t, fmt::format("PortInfo Set (partition enforcement) on {} port {} ({}): {}", n.guid, tg.port,
                                      n.description, pi.error().message));
                } else {
                  ++stats_.enforcement_sets;
                  if (FabricModel::NodeRec* rec = model_.find(n.guid); rec && tg.port.value() < rec->ports.size())
                    rec->ports[tg.port.value()].info = *pi;
                  if (pi->partition_enforcement_inbound != tg.enforce || pi->partition_enforcement_outbound != tg.enforce) {
                    mem(tg).enforcement_kept = false;
                    log_.debug(code::pkey_enforcement_not_kept, "{} port {} does not keep the partition enforcement bits: not sent again", n.guid,
                               tg.port);
                  }
                }
                end();
              });
}

}  // namespace sm
