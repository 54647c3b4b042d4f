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
    if (fresh && n.sw.lft_top == 0 && !(memory.find(n.guid) && memory.find(n.guid)->blocks.empty()))
      memory.put(n.guid, {});  // new or rebooted: its MFT is empty
    const MftSwitchMemory* mem = memory.find(n.guid);
    const bool known = mem != nullptr;
    const auto& entries = want[sw];
    const uint32_t positions = positions_of(n);
    const uint32_t cap_blocks = (static_cast<uint32_t>(n.sw.mft_cap) + 31) / 32;
    // Blocks to consider: wanted ones, remembered ones (they may have to be cleared), and
    // when unknown the whole range in use.
    std::set<uint32_t> blocks;
    for (const auto& [offset, mask] : entries) blocks.insert(offset / 32u);
    if (known)
      for (const auto& [key, masks] : mem->blocks) blocks.insert(key >> 4);
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
          auto held = mem->blocks.find(key_of(b, pos));
          const MftBlock zero{};
          if ((held == mem->blocks.end() ? zero : held->second) == m) continue;
        }
        plan.writes.push_back(MftPlan::Write{n.guid, n.path, key_of(b, pos), m});
      }
    }
    // MulticastFDBTop, where port 0 says the switch has it.
    const NodeRec* rec = model.find(n.guid);
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
  memory.erase_if([&](Guid g, const MftSwitchMemory&) { return !present.count(g); });
  return plan;
}

void MftWriter::start(MftPlan plan, std::function<void(const MftStats&)> done) {
  plan_ = std::move(plan);
  stats_ = plan_.stats;
  done_ = std::move(done);
  const size_t writes = plan_.writes.size();
  sender_.run(
      writes + plan_.tops.size(),
      [this, writes](size_t i) {
        if (i < writes) write(plan_.writes[i]);
        else set_top(plan_.tops[i - writes]);
      },
      [this] {
        auto d = std::move(done_);
        done_ = nullptr;
        if (d) d(stats_);
      });
}

void MftWriter::write(const MftPlan::Write& w) {
  mad::MulticastForwardingTable t;
  t.port_masks = w.masks;
  const uint32_t mod = mad::mft_attr_mod(static_cast<uint16_t>(w.key >> 4), static_cast<uint8_t>(w.key & 0xF));
  sender_.begin();
  client_.set(w.path, mad::attr::multicast_fwd_table, mod, mad::encode_attr(t),
              [this, guid = w.guid, key = w.key, masks = w.masks](mad::Result<mad::Smp> r) {
                if (r) {
                  ++stats_.blocks_written;
                  const MftBlock zero{};
                  auto& held = memory_.edit_or_add(guid).blocks;
                  if (masks == zero) held.erase(key);
                  else held[key] = masks;
                } else {
                  ++stats_.failures;
                  stats_.failed.insert(guid);
                  memory_.erase(guid);  // unknown now: the next plan writes it all
                  log_.error(code::mft_block_failed, "multicast: MFT block {} position {} on {}: {}", key >> 4,
                             key & 0xF, guid, r.error().message);
                }
                sender_.end();
              });
}

void MftWriter::set_top(const MftPlan::TopSet& s) {
  sender_.begin();
  client_.set(s.path, mad::attr::switch_info, 0, mad::encode_attr(s.si), [this, guid = s.guid](mad::Result<mad::Smp> r) {
    if (r) {
      ++stats_.top_sets;
      if (auto si = mad::decode_attr<mad::SwitchInfo>(*r))
        if (auto* n = model_.edit(guid)) n->sw = *si;
    } else {
      ++stats_.failures;
      stats_.failed.insert(guid);
      log_.error(code::mft_top_failed, "multicast: SwitchInfo (MulticastFDBTop) on {}: {}", guid, r.error().message);
    }
    sender_.end();
  });
}

}  // namespace sm::multicast
