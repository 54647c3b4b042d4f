#include "sm/multicast/mft.h"

#include <algorithm>
#include <set>

#include "mad/attributes.h"
#include "mad/multicast_forwarding_table.h"
#include "sm/multicast/tree.h"

namespace sm::multicast {

namespace {

constexpr uint32_t key_of(uint32_t block, uint32_t position) { return block << 4 | position; }

// Positions a switch has: ports 0..num_ports, 16 a position.
uint32_t positions_of(const Node& n) { return (static_cast<uint32_t>(n.num_ports) + 16) / 16; }

}  // namespace

MftPlan plan_mfts(const Topology& topo, const FabricModel& model, const Registry& groups, MftMemory& memory,
                  TreeCache& trees, bool fresh, Logger& log) {
  MftPlan plan;
  MftStats& st = plan.stats;
  // Wanted masks: switch -> MLID offset -> ports.
  std::map<NodeId, std::map<uint16_t, PortMask>> want;
  RateLimit cap_log(5);
  trees.keep_only(groups);
  for (const auto& [mgid, g] : groups.groups()) {
    const GroupTree& tree = trees.get(topo, g);
    st.members_missing += tree.members_missing;
    if (tree.switches.empty()) continue;
    ++st.groups;
    const uint16_t offset = static_cast<uint16_t>(g.mlid.value() - kMlidFirst);
    for (const auto& [sw, mask] : tree.switches) {
      if (offset >= topo.node(sw).sw.mft_cap) {
        ++st.over_cap;
        if (cap_log.allow())
          log.warn(code::mlid_over_cap, "multicast: group {} (MLID 0x{:04x}) not programmed on switch {} ({}): MulticastFDBCap {}",
                   mgid.str(), g.mlid.value(), topo.node(sw).guid, topo.node(sw).description,
                   topo.node(sw).sw.mft_cap);
        continue;
      }
      ++st.tree_switches;
      want[sw][offset] = mask;
    }
  }
  // The blocks in use anywhere: a switch whose table is unknown gets all of them.
  uint32_t blocks_in_use = 0;
  for (const auto& [sw, entries] : want)
    if (!entries.empty()) blocks_in_use = std::max<uint32_t>(blocks_in_use, entries.rbegin()->first / 32u + 1);

  std::set<Guid> present;
  for (NodeId sw : topo.switches()) {
    const Node& n = topo.node(sw);
    present.insert(n.guid);
    if (fresh && n.sw.lft_top == 0) memory[n.guid] = {};  // new or rebooted: its MFT is empty
    auto mem = memory.find(n.guid);
    const bool known = mem != memory.end();
    const auto& entries = want[sw];
    const uint32_t positions = positions_of(n);
    const uint32_t cap_blocks = (static_cast<uint32_t>(n.sw.mft_cap) + 31) / 32;
    // Blocks to consider: wanted ones, remembered ones (they may have to be cleared), and
    // when unknown the whole range in use.
    std::set<uint32_t> blocks;
    for (const auto& [offset, mask] : entries) blocks.insert(offset / 32u);
    if (known)
      for (const auto& [key, masks] : mem->second.blocks) blocks.insert(key >> 4);
    else
      for (uint32_t b = 0; b < std::min(blocks_in_use, cap_blocks); ++b) blocks.insert(b);
    for (uint32_t b : blocks) {
      for (uint32_t pos = 0; pos < positions; ++pos) {
        MftBlock m{};
        for (uint32_t i = 0; i < 32; ++i) {
          auto it = entries.find(static_cast<uint16_t>(b * 32 + i));
          if (it == entries.end()) continue;
          m[i] = static_cast<uint16_t>(((it->second >> (16 * pos)) & PortMask(0xFFFF)).to_ulong());
        }
        if (known) {
          auto held = mem->second.blocks.find(key_of(b, pos));
          const MftBlock zero{};
          if ((held == mem->second.blocks.end() ? zero : held->second) == m) continue;
        }
        plan.writes.push_back(MftPlan::Write{n.guid, n.path, key_of(b, pos), m});
      }
    }
    // MulticastFDBTop, where port 0 says the switch has it.
    const FabricModel::NodeRec* rec = model.find(n.guid);
    if (rec && !rec->ports.empty() && rec->ports[0].have_info &&
        rec->ports[0].info.has_cap(mad::port_cap::is_multicast_fdb_top_supported)) {
      const uint16_t top = entries.empty() ? uint16_t{kMlidFirst - 1}
                                           : static_cast<uint16_t>(kMlidFirst + (entries.rbegin()->first / 32u + 1) * 32u - 1);
      if (rec->sw.multicast_fdb_top.value() != top) {
        mad::SwitchInfo si = rec->sw;
        si.multicast_fdb_top = mad::Lid(top);
        si.port_state_change = false;  // writing 0 leaves it alone
        plan.tops.push_back(MftPlan::TopSet{n.guid, n.path, si});
      }
    }
  }
  for (auto it = memory.begin(); it != memory.end();)
    it = present.count(it->first) ? std::next(it) : memory.erase(it);
  return plan;
}

void MftWriter::start(MftPlan plan, std::function<void(const MftStats&)> done) {
  stats_ = plan.stats;
  done_ = std::move(done);
  ++pending_;  // held until everything is submitted
  for (MftPlan::Write& w : plan.writes) {
    mad::MulticastForwardingTable t;
    t.port_masks = w.masks;
    const uint32_t mod = mad::mft_attr_mod(static_cast<uint16_t>(w.key >> 4), static_cast<uint8_t>(w.key & 0xF));
    ++pending_;
    client_.set(w.path, mad::attr::multicast_fwd_table, mod, mad::encode_attr(t),
                [this, guid = w.guid, key = w.key, masks = w.masks](mad::Result<mad::Smp> r) {
                  if (r) {
                    ++stats_.blocks_written;
                    const MftBlock zero{};
                    auto& held = memory_[guid].blocks;
                    if (masks == zero) held.erase(key);
                    else held[key] = masks;
                  } else {
                    ++stats_.failures;
                    memory_.erase(guid);  // unknown now: the next plan writes it all
                    log_.error(code::mft_block_failed, "multicast: MFT block {} position {} on {}: {}", key >> 4, key & 0xF, guid,
                               r.error().message);
                  }
                  end();
                });
  }
  for (MftPlan::TopSet& s : plan.tops) {
    ++pending_;
    client_.set(s.path, mad::attr::switch_info, 0, mad::encode_attr(s.si),
                [this, guid = s.guid](mad::Result<mad::Smp> r) {
                  if (r) {
                    ++stats_.top_sets;
                    if (auto si = mad::decode_attr<mad::SwitchInfo>(*r))
                      if (auto* n = model_.find(guid)) n->sw = *si;
                  } else {
                    ++stats_.failures;
                    log_.error(code::mft_top_failed, "multicast: SwitchInfo (MulticastFDBTop) on {}: {}", guid, r.error().message);
                  }
                  end();
                });
  }
  end();
}

void MftWriter::end() {
  if (--pending_ != 0) return;
  auto d = std::move(done_);
  done_ = nullptr;
  if (d) d(stats_);
}

}  // namespace sm::multicast
