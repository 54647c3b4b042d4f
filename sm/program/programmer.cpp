#include "sm/program/programmer.h"

#include <algorithm>

#include "mad/attributes.h"

namespace sm {

namespace {
constexpr int kAttempts = 3;  // per port Set, on top of the transaction layer's own resends
}  // namespace

ProgramPlans plan_programming(const Topology& topo, const routing::RoutingTables& tables, const FabricModel& model,
                              const LftMemory& memory, Lid sm_lid, const PortPolicy& policy, bool verify,
                              const mkey::KeyRing* keys) {
  return ProgramPlans{plan_lfts(topo, tables, model, memory, policy, verify, keys),
                      plan_ports(topo, model, sm_lid, policy, keys, &tables)};
}

void Programmer::start(std::shared_ptr<const Topology> topo, std::shared_ptr<const routing::RoutingTables> tables,
                       ProgramPlans plans, std::function<void()> done) {
  topo_ = std::move(topo);
  tables_ = std::move(tables);
  done_ = std::move(done);
  stats_ = {};
  tampered_.clear();
  lfts_ = std::move(plans.lfts);
  ports_ = std::move(plans.ports);
  // Only what changes is edited: a record the published subnet shares is copied on its first
  // edit (an LFT's hashes: 3,645 switches' copied for nothing cost 30 ms at 43k nodes).
  for (const LftPlan::MemoryEdit& e : lfts_.memory) {
    const SwitchMemory* now = memory_.find(topo_->node(e.sw).guid);
    if (now && !e.forget && now->block_hash.size() >= e.blocks && (!e.top_known || now->top == lfts_.top)) continue;
    SwitchMemory& m = memory_of(e.sw);
    if (e.forget) m.block_hash.assign(e.blocks, 0);
    else if (m.block_hash.size() < e.blocks) m.block_hash.resize(e.blocks, 0);
    if (e.top_known) m.top = lfts_.top;
  }
  for (const auto& [sw, lid] : ports_.switch_lids) {
    const SwitchMemory* now = memory_.find(topo_->node(sw).guid);
    if (!now || now->lid != lid) memory_of(sw).lid = lid;
  }
  stage1();
}

Programmer::Progress Programmer::progress() const {
  const size_t settled = sender_.issued() - std::min(sender_.issued(), sender_.in_flight());
  return Progress{stage_, settled, sender_.planned()};
}

void Programmer::stage1() {
  stage_ = 1;
  const size_t infos = lfts_.switch_infos.size(), blocks = lfts_.blocks.size();
  sender_.run(
      infos + blocks + ports_.configure.size(),
      [this, infos, blocks](size_t i) {
        if (i < infos) return set_switch_info(lfts_.switch_infos[i]);
        if (i < infos + blocks) {
          const LftPlan::Block& b = lfts_.blocks[i - infos];
          return b.read_first ? read_back(b.sw, b.block, b.expect) : write_block(b.sw, b.block);
        }
        set_port(ports_.configure[i - infos - blocks], 0);
      },
      [this] { stage2(); });
}

void Programmer::stage2() {
  stage_ = 2;
  sender_.run(ports_.activate.size(), [this](size_t i) { activate_port(ports_.activate[i], 0); },
              [this] { finish(); });
}

void Programmer::finish() {
  stage_ = 3;
  if (fail_log_.suppressed())
    log_.error(code::program_failures_suppressed, "programming: {} more failures not logged", fail_log_.suppressed());
  auto d = std::move(done_);
  d();
}

void Programmer::remember_block(NodeId sw, uint32_t block, uint64_t hash) {
  std::vector<uint64_t>& h = memory_of(sw).block_hash;
  if (h.size() <= block) h.resize(block + 1, 0);
  h[block] = hash;
}

void Programmer::fail(Guid node, std::string what) {
  ++stats_.failures;
  failed_.insert(node);
  if (fail_log_.allow()) log_.error(code::program_failed, "programming: {}", what);
}

void Programmer::record_port(NodeId node, PortNum port, const mad::Smp& answer, const mad::PortInfo* sent) {
  auto pi = mad::decode_attr<mad::PortInfo>(answer);
  const Guid g = topo_->node(node).guid;
  const NodeRec* held = model_.find(g);
  if (!pi || !held || port.value() >= held->ports.size()) return;
  PortRec& rec = model_.edit(g)->ports[port.value()];
  rec.info = *pi;
  rec.have_info = true;
  if (sent) {
    const uint32_t not_taken = differing_fields(*sent, *pi) & ~port_field::must_take;
    if (not_taken & ~rec.ignored)
      log_.debug(code::port_ignores_fields, "{}[{}] does not keep PortInfo fields 0x{:03x}: not compared again", g,
                 port, not_taken);
    rec.ignored |= not_taken;
  }
}

void Programmer::set_switch_info(const LftPlan::SwitchInfoSet& s) {
  const NodeId sw = s.sw;
  const uint16_t top = lfts_.top;
  sender_.begin();
  client_.set(topo_->node(sw).path, mad::attr::switch_info, 0, mad::encode_attr(s.want),
              [this, sw, top](mad::Result<mad::Smp> r) {
                const Node& n = topo_->node(sw);
                if (r) {
                  ++stats_.switch_info_sets;
                  memory_of(sw).top = top;
                  if (auto si = mad::decode_attr<mad::SwitchInfo>(*r))
                    if (auto* rec = model_.edit(n.guid)) rec->sw = *si;
                } else {
                  fail(n.guid, fmt::format("SwitchInfo Set on {} ({}): {}", n.guid, n.description, r.error().message));
                }
                sender_.end();
              });
}

void Programmer::read_back(NodeId sw, uint32_t block, uint64_t expect) {
  sender_.begin();
  client_.get(topo_->node(sw).path, mad::attr::linear_fwd_table, block, [this, sw, block, expect](mad::Result<mad::Smp> r) {
    ++stats_.lft_blocks_read;
    bool same = false;
    if (r) {
      if (auto t = mad::decode_attr<mad::LinearForwardingTable>(*r)) {
        const auto held = entries_of(*t);
        const uint64_t hash = lft_block_hash(held);
        remember_block(sw, block, hash);
        same = held == wanted_block(*tables_, sw, block);
        if (expect != 0 && hash != expect) {
          ++stats_.lft_blocks_tampered;
          tampered_[topo_->node(sw).guid].push_back(block);
        }
      }
    }
    if (!same) write_block(sw, block);
    sender_.end();
  });
}

void Programmer::write_block(NodeId sw, uint32_t block) {
  const auto want = wanted_block(*tables_, sw, block);
  sender_.begin();
  client_.set(topo_->node(sw).path, mad::attr::linear_fwd_table, block, mad::encode_attr(lft_attr(want)),
              [this, sw, block, hash = lft_block_hash(want)](mad::Result<mad::Smp> r) {
                if (r) {
                  ++stats_.lft_blocks_written;
                  remember_block(sw, block, hash);
                } else {
                  remember_block(sw, block, 0);
                  const Node& n = topo_->node(sw);
                  fail(n.guid, fmt::format("LFT block {} on {} ({}): {}", block, n.guid, n.description, r.error().message));
                }
                sender_.end();
              });
}

void Programmer::set_port(size_t j, int attempt) {
  const PortJob& job = ports_.jobs[j];
  const mad::DrPath path = topo_->path_to_port(job.node, job.port);
  sender_.begin();
  client_.set_once(path, mad::attr::port_info, job.port.value(), mad::encode_attr(job.want),
                   [this, j, attempt, path](mad::Result<mad::Smp> r) {
                     PortJob& jb = ports_.jobs[j];
                     const Node& n = topo_->node(jb.node);
                     if (r) {
                       ++stats_.port_sets;
                       record_port(jb.node, jb.port, *r, &jb.want);
                       if (jb.want.client_reregister) ++stats_.client_reregisters;
                       if (n.is_switch() && jb.port.value() == 0) memory_of(jb.node).lid = jb.want.lid;
                     } else if (attempt + 1 < kAttempts) {
                       // The Set may have landed and only its answer been lost: a resend of the
                       // Armed step would then be refused, so look before sending again.
                       sender_.begin();
                       client_.get(path, mad::attr::port_info, jb.port.value(), [this, j, attempt](mad::Result<mad::Smp> g) {
                         const PortJob& k = ports_.jobs[j];
                         auto pi = g ? mad::decode_attr<mad::PortInfo>(*g)
                                     : mad::Result<mad::PortInfo>(std::unexpected(g.error()));
                         // A switch's external ports have no LID of their own (the field is
                         // not theirs to keep): only the state tells there.
                         const bool addressable = !topo_->node(k.node).is_switch() || k.port.value() == 0;
                         const bool landed = pi && (!addressable || pi->lid == k.want.lid) &&
                                             (k.want.port_state != PortState::armed || pi->port_state >= PortState::armed);
                         if (landed) {
                           ++stats_.port_sets;
                           record_port(k.node, k.port, *g, nullptr);
                         } else {
                           set_port(j, attempt + 1);
                         }
                         sender_.end();
                       });
                     } else {
                       jb.activate = false;
                       fail(n.guid, fmt::format("PortInfo Set on {}[{}] ({}): {}", n.guid, jb.port, n.description,
                                        r.error().message));
                     }
                     sender_.end();
                   });
}

void Programmer::activate_port(size_t j, int attempt) {
  const PortJob& job = ports_.jobs[j];
  const mad::DrPath path = topo_->path_to_port(job.node, job.port);
  mad::PortInfo want = job.want;
  want.port_state = PortState::active;
  want.client_reregister = false;
  sender_.begin();
  client_.set_once(path, mad::attr::port_info, job.port.value(), mad::encode_attr(want),
                   [this, j, attempt, path](mad::Result<mad::Smp> r) {
                     const PortJob& jb = ports_.jobs[j];
                     const Node& n = topo_->node(jb.node);
                     if (r) {
                       ++stats_.activations;
                       record_port(jb.node, jb.port, *r, nullptr);
                     } else if (attempt + 1 < kAttempts) {
                       sender_.begin();
                       client_.get(path, mad::attr::port_info, jb.port.value(), [this, j, attempt](mad::Result<mad::Smp> g) {
                         auto pi = g ? mad::decode_attr<mad::PortInfo>(*g)
                                     : mad::Result<mad::PortInfo>(std::unexpected(g.error()));
                         if (pi && pi->port_state == PortState::active) {
                           ++stats_.activations;
                           record_port(ports_.jobs[j].node, ports_.jobs[j].port, *g, nullptr);
                         } else {
                           activate_port(j, attempt + 1);
                         }
                         sender_.end();
                       });
                     } else {
                       fail(n.guid, fmt::format("activating {}[{}] ({}): {}", n.guid, jb.port, n.description, r.error().message));
                     }
                     sender_.end();
                   });
}

}  // namespace sm
