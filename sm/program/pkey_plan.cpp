#include "sm/program/pkey_plan.h"

#include <algorithm>

#include "mad/pkey_table.h"
#include "sm/partitions/membership.h"

namespace sm {

namespace {
constexpr size_t kBlock = mad::PKeyTable::kEntries;

const PKeyPortMemory* held(const PKeyMemory& memory, Guid node, PortNum port) {
  const NodePKeys* n = memory.find(node);
  if (!n) return nullptr;
  auto it = n->find(port.value());
  return it == n->end() ? nullptr : &it->second;
}

void add_target(PKeyPlan& plan, const Topology& topo, const PKeyMemory& memory, PKeyTarget t) {
  const uint32_t id = static_cast<uint32_t>(plan.targets.size());
  const PKeyPortMemory* m = held(memory, topo.node(t.node).guid, t.port);
  const bool known = m && m->table.size() == t.want.size();
  for (uint16_t b = 0; b < pkey_blocks(t.want.size()); ++b) {
    if (!known) plan.ops.push_back({PKeyPlan::Op::Kind::read, id, b});
    else if (!std::ranges::equal(pkey_block(m->table, b), pkey_block(t.want, b)))
      plan.ops.push_back({PKeyPlan::Op::Kind::write, id, b});
  }
  plan.targets.push_back(std::move(t));
}

}  // namespace

size_t pkey_blocks(size_t entries) { return (entries + kBlock - 1) / kBlock; }

std::span<const uint16_t> pkey_block(const std::vector<uint16_t>& t, uint16_t b) {
  const size_t from = static_cast<size_t>(b) * kBlock;
  return {t.data() + from, std::min(kBlock, t.size() - from)};
}

PKeyPlan plan_pkeys(const Topology& t, const FabricModel& model, const PKeyMemory& memory,
                    const PartitionSet& partitions) {
  PKeyPlan plan;
  for (const PortPKeys& pk : resolve_pkeys(t, partitions)) {
    const NodeRec* rec = model.find(t.node(pk.node).guid);
    if (!rec) continue;
    const size_t cap = rec->info.partition_cap;
    std::vector<uint16_t> keys = pk.pkeys;
    if (keys.size() > cap) {
      plan.warnings.emplace_back(false, fmt::format("{} port {} ({}) holds {} P_Keys, its partitions need {}: the "
                                                    "last {} left out",
                                                    pk.guid, pk.port, rec->description, cap, keys.size(),
                                                    keys.size() - cap));
      keys.resize(cap);
    }
    const Port& port = t.port(pk.node, pk.port);
    // The switch port facing this CA port enforces the same table, when it can hold it.
    if (!t.node(pk.node).is_switch() && port.linked() && t.node(port.peer).is_switch()) {
      const NodeRec* sw = model.find(t.node(port.peer).guid);
      const size_t ecap = sw ? sw->sw.partition_enforcement_cap : 0;
      if (sw && ecap > 0) {
        PKeyTarget ext{port.peer, port.peer_port, {}, true, keys.size() <= ecap};
        if (ext.enforce) {
          ext.want = keys;
          ext.want.resize(ecap, 0);
        } else {
          plan.warnings.emplace_back(true, fmt::format("switch {} port {} enforces at most {} P_Keys, {} port {} has "
                                                       "{}: no enforcement there",
                                                       t.node(port.peer).guid, port.peer_port, ecap, pk.guid, pk.port,
                                                       keys.size()));
        }
        add_target(plan, t, memory, std::move(ext));
      }
    }
    if (cap == 0) continue;
    keys.resize(cap, 0);
    add_target(plan, t, memory, PKeyTarget{pk.node, pk.port, std::move(keys), false, false});
  }
  return plan;
}

std::vector<uint32_t> plan_enforcement(const Topology& topo, const PKeyPlan& plan, const std::vector<uint8_t>& failed,
                                       const FabricModel& model, const PKeyMemory& memory) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < plan.targets.size(); ++i) {
    const PKeyTarget& t = plan.targets[i];
    if (!t.external || failed[i]) continue;
    const Guid g = topo.node(t.node).guid;
    const NodeRec* rec = model.find(g);
    const PKeyPortMemory* m = held(memory, g, t.port);
    if (!rec || t.port.value() >= rec->ports.size() || (m && !m->enforcement_kept)) continue;
    const mad::PortInfo& pi = rec->ports[t.port.value()].info;
    if (pi.partition_enforcement_inbound != t.enforce || pi.partition_enforcement_outbound != t.enforce)
      out.push_back(i);
  }
  return out;
}

void forget_reset_ports(PKeyMemory& memory, const FabricModel& model) {
  std::vector<std::pair<Guid, uint8_t>> reset;
  memory.for_each([&](Guid guid, const NodePKeys& ports) {
    const NodeRec* n = model.find(guid);
    for (const auto& [port, m] : ports) {
      bool gone = !n || port >= n->ports.size();
      if (!gone && n->is_switch()) {
        const PortRec& p0 = n->ports[0];
        gone = !p0.have_info || !p0.info.lid.is_unicast();
        if (port != 0) gone = gone || !n->ports[port].have_info || n->ports[port].info.port_state < PortState::armed;
      } else if (!gone) {
        gone = !n->ports[port].have_info || n->ports[port].info.port_state < PortState::armed;
      }
      if (gone) reset.emplace_back(guid, port);
    }
  });
  for (const auto& [guid, port] : reset) {
    NodePKeys* ports = memory.edit(guid);
    ports->erase(port);
    if (ports->empty()) memory.erase(guid);
  }
}

}  // namespace sm
