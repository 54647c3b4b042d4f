#include "sm/program/lft_plan.h"

#include <algorithm>

namespace sm {

std::array<uint8_t, 64> wanted_block(const routing::RoutingTables& tables, NodeId sw, uint32_t b) {
  std::array<uint8_t, 64> out;
  out.fill(routing::kNoRoute);
  const auto want = tables.lft(sw);
  const size_t from = static_cast<size_t>(b) * 64;
  if (from < want.size())
    std::copy_n(want.begin() + static_cast<ptrdiff_t>(from), std::min<size_t>(64, want.size() - from), out.begin());
  return out;
}

std::array<uint8_t, 64> entries_of(const mad::LinearForwardingTable& t) {
  std::array<uint8_t, 64> out;
  for (size_t i = 0; i < 64; ++i) out[i] = t.ports[i].value();
  return out;
}

mad::LinearForwardingTable lft_attr(const std::array<uint8_t, 64>& entries) {
  mad::LinearForwardingTable t;
  for (size_t i = 0; i < 64; ++i) t.ports[i] = mad::PortNum(entries[i]);
  return t;
}

LftPlan plan_lfts(const Topology& topo, const routing::RoutingTables& tables, const FabricModel& model,
                  const LftMemory& memory, const PortPolicy& policy, bool verify, const mkey::KeyRing* keys) {
  LftPlan plan;
  plan.top = tables.max_lid().value();
  const size_t blocks = static_cast<size_t>(plan.top) / 64 + 1;
  static const SwitchMemory kUnknown;
  for (NodeId sw : topo.switches()) {
    const Node& n = topo.node(sw);
    // A switch that holds a key this SM does not know refuses its Sets: left alone.
    if (keys && keys->refusing(mkey::key_port(topo, sw, 0))) continue;
    const NodeRec& rec = *model.find(n.guid);  // the topology was made from the model
    const mad::SwitchInfo& si = rec.sw;
    const SwitchMemory* held = memory.find(n.guid);
    const SwitchMemory& m = held ? *held : kUnknown;
    const bool remembered = m.lid.is_unicast() && m.lid == rec.ports[0].info.lid &&
                            m.top == si.linear_fdb_top.value() && m.top != 0;
    const bool switch_info = si.linear_fdb_top.value() != plan.top || si.port_state_change ||
                             si.life_time_value != policy.switch_life_time;
    if (switch_info) {
      mad::SwitchInfo want = si;
      want.linear_fdb_top = Lid(plan.top);
      want.life_time_value = policy.switch_life_time;
      want.port_state_change = true;  // writing 1 clears it
      plan.switch_infos.push_back(LftPlan::SwitchInfoSet{sw, want});
    }
    const size_t have = remembered ? m.block_hash.size() : 0;
    if (!remembered || have < blocks || !switch_info)
      plan.memory.push_back(LftPlan::MemoryEdit{sw, std::max(have, blocks), !remembered, !switch_info});
    // Unknown but live: worth reading back first.
    const uint16_t live_top = remembered ? 0 : si.linear_fdb_top.value();
    for (uint32_t b = 0; b < blocks; ++b) {
      const uint64_t known = b < have ? m.block_hash[b] : 0;
      if (known != 0) {
        if (known != lft_block_hash(wanted_block(tables, sw, b))) plan.blocks.push_back({sw, b, false});
        else if (verify) plan.blocks.push_back({sw, b, true, known});
      } else {
        plan.blocks.push_back({sw, b, live_top != 0 && static_cast<size_t>(b) * 64 <= live_top});
      }
    }
  }
  return plan;
}

}  // namespace sm
