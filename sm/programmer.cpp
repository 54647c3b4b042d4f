#include "sm/programmer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstring>

namespace sm {

namespace {
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
constexpr int kAttempts = 3;  // per Set, on top of the transaction layer's own resends

// The PortInfo fields the SM sets and compares, one bit each in PortRec::ignored.
enum Field : uint32_t {
  f_lid = 1 << 0, f_lmc = 1 << 1, f_sm_lid = 1 << 2, f_sm_sl = 1 << 3, f_subnet_timeout = 1 << 4,
  f_m_key = 1 << 5, f_m_key_lease = 1 << 6, f_neighbor_mtu = 1 << 7, f_op_vls = 1 << 8,
  f_hoq_life = 1 << 9, f_vl_stall = 1 << 10,
};

// The fields where a and b differ.
uint32_t differing(const mad::PortInfo& a, const mad::PortInfo& b) {
  uint32_t d = 0;
  if (a.lid != b.lid) d |= f_lid;
  if (a.lmc != b.lmc) d |= f_lmc;
  if (a.master_sm_lid != b.master_sm_lid) d |= f_sm_lid;
  if (a.master_sm_sl != b.master_sm_sl) d |= f_sm_sl;
  if (a.subnet_timeout != b.subnet_timeout) d |= f_subnet_timeout;
  if (a.m_key != b.m_key) d |= f_m_key;
  if (a.m_key_lease_period != b.m_key_lease_period) d |= f_m_key_lease;
  if (a.neighbor_mtu != b.neighbor_mtu) d |= f_neighbor_mtu;
  if (a.operational_vls != b.operational_vls) d |= f_op_vls;
  if (a.hoq_life != b.hoq_life) d |= f_hoq_life;
  if (a.vl_stall_count != b.vl_stall_count) d |= f_vl_stall;
  return d;
}
// Addressing must take: a port that will not hold its LID or SM LID is a failure, not a quirk.
constexpr uint32_t kMustTake = f_lid | f_lmc | f_sm_lid;

}  // namespace

uint64_t lft_block_hash(std::span<const uint8_t, 64> e) {
  // Eight 64-bit words mixed by multiply-xorshift (no need for cryptographic strength: the
  // only adversary is chance, and 2^-64 per compared block is far below a bit flip). Words
  // are little-endian whatever the host, since the store keeps these hashes.
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t w = 0; w < 8; ++w) {
    uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(&v, e.data() + w * 8, 8);
    else
      for (size_t i = 0; i < 8; ++i) v |= static_cast<uint64_t>(e[w * 8 + i]) << (8 * i);
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h | 1;
}

const FabricModel::NodeRec& Programmer::record(NodeId id) const {
  return *records_[id];
}

void Programmer::record_port(NodeId node, PortNum port, const mad::Smp& answer, const mad::PortInfo* sent) {
  auto pi = mad::decode_attr<mad::PortInfo>(answer);
  FabricModel::NodeRec* n = model_.find(topo_->node(node).guid);
  if (!pi || !n || port.value() >= n->ports.size()) return;
  FabricModel::PortRec& rec = n->ports[port.value()];
  rec.info = *pi;
  rec.have_info = true;
  if (sent) {
    const uint32_t not_taken = differing(*sent, *pi) & ~kMustTake;
    if (not_taken & ~rec.ignored)
      log_.debug(code::port_ignores_fields, "{}[{}] does not keep PortInfo fields 0x{:03x}: not compared again", n->info.node_guid,
                 port, not_taken);
    rec.ignored |= not_taken;
  }
}

void Programmer::fail(std::string what) {
  ++stats_.failures;
  if (fail_log_.allow()) log_.error(code::program_failed, "programming: {}", what);
}

void Programmer::pump() {
  const auto& tx = client_.transactions();
  while (next_ < work_.size() && tx.queued() == 0 &&
         tx.outstanding() < static_cast<size_t>(tx.config().window))
    issue(work_[next_++]);
}

void Programmer::issue(const Work& w) {
  switch (w.kind) {
    case Work::Kind::switch_info: set_switch_info(w.id); break;
    case Work::Kind::lft_write: write_block(w.id, w.block); break;
    case Work::Kind::lft_read: read_back(w.id, w.block); break;
    case Work::Kind::port_set: set_port(w.id, 0); break;
    case Work::Kind::activate: activate_port(w.id, 0); break;
  }
}

void Programmer::end() {
  --pending_;
  pump();
  if (pending_ != 0 || next_ < work_.size()) return;
  if (stage_ == 1) {
    stats_.stage1_ms = static_cast<double>(now_ns() - stage_start_ns_) / 1e6;
    stage_ = 2;
    stage_start_ns_ = now_ns();
    work_.clear();
    next_ = 0;
    for (size_t i = 0; i < jobs_.size(); ++i)
      if (jobs_[i].activate) work_.push_back(Work{Work::Kind::activate, static_cast<uint32_t>(i), 0});
    begin();
    end();
    return;
  }
  if (stage_ == 2) {
    stats_.stage2_ms = static_cast<double>(now_ns() - stage_start_ns_) / 1e6;
    stage_ = 3;
    if (fail_log_.suppressed())
      log_.error(code::program_failures_suppressed, "programming: {} more failures not logged", fail_log_.suppressed());
    auto d = std::move(done_);
    d();
  }
}

void Programmer::start(const Topology& topo, const routing::RoutingTables& tables, Lid sm_lid,
                       const PortPolicy& policy, std::function<void()> done) {
  topo_ = &topo;
  tables_ = &tables;
  sm_lid_ = sm_lid;
  policy_ = policy;
  done_ = std::move(done);
  stats_ = {};
  // Looked up once: planning reads a node's record for each of its ports and their peers.
  records_.resize(topo.node_count());
  for (NodeId id = 0; id < topo.node_count(); ++id)
    records_[id] = model_.find(topo.node(id).guid);  // the topology was made from the model
  stage_ = 1;
  stage_start_ns_ = now_ns();
  work_.clear();
  next_ = 0;
  for (NodeId sw : topo.switches()) plan_switch(sw);
  plan_ports();
  for (size_t i = 0; i < jobs_.size(); ++i)
    if (jobs_[i].configure) work_.push_back(Work{Work::Kind::port_set, static_cast<uint32_t>(i), 0});
  begin();
  end();
}

// The 64 entries of LFT block `b` as routing wants them (kNoRoute past the table's end).
std::array<uint8_t, 64> Programmer::wanted_block(NodeId sw, uint32_t b) const {
  std::array<uint8_t, 64> out;
  out.fill(routing::kNoRoute);
  const auto want = tables_->lft(sw);
  const size_t from = static_cast<size_t>(b) * 64;
  if (from < want.size()) std::copy_n(want.begin() + static_cast<ptrdiff_t>(from), std::min<size_t>(64, want.size() - from), out.begin());
  return out;
}

void Programmer::plan_switch(NodeId sw) {
  const Node& n = topo_->node(sw);
  const FabricModel::NodeRec& rec = record(sw);
  const mad::SwitchInfo& si = rec.sw;
  const Lid read_lid = rec.ports[0].info.lid;
  const uint16_t top = tables_->max_lid().value();
  SwitchMemory& m = memory_[n.guid];
  const bool remembered = m.lid.is_unicast() && m.lid == read_lid &&
                          m.top == si.linear_fdb_top.value() && m.top != 0;
  const size_t blocks = static_cast<size_t>(top) / 64 + 1;
  if (!remembered) m.block_hash.assign(blocks, 0);
  else if (m.block_hash.size() < blocks) m.block_hash.resize(blocks, 0);
  // A switch whose table is unknown but live (LinearFDBTop > 0: another SM, or this one
  // before a restart) is read back first, so that blocks already right are not rewritten.
  const uint16_t live_top = remembered ? 0 : si.linear_fdb_top.value();
  if (si.linear_fdb_top.value() != top || si.port_state_change ||
      si.life_time_value != policy_.switch_life_time) {
    work_.push_back(Work{Work::Kind::switch_info, sw, 0});
  } else {
    m.top = top;
  }
  for (uint32_t b = 0; b < blocks; ++b) {
    if (m.block_hash[b] != 0) {
      if (m.block_hash[b] != lft_block_hash(wanted_block(sw, b)))
        work_.push_back(Work{Work::Kind::lft_write, sw, b});
    } else if (live_top != 0 && static_cast<size_t>(b) * 64 <= live_top) {
      work_.push_back(Work{Work::Kind::lft_read, sw, b});
    } else {
      work_.push_back(Work{Work::Kind::lft_write, sw, b});
    }
  }
}

void Programmer::set_switch_info(NodeId sw) {
  const uint16_t top = tables_->max_lid().value();
  mad::SwitchInfo want = record(sw).sw;
  want.linear_fdb_top = Lid(top);
  want.life_time_value = policy_.switch_life_time;
  want.port_state_change = true;  // writing 1 clears it
  begin();
  client_.set(topo_->node(sw).path, mad::attr::switch_info, 0, mad::encode_attr(want),
              [this, sw, top](mad::Result<mad::Smp> r) {
                if (r) {
                  ++stats_.switch_info_sets;
                  memory_[topo_->node(sw).guid].top = top;
                  if (auto si = mad::decode_attr<mad::SwitchInfo>(*r))
                    if (auto* n = model_.find(topo_->node(sw).guid)) n->sw = *si;
                } else {
                  fail(fmt::format("SwitchInfo Set on {} ({}): {}", topo_->node(sw).guid,
                                   topo_->node(sw).description, r.error().message));
                }
                end();
              });
}

void Programmer::read_back(NodeId sw, uint32_t block) {
  begin();
  client_.get(topo_->node(sw).path, mad::attr::linear_fwd_table, block,
              [this, sw, block](mad::Result<mad::Smp> r) {
                ++stats_.lft_blocks_read;
                const auto want = wanted_block(sw, block);
                bool same = false;
                if (r) {
                  if (auto t = mad::decode_attr<mad::LinearForwardingTable>(*r)) {
                    std::array<uint8_t, 64> held;
                    for (size_t i = 0; i < 64; ++i) held[i] = t->ports[i].value();
                    memory_[topo_->node(sw).guid].block_hash[block] = lft_block_hash(held);
                    same = held == want;
                  }
                }
                if (!same) write_block(sw, block);
                end();
              });
}

void Programmer::write_block(NodeId sw, uint32_t block) {
  const auto want = wanted_block(sw, block);
  mad::LinearForwardingTable t;
  for (size_t i = 0; i < 64; ++i) t.ports[i] = mad::PortNum(want[i]);
  begin();
  client_.set(topo_->node(sw).path, mad::attr::linear_fwd_table, block, mad::encode_attr(t),
              [this, sw, block, hash = lft_block_hash(want)](mad::Result<mad::Smp> r) {
                SwitchMemory& m = memory_[topo_->node(sw).guid];
                if (r) {
                  ++stats_.lft_blocks_written;
                  m.block_hash[block] = hash;
                } else {
                  m.block_hash[block] = 0;
                  fail(fmt::format("LFT block {} on {} ({}): {}", block, topo_->node(sw).guid,
                                   topo_->node(sw).description, r.error().message));
                }
                end();
              });
}

void Programmer::plan_ports() {
  jobs_.clear();
  for (NodeId id = 0; id < topo_->node_count(); ++id) {
    const Node& n = topo_->node(id);
    const FabricModel::NodeRec& rec = record(id);
    for (const Port& p : topo_->ports(id)) {
      const uint8_t pn = p.num.value();
      if (!n.is_switch() && (pn == 0 || p.guid.is_zero())) continue;  // not seen
      const mad::PortInfo& read = rec.ports[pn].info;
      const bool addressable = !n.is_switch() || pn == 0;
      if (!addressable && !p.linked()) continue;
      PortJob job{id, p.num, read, false, false};
      mad::PortInfo& want = job.want;
      if (addressable && p.lid.is_unicast()) {
        want.lid = p.lid;
        want.lmc = p.lmc;
        want.master_sm_lid = sm_lid_;
        want.master_sm_sl = policy_.sm_sl;
        want.subnet_timeout = policy_.subnet_timeout;
        want.m_key = policy_.m_key;
        want.m_key_lease_period = policy_.m_key_lease;
        // Clients registered with an SM must do so again when their port's SM or LID
        // changed under them; a port that was not Active has nobody registered yet.
        want.client_reregister =
            !n.is_switch() && read.port_state == PortState::active &&
            read.has_cap(mad::port_cap::is_client_reregistration_supported) &&
            (read.master_sm_lid != sm_lid_ || read.lid != p.lid);
      }
      if (p.linked()) {
        const mad::PortInfo& peer = record(p.peer).ports[p.peer_port.value()].info;
        if (read.mtu_cap && peer.mtu_cap) want.neighbor_mtu = std::min(read.mtu_cap, peer.mtu_cap);
        if (read.vl_cap && peer.vl_cap)
          want.operational_vls = std::min({read.vl_cap, peer.vl_cap, policy_.max_op_vls});
        if (n.is_switch()) {
          want.hoq_life = topo_->node(p.peer).is_switch() ? policy_.hoq_life : policy_.leaf_hoq_life;
          want.vl_stall_count = policy_.vl_stall;
        }
        if (read.port_state == PortState::init) {
          want.port_state = PortState::armed;
          job.activate = true;
        } else if (read.port_state == PortState::armed) {
          job.activate = true;
        }
      }
      if (want.port_state != PortState::armed) want.port_state = PortState::no_change;
      want.phys_state = mad::PhysState::no_change;
      want.link_width_enabled = 0;  // 0: no change
      want.link_speed_enabled = 0;
      want.link_speed_ext_enabled = 0;
      want.link_down_default_state = 0;
      // Compare with what is there: nothing to send when only the "no change" codes differ.
      mad::PortInfo as_read = read;
      as_read.port_state = PortState::no_change;
      as_read.phys_state = mad::PhysState::no_change;
      as_read.link_width_enabled = 0;
      as_read.link_speed_enabled = 0;
      as_read.link_speed_ext_enabled = 0;
      as_read.link_down_default_state = 0;
      job.configure = (differing(as_read, want) & ~rec.ports[pn].ignored) != 0 ||
                      want.port_state == PortState::armed || want.client_reregister;
      if (!job.configure && n.is_switch() && pn == 0) memory_[n.guid].lid = read.lid;
      if (job.configure || job.activate) jobs_.push_back(job);
    }
  }
}

void Programmer::set_port(size_t j, int attempt) {
  const mad::DrPath path = topo_->path_to_port(jobs_[j].node, jobs_[j].port);
  begin();
  client_.set_once(path, mad::attr::port_info, jobs_[j].port.value(), mad::encode_attr(jobs_[j].want),
              [this, j, attempt, path](mad::Result<mad::Smp> r) {
                PortJob& job = jobs_[j];
                const Node& n = topo_->node(job.node);
                if (r) {
                  ++stats_.port_sets;
                  record_port(job.node, job.port, *r, &job.want);
                  if (job.want.client_reregister) ++stats_.client_reregisters;
                  if (n.is_switch() && job.port.value() == 0) memory_[n.guid].lid = job.want.lid;
                } else if (attempt + 1 < kAttempts) {
                  // The Set may have landed and only its answer been lost: a resend of the
                  // Armed step would then be refused, so look before sending again.
                  begin();
                  client_.get(path, mad::attr::port_info, job.port.value(),
                              [this, j, attempt](mad::Result<mad::Smp> g) {
                                PortJob& jb = jobs_[j];
                                auto pi = g ? mad::decode_attr<mad::PortInfo>(*g)
                                            : mad::Result<mad::PortInfo>(std::unexpected(g.error()));
                                const bool landed = pi && pi->lid == jb.want.lid &&
                                                    (jb.want.port_state != PortState::armed ||
                                                     pi->port_state >= PortState::armed);
                                if (landed) {
                                  ++stats_.port_sets;
                                  record_port(jb.node, jb.port, *g, nullptr);
                                } else {
                                  set_port(j, attempt + 1);
                                }
                                end();
                              });
                } else {
                  job.activate = false;
                  fail(fmt::format("PortInfo Set on {}[{}] ({}): {}", n.guid, job.port, n.description,
                                   r.error().message));
                }
                end();
              });
}

void Programmer::activate_port(size_t j, int attempt) {
  const mad::DrPath path = topo_->path_to_port(jobs_[j].node, jobs_[j].port);
  mad::PortInfo want = jobs_[j].want;
  want.port_state = PortState::active;
  want.client_reregister = false;
  begin();
  client_.set_once(path, mad::attr::port_info, jobs_[j].port.value(), mad::encode_attr(want),
              [this, j, attempt, path](mad::Result<mad::Smp> r) {
                const PortJob& job = jobs_[j];
                const Node& n = topo_->node(job.node);
                if (r) {
                  ++stats_.activations;
                  record_port(job.node, job.port, *r, nullptr);
                } else if (attempt + 1 < kAttempts) {
                  begin();
                  client_.get(path, mad::attr::port_info, job.port.value(),
                              [this, j, attempt](mad::Result<mad::Smp> g) {
                                auto pi = g ? mad::decode_attr<mad::PortInfo>(*g)
                                            : mad::Result<mad::PortInfo>(std::unexpected(g.error()));
                                if (pi && pi->port_state == PortState::active) {
                                  ++stats_.activations;
                                  record_port(jobs_[j].node, jobs_[j].port, *g, nullptr);
                                } else {
                                  activate_port(j, attempt + 1);
                                }
                                end();
                              });
                } else {
                  fail(fmt::format("activating {}[{}] ({}): {}", n.guid, job.port, n.description,
                                   r.error().message));
                }
                end();
              });
}

}  // namespace sm
