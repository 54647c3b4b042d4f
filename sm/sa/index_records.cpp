// The index's records about the fabric's structure: SwitchInfoRecord (what each switch
// answered, updated by what the programmer set), LinkRecord (every cable between two end
// ports' nodes, both directions), GUIDInfoRecord (block 0 of every end port: its port GUID),
// and LFTRecords made from the routing tables the SM programmed.
#include <algorithm>

#include "sm/sa/index.h"

namespace sm::sa {

namespace {

// The LID an SA record names a port by: a CA port's own, a switch's port-0 LID for any port.
Lid record_lid(const Topology& topo, NodeId node, const Port& p) {
  return topo.node(node).is_switch() ? topo.port(node, PortNum(0)).lid : p.lid;
}

}  // namespace

void Index::build_fabric_records() {
  const Topology& topo = *topo_;
  switch_info_records_.size = mad::SwitchInfoRecord::kSize;
  link_records_.size = mad::LinkRecord::kSize;
  guid_info_records_.size = mad::GuidInfoRecord::kSize;
  std::vector<uint8_t> buf;
  auto put = [&buf](Records& into, Lid lid, const auto& rec) {
    buf.assign(into.size, 0);
    rec.encode(buf);
    into.add(lid, buf);
  };
  for (const Endport& e : endports_) {
    mad::GuidInfoRecord g;
    g.lid = e.lid;
    g.block = 0;
    g.info.guids[0] = e.guid;  // no alias GUIDs are assigned
    put(guid_info_records_, e.lid, g);
  }
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    if (n.is_switch()) {
      const Lid lid = topo.port(id, PortNum(0)).lid;
      const NodeRec* rec = subnet_->node(id);
      if (lid.value() != 0 && rec) {
        mad::SwitchInfoRecord r;
        r.lid = lid;
        r.info = rec->sw;
        put(switch_info_records_, lid, r);
      }
      if (lid.value() != 0 && tables_->has_table(id)) lft_switches_.push_back(LftSwitch{lid, id});
    }
    for (const Port& p : topo.ports(id)) {
      if (p.num.value() == 0 || !p.linked()) continue;
      const Lid from = record_lid(topo, id, p);
      const Lid to = record_lid(topo, p.peer, topo.port(p.peer, p.peer_port));
      if (from.value() == 0 || to.value() == 0) continue;
      put(link_records_, from, mad::LinkRecord{from, p.num, p.peer_port, to});
    }
  }
  std::sort(lft_switches_.begin(), lft_switches_.end(),
            [](const LftSwitch& a, const LftSwitch& b) { return a.lid.value() < b.lid.value(); });
}

const Index::LftSwitch* Index::lft_switch(Lid lid) const {
  auto it = std::lower_bound(lft_switches_.begin(), lft_switches_.end(), lid.value(),
                             [](const LftSwitch& s, uint16_t l) { return s.lid.value() < l; });
  return it != lft_switches_.end() && it->lid == lid ? &*it : nullptr;
}

uint16_t Index::lft_blocks() const {
  return tables_ ? static_cast<uint16_t>(tables_->max_lid().value() / mad::LinearForwardingTable::kEntries + 1) : 0;
}

mad::LftRecord Index::lft_record(const LftSwitch& sw, uint16_t block) const {
  mad::LftRecord r;
  r.lid = sw.lid;
  r.block = block;
  const auto lft = tables_->lft(sw.node);
  for (size_t i = 0; i < mad::LinearForwardingTable::kEntries; ++i) {
    const size_t lid = size_t{block} * mad::LinearForwardingTable::kEntries + i;
    r.table.ports[i] = lid < lft.size() ? PortNum(lft[lid]) : mad::LinearForwardingTable::kUnreachable;
  }
  return r;
}

}  // namespace sm::sa
