#include "sm/program/pkey_writer.h"

#include "sm/program/port_plan.h"

#include <algorithm>

#include "mad/attributes.h"
#include "mad/pkey_table.h"

namespace sm {

void PKeyWriter::start(std::shared_ptr<const Topology> topo, PKeyPlan plan, std::function<void()> done) {
  topo_ = std::move(topo);
  done_ = std::move(done);
  stats_ = {};
  plan_ = std::move(plan);
  for (const auto& [enforcement, what] : plan_.warnings)
    if (warn_log_.allow()) {
      if (enforcement) log_.warn(code::pkey_no_enforcement, "P_Keys: {}", what);
      else log_.warn(code::pkey_over_capacity, "P_Keys: {}", what);
    }
  written_.assign(plan_.targets.size(), 0);
  failed_.assign(plan_.targets.size(), 0);
  sender_.run(
      plan_.ops.size(),
      [this](size_t i) {
        const PKeyPlan::Op& op = plan_.ops[i];
        if (op.kind == PKeyPlan::Op::Kind::read) read_block(op.target, op.block);
        else write_block(op.target, op.block);
      },
      [this] { tables_done(); });
}

void PKeyWriter::tables_done() {
  stats_.ports_written = static_cast<uint64_t>(std::ranges::count(written_, 1));
  enforce_ = plan_enforcement(*topo_, plan_, failed_, model_, memory_);
  sender_.run(enforce_.size(), [this](size_t i) { set_enforcement(enforce_[i]); }, [this] { finish(); });
}

void PKeyWriter::finish() {
  if (fail_log_.suppressed())
    log_.error(code::pkey_failures_suppressed, "P_Keys: {} more failures not logged", fail_log_.suppressed());
  if (warn_log_.suppressed())
    log_.warn(code::pkey_warnings_suppressed, "P_Keys: {} more warnings not logged", warn_log_.suppressed());
  auto d = std::move(done_);
  d();
}

uint32_t PKeyWriter::attr_mod(const PKeyTarget& t, uint16_t block) const {
  return topo_->node(t.node).is_switch() ? mad::pkey_attr_mod(block, t.port) : mad::pkey_attr_mod(block);
}

void PKeyWriter::forget(const PKeyTarget& t) {
  const Guid g = topo_->node(t.node).guid;
  if (NodePKeys* ports = memory_.edit(g)) {
    ports->erase(t.port.value());
    if (ports->empty()) memory_.erase(g);
  }
}

std::set<Guid> PKeyWriter::failed_nodes() const {
  std::set<Guid> out;
  for (uint32_t t = 0; t < failed_.size(); ++t)
    if (failed_[t]) out.insert(topo_->node(plan_.targets[t].node).guid);
  return out;
}

void PKeyWriter::fail(uint32_t t, std::string what) {
  ++stats_.failures;
  failed_[t] = 1;
  if (fail_log_.allow()) log_.error(code::pkey_failed, "P_Keys: {}", what);
}

void PKeyWriter::read_block(uint32_t t, uint16_t block) {
  sender_.begin();
  client_.get(path(plan_.targets[t]), mad::attr::pkey_table, attr_mod(plan_.targets[t], block),
              [this, t, block](mad::Result<mad::Smp> r) {
                ++stats_.blocks_read;
                const PKeyTarget& tg = plan_.targets[t];
                auto table = r ? mad::decode_attr<mad::PKeyTable>(*r)
                               : mad::Result<mad::PKeyTable>(std::unexpected(r.error()));
                if (!table) {
                  write_block(t, block);  // unknown: write it (a Set answers with what the port then holds)
                } else {
                  PKeyPortMemory& m = mem(tg);
                  if (m.table.size() != tg.want.size()) m.table.assign(tg.want.size(), 0);
                  const auto want = pkey_block(tg.want, block);
                  std::copy_n(table->pkeys.begin(), want.size(), m.table.begin() + block * mad::PKeyTable::kEntries);
                  if (!std::ranges::equal(pkey_block(m.table, block), want)) write_block(t, block);
                }
                sender_.end();
              });
}

void PKeyWriter::write_block(uint32_t t, uint16_t block) {
  mad::PKeyTable out;
  const auto blk = pkey_block(plan_.targets[t].want, block);
  std::copy(blk.begin(), blk.end(), out.pkeys.begin());
  sender_.begin();
  client_.set(path(plan_.targets[t]), mad::attr::pkey_table, attr_mod(plan_.targets[t], block), mad::encode_attr(out),
              [this, t, block](mad::Result<mad::Smp> r) {
                const PKeyTarget& tg = plan_.targets[t];
                auto table = r ? mad::decode_attr<mad::PKeyTable>(*r)
                               : mad::Result<mad::PKeyTable>(std::unexpected(r.error()));
                const auto want = pkey_block(tg.want, block);
                if (table && std::equal(want.begin(), want.end(), table->pkeys.begin())) {
                  PKeyPortMemory& m = mem(tg);
                  if (m.table.size() != tg.want.size()) m.table.assign(tg.want.size(), 0);
                  ++stats_.blocks_written;
                  written_[t] = 1;
                  std::copy(want.begin(), want.end(), m.table.begin() + block * mad::PKeyTable::kEntries);
                } else {
                  forget(tg);  // unknown again
                  const Node& n = topo_->node(tg.node);
                  fail(t, fmt::format("P_KeyTable block {} on {} port {} ({}): {}", block, n.guid, tg.port,
                                      n.description, r ? "the port did not keep it" : r.error().message));
                }
                sender_.end();
              });
}

void PKeyWriter::set_enforcement(uint32_t t) {
  const PKeyTarget& target = plan_.targets[t];
  mad::PortInfo want = model_.find(topo_->node(target.node).guid)->ports[target.port.value()].info;
  no_change_codes(want);
  want.client_reregister = false;
  want.partition_enforcement_inbound = want.partition_enforcement_outbound = target.enforce;
  sender_.begin();
  client_.set(path(target), mad::attr::port_info, target.port.value(), mad::encode_attr(want),
              [this, t](mad::Result<mad::Smp> r) {
                const PKeyTarget& tg = plan_.targets[t];
                const Node& n = topo_->node(tg.node);
                auto pi = r ? mad::decode_attr<mad::PortInfo>(*r)
                            : mad::Result<mad::PortInfo>(std::unexpected(r.error()));
                if (!pi) {
                  fail(t, fmt::format("PortInfo Set (partition enforcement) on {} port {} ({}): {}", n.guid, tg.port,
                                      n.description, pi.error().message));
                } else {
                  ++stats_.enforcement_sets;
                  if (const NodeRec* rec = model_.find(n.guid); rec && tg.port.value() < rec->ports.size())
                    model_.edit(n.guid)->ports[tg.port.value()].info = *pi;
                  if (pi->partition_enforcement_inbound != tg.enforce || pi->partition_enforcement_outbound != tg.enforce) {
                    mem(tg).enforcement_kept = false;
                    log_.debug(code::pkey_enforcement_not_kept,
                               "{} port {} does not keep the partition enforcement bits: not sent again", n.guid, tg.port);
                  }
                }
                sender_.end();
              });
}

}  // namespace sm
