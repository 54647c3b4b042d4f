#include "sm/program/qos_plan.h"

#include <algorithm>
#include <cstring>

#include "mad/attributes.h"
#include "mad/sl2vl_table.h"
#include "sm/memory.h"

namespace sm {

namespace {

const mad::PortInfo* info_of(const FabricModel& model, const Topology& topo, NodeId id, uint8_t port) {
  const NodeRec* rec = model.find(topo.node(id).guid);
  if (!rec || port >= rec->ports.size() || !rec->ports[port].have_info) return nullptr;
  return &rec->ports[port].info;
}

// The VLArbitration blocks of a port: low 0-31 and 32-63, high 0-31 and 32-63, each cut to the
// port's capacity (entries beyond it zero) and its VLs masked by its OperationalVLs.
void add_vlarb(std::vector<QosTable>& out, const mad::PortInfo& pi, uint8_t op_vls, uint16_t port,
               const QosTables& t) {
  struct Part {
    uint8_t cap;
    const std::array<mad::VlArbEntry, 64>* entries;
    uint16_t first_block;
  };
  for (const Part& part : {Part{pi.vl_arb_low_cap, &t.vlarb_low, mad::vl_arb_block::low_0_31},
                           Part{pi.vl_arb_high_cap, &t.vlarb_high, mad::vl_arb_block::high_0_31}}) {
    for (unsigned half = 0; half < 2; ++half) {
      const unsigned from = half * 32;
      if (part.cap <= from) break;
      const unsigned len = std::min<unsigned>(part.cap - from, 32);
      mad::VlArbTable block;
      for (unsigned i = 0; i < len; ++i) {
        mad::VlArbEntry e = (*part.entries)[from + i];
        e.vl = vl_within(e.vl, op_vls);
        block.entries[i] = e;
      }
      QosTable q{mad::attr::vl_arb_table,
                 mad::vl_arb_attr_mod(static_cast<uint16_t>(part.first_block + half), mad::PortNum(static_cast<uint8_t>(port)))};
      block.encode(q.want);
      out.push_back(q);
    }
  }
}

QosTable sl2vl_table(const QosTables& t, uint8_t op_vls, uint32_t mod) {
  mad::Sl2VlTable s;
  for (size_t sl = 0; sl < s.vl.size(); ++sl) s.vl[sl] = vl_within(t.sl2vl[sl], op_vls);
  QosTable q{mad::attr::sl2vl_table, mod};
  s.encode(std::span<uint8_t>(q.want.data(), mad::Sl2VlTable::kSize));
  return q;
}

}  // namespace

PortPolicy qos_port_policy(PortPolicy ports, const QosOptions& o) {
  ports.qos = o.enabled;
  if (!o.enabled) return ports;
  for (QosClass c : {QosClass::ca, QosClass::sw0, QosClass::swe}) {
    const QosTables t = resolve_qos(o, c);
    ports.qos_high_limit[static_cast<size_t>(c)] = t.high_limit;
    ports.qos_op_vls[static_cast<size_t>(c)] = op_vls_for(t.max_vls);
  }
  return ports;
}

size_t QosTable::size() const { return attr == mad::attr::sl2vl_table ? mad::Sl2VlTable::kSize : mad::VlArbTable::kSize; }

QosPlan plan_qos(const Topology& topo, const FabricModel& model) {
  QosPlan plan;
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    const NodeRec* rec = model.find(n.guid);
    if (!rec) continue;
    for (const Port& p : topo.ports(id)) {
      const uint8_t pn = p.num.value();
      if (n.is_switch()) {
        if (pn == 0 ? rec->sw.enhanced_port0 : p.linked()) plan.ports.push_back({id, p.num, pn == 0 ? QosClass::sw0 : QosClass::swe});
      } else if (pn != 0 && !p.guid.is_zero() && p.linked()) {
        plan.ports.push_back({id, p.num, QosClass::ca});
      }
    }
  }
  return plan;
}

std::vector<QosTable> qos_tables(const Topology& topo, const FabricModel& model, const QosPort& qp,
                                 const QosTables& t) {
  std::vector<QosTable> out;
  const Node& n = topo.node(qp.node);
  const uint8_t pn = qp.port.value();
  const mad::PortInfo* pi = info_of(model, topo, qp.node, pn);
  // SL-to-VL mapping is a capability of the port (a switch: of port 0).
  const mad::PortInfo* cap = n.is_switch() ? info_of(model, topo, qp.node, 0) : pi;
  if (!pi || !cap) return out;
  const uint8_t op_vls = pi->operational_vls;
  add_vlarb(out, *pi, op_vls, n.is_switch() ? pn : 0, t);
  if (!cap->has_cap(mad::port_cap::is_sl_mapping_supported)) return out;
  if (!n.is_switch() || pn == 0) {
    out.push_back(sl2vl_table(t, op_vls, 0));
    return out;
  }
  // One table per input port: port 0 (the switch's own traffic) and every cabled port.
  for (const Port& in : topo.ports(qp.node)) {
    const uint8_t ip = in.num.value();
    if (ip != 0 && !in.linked()) continue;
    out.push_back(sl2vl_table(t, op_vls, mad::sl2vl_attr_mod(in.num, qp.port)));
  }
  return out;
}

uint64_t qos_key(const QosTable& t) { return (static_cast<uint64_t>(t.attr) << 32) | t.mod; }

uint64_t qos_value(const QosTable& t, std::span<const uint8_t> contents) {
  if (t.attr == mad::attr::sl2vl_table) {
    uint64_t v = 0;
    for (size_t i = 0; i < mad::Sl2VlTable::kSize && i < contents.size(); ++i) v = (v << 8) | contents[i];
    return v;
  }
  std::array<uint8_t, 64> block{};
  std::copy_n(contents.begin(), std::min(contents.size(), block.size()), block.begin());
  return lft_block_hash(block);
}

void forget_reset_qos(QosMemory& memory, const FabricModel& model) {
  for (auto it = memory.begin(); it != memory.end();) {
    const NodeRec* n = model.find(it->first);
    bool all = !n || n->ports.empty();
    if (!all && n->is_switch()) all = !n->ports[0].have_info || !n->ports[0].info.lid.is_unicast();
    if (!all && !n->is_switch())
      all = std::ranges::any_of(n->ports, [](const PortRec& p) {
        return p.have_info && p.linked() && p.info.port_state < PortState::armed;
      });
    if (all) {
      it = memory.erase(it);
      continue;
    }
    if (n->is_switch()) {  // a port retrained: its tables, and those it is the input port of
      std::erase_if(it->second.tables, [&](const auto& kv) {
        const uint16_t attr = static_cast<uint16_t>(kv.first >> 32);
        const uint32_t mod = static_cast<uint32_t>(kv.first);
        auto reset = [&](uint8_t port) {
          return port != 0 && (port >= n->ports.size() || !n->ports[port].have_info ||
                               n->ports[port].info.port_state < PortState::armed);
        };
        if (attr == mad::attr::sl2vl_table)
          return reset(mad::sl2vl_in_port_of_mod(mod).value()) || reset(mad::sl2vl_out_port_of_mod(mod).value());
        return reset(mad::vl_arb_port_of_mod(mod).value());
      });
    }
    ++it;
  }
}

}  // namespace sm
