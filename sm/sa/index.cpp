#include "sm/sa/index.h"

#include <algorithm>

namespace sm::sa {

namespace {

uint8_t link_rate(const Port& p) {
  return mad::rate::of_link(p.width_active, p.speed_active, p.speed_ext_active, p.speed_ext_active != 0);
}

// A cable's MTU: what both ends can carry.
uint8_t link_mtu(const Port& a, const Port& b) { return std::min(a.mtu_cap, b.mtu_cap); }

}  // namespace

void Index::Records::add(Lid lid, std::span<const uint8_t> rec) {
  by_lid[lid.value()].push_back(static_cast<uint32_t>(count()));
  bytes.insert(bytes.end(), rec.begin(), rec.end());
}

qos::PortFacts Index::facts(const Endport& e) const {
  qos::PortFacts f;
  f.guid = e.guid;
  const Node& n = topo_->node(e.node);
  f.type = n.type;
  const NodeRec* rec = subnet_->node(e.node);
  f.node_desc = rec && !rec->description.empty() ? std::string_view(rec->description) : std::string_view(n.description);
  f.port = e.port.value();
  f.self = e.guid == subnet_->sm.port_guid;
  f.pkeys = pkeys(e);
  return f;
}

Index Index::of(std::shared_ptr<const Subnet> subnet, uint8_t packet_life) {
  Index ix;
  ix.subnet_ = std::move(subnet);
  const Subnet& sn = *ix.subnet_;
  const Topology& topo = *sn.topology;
  static const routing::RoutingTables kNoTables;
  ix.topo_ = &topo;
  ix.tables_ = sn.tables ? sn.tables.get() : &kNoTables;
  ix.packet_life_ = packet_life;
  ix.node_records_.size = mad::NodeRecord::kSize;
  ix.port_records_.size = mad::PortInfoRecord::kSize;
  ix.sm_info_records_.size = mad::SmInfoRecord::kSize;
  std::vector<uint8_t> buf;
  auto put = [&buf](Records& into, Lid lid, const auto& rec) {
    buf.assign(into.size, 0);
    rec.encode(buf);
    into.add(lid, buf);
  };
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    const NodeRec* rec = sn.node(id);
    for (const Port& p : topo.ports(id)) {
      const bool endport = n.is_switch() ? p.num.value() == 0 : p.num.value() != 0;
      if (!endport || p.lid.value() == 0) continue;
      // Every LID of the port's range finds it (a query may name any of them).
      const uint8_t lmc = std::min<uint8_t>(p.lmc, 7);
      for (uint32_t k = 0; k < (1u << lmc) && p.lid.value() + k <= Lid::kMaxUnicast; ++k)
        ix.by_lid_[static_cast<uint16_t>(p.lid.value() + k)] = ix.endports_.size();
      ix.by_guid_[p.guid] = ix.endports_.size();
      ix.endports_.push_back(Endport{id, p.num, p.lid, p.guid, lmc});
      if (!rec) continue;
      mad::NodeRecord nr;
      nr.lid = p.lid;
      nr.info = rec->info;
      nr.info.port_guid = p.guid;
      nr.info.local_port_num = p.num;
      nr.description.text = rec->description;
      put(ix.node_records_, p.lid, nr);
    }
    // PortInfoRecords: every port of a switch (EndportLID is its port-0 LID), CA ports.
    if (!rec) continue;
    const Lid switch_lid = n.is_switch() ? topo.port(id, PortNum(0)).lid : Lid();
    for (size_t k = 0; k < rec->ports.size(); ++k) {
      const PortRec& pr = rec->ports[k];
      if (!pr.have_info || (!n.is_switch() && k == 0)) continue;
      mad::PortInfoRecord r;
      r.endport_lid = n.is_switch() ? switch_lid : pr.info.lid;
      if (r.endport_lid.value() == 0) continue;
      r.port = PortNum(static_cast<uint8_t>(k));
      r.info = pr.info;
      r.info.m_key = 0;  // never handed out
      put(ix.port_records_, r.endport_lid, r);
    }
  }
  mad::SmInfoRecord smr;
  smr.lid = topo.port(topo.sm_node(), topo.sm_port()).lid;
  smr.info = sn.sm.info;
  smr.info.sm_key = 0;  // never handed out
  put(ix.sm_info_records_, smr.lid, smr);
  ix.build_fabric_records();
  ix.add_pkey_tables();
  return ix;
}

const Endport* Index::by_lid(Lid lid) const {
  auto it = by_lid_.find(lid.value());
  return it == by_lid_.end() ? nullptr : &endports_[it->second];
}

const Endport* Index::by_guid(Guid g) const {
  auto it = by_guid_.find(g);
  return it == by_guid_.end() ? nullptr : &endports_[it->second];
}

uint8_t Index::sl(const Endport& src, Lid dlid) const {
  if (!tables_->has_sls()) return 0;
  NodeId ingress = src.node;
  if (!topo_->node(ingress).is_switch()) {
    const Port& p = topo_->port(ingress, src.port);
    if (!p.linked()) return 0;
    ingress = p.peer;
  }
  return tables_->sl(ingress, dlid);
}

// Port states are not looked at: the snapshot was taken before this sweep activated the
// ports, and a port that goes down makes a sweep that replaces the index.
std::optional<PathInfo> Index::path(const Endport& src, const Endport& dst, Lid dlid_) const {
  const Topology& t = *topo_;
  PathInfo info{.mtu = 0xFF, .rate = 0xFF, .hops = 0};
  auto cross = [&](const Port& from, const Port& to) {
    info.mtu = std::min(info.mtu, link_mtu(from, to));
    info.rate = std::min(info.rate, link_rate(from));
    ++info.hops;
  };
  NodeId at = src.node;
  if (at == dst.node) {  // to itself: its own port's MTU and rate
    const Port& p = t.port(at, src.port);
    return PathInfo{.mtu = p.mtu_cap, .rate = link_rate(p), .hops = 0};
  }
  if (!t.node(at).is_switch()) {  // a CA sends out of its own port
    const Port& out = t.port(at, src.port);
    if (!out.linked()) return std::nullopt;
    cross(out, t.port(out.peer, out.peer_port));
    at = out.peer;
  }
  const uint16_t dlid = dlid_.value();
  for (unsigned guard = 0; guard < 64; ++guard) {
    if (at == dst.node) return info;
    if (!t.node(at).is_switch() || !tables_->has_table(at) || dlid > tables_->max_lid().value()) return std::nullopt;
    const uint8_t out = tables_->port(at, dlid_);
    if (out == 0 || out == 0xFF || out > t.node(at).num_ports) return std::nullopt;
    const Port& p = t.port(at, PortNum(out));
    if (!p.linked()) return std::nullopt;
    cross(p, t.port(p.peer, p.peer_port));
    at = p.peer;
  }
  return std::nullopt;  // a loop
}

std::vector<NodeId> Index::switches_on(const Endport& src, Lid dlid) const {
  const Topology& t = *topo_;
  const Endport* dst = by_lid(dlid);
  std::vector<NodeId> out;
  if (!dst) return out;
  NodeId at = src.node;
  if (!t.node(at).is_switch()) {
    if (at == dst->node) return out;
    const Port& p = t.port(at, src.port);
    if (!p.linked()) return out;
    at = p.peer;
  }
  for (unsigned guard = 0; guard < 64; ++guard) {
    if (!t.node(at).is_switch()) return at == dst->node ? out : std::vector<NodeId>{};
    out.push_back(at);
    if (at == dst->node) return out;
    if (!tables_->has_table(at) || dlid.value() > tables_->max_lid().value()) return {};
    const uint8_t port = tables_->port(at, dlid);
    if (port == 0 || port == 0xFF || port > t.node(at).num_ports) return {};
    const Port& p = t.port(at, PortNum(port));
    if (!p.linked()) return {};
    at = p.peer;
  }
  return {};
}

}  // namespace sm::sa
