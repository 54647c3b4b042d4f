#include "sm/discovery.h"

namespace sm {

void Discovery::start(std::function<void()> done) {
  done_ = std::move(done);
  begin();
  probe(mad::DrPath(), mad::Guid(), 0);
  end();
}

void Discovery::end() {
  if (--pending_ == 0 && done_) {
    auto d = std::move(done_);
    done_ = nullptr;
    d();
  }
}

void Discovery::problem(std::string what) {
  log_.warn(201, "discovery: {}", what);
  problems_.push_back(std::move(what));
}

void Discovery::probe(const mad::DrPath& path, mad::Guid from, uint8_t from_port) {
  begin();
  ++smps_;
  client_.get(path, mad::attr::node_info, 0, [this, path, from, from_port](mad::Result<mad::Smp> r) {
    if (r) {
      if (auto ni = mad::decode_attr<mad::NodeInfo>(*r)) {
        on_node_info(path, from, from_port, *ni);
      } else {
        problem(fmt::format("bad NodeInfo at {}: {}", path.str(), ni.error().message));
      }
    } else {
      ++failed_;
      if (!from.is_zero()) nodes_[by_guid_.at(from)].ports[from_port].probe_failed = true;
      if (failed_log_.allow())
        log_.warn(202, "discovery: no NodeInfo at path {}: {}", path.str(), r.error().message);
    }
    end();
  });
}

void Discovery::on_node_info(const mad::DrPath& path, mad::Guid from, uint8_t from_port,
                             const mad::NodeInfo& ni) {
  const uint8_t arrival = ni.local_port_num.value();
  if (ni.num_ports == 0 || arrival > ni.num_ports || (ni.node_type != mad::NodeType::sw && arrival == 0)) {
    problem(fmt::format("node {} at {} reports port {} of {}", ni.node_guid, path.str(), arrival,
                        ni.num_ports));
    return;
  }
  auto [it, fresh] = by_guid_.emplace(ni.node_guid, nodes_.size());
  const size_t idx = it->second;
  if (fresh) {
    NodeRec n;
    n.info = ni;
    n.path = path;
    n.ports.resize(static_cast<size_t>(ni.num_ports) + 1);
    nodes_.push_back(std::move(n));
    if (path.empty()) {
      sm_guid_ = ni.node_guid;
      sm_port_ = arrival;
    }
  } else {
    NodeRec& n = nodes_[idx];
    if (n.info.node_type != ni.node_type || n.info.num_ports != ni.num_ports ||
        n.info.system_image_guid != ni.system_image_guid) {
      if (!n.duplicate)
        problem(fmt::format("duplicate GUID {}: a {} with {} ports at {} and a {} with {} ports at {}",
                            ni.node_guid, mad::node_type_name(n.info.node_type), n.info.num_ports,
                            n.path.str(), mad::node_type_name(ni.node_type), ni.num_ports,
                            path.str()));
      n.duplicate = true;
      return;
    }
  }
  nodes_[idx].ports[arrival].guid = ni.port_guid;
  if (!from.is_zero()) link(by_guid_.at(from), from_port, idx, arrival);
  if (fresh) read_node(idx);
  // A CA port is its own entry point: read it by the route that reached it.
  NodeRec& n = nodes_[idx];
  if (n.info.node_type != mad::NodeType::sw && !n.ports[arrival].requested)
    read_port(idx, arrival, path);
}

void Discovery::link(size_t a, uint8_t pa, size_t b, uint8_t pb) {
  PortRec& x = nodes_[a].ports[pa];
  PortRec& y = nodes_[b].ports[pb];
  const mad::Guid ga = nodes_[a].info.node_guid, gb = nodes_[b].info.node_guid;
  auto clash = [&](const PortRec& p, mad::Guid want, uint8_t want_port) {
    return !p.peer.is_zero() && (p.peer != want || p.peer_port != want_port);
  };
  if (clash(x, gb, pb) || clash(y, ga, pa)) {
    problem(fmt::format("port {}[{}] answers as {}[{}] but was seen cabled to {}[{}]", ga, pa, gb,
                        pb, x.peer.is_zero() ? gb : x.peer, x.peer.is_zero() ? pb : x.peer_port));
    return;
  }
  x.peer = gb;
  x.peer_port = pb;
  y.peer = ga;
  y.peer_port = pa;
}

void Discovery::read_node(size_t idx) {
  const mad::DrPath path = nodes_[idx].path;
  begin();
  ++smps_;
  client_.get(path, mad::attr::node_description, 0, [this, idx](mad::Result<mad::Smp> r) {
    if (r) {
      if (auto d = mad::decode_attr<mad::NodeDescription>(*r)) nodes_[idx].description = d->text;
    }
    end();
  });
  if (nodes_[idx].info.node_type != mad::NodeType::sw) return;
  begin();
  ++smps_;
  client_.get(path, mad::attr::switch_info, 0, [this, idx](mad::Result<mad::Smp> r) {
    if (r) {
      if (auto si = mad::decode_attr<mad::SwitchInfo>(*r)) nodes_[idx].sw = *si;
    } else if (failed_log_.allow()) {
      log_.warn(203, "discovery: no SwitchInfo from {}: {}", nodes_[idx].info.node_guid,
                r.error().message);
    }
    end();
  });
  for (uint8_t p = 0; p <= nodes_[idx].info.num_ports; ++p) read_port(idx, p, path);
}

void Discovery::read_port(size_t idx, uint8_t port, const mad::DrPath& path) {
  nodes_[idx].ports[port].requested = true;
  begin();
  ++smps_;
  client_.get(path, mad::attr::port_info, port, [this, idx, port, path](mad::Result<mad::Smp> r) {
    if (!r) {
      ++failed_;
      if (failed_log_.allow())
        log_.warn(204, "discovery: no PortInfo {}[{}]: {}", nodes_[idx].info.node_guid, port,
                  r.error().message);
      end();
      return;
    }
    auto pi = mad::decode_attr<mad::PortInfo>(*r);
    if (!pi) {
      problem(fmt::format("bad PortInfo from {}[{}]: {}", nodes_[idx].info.node_guid, port,
                          pi.error().message));
      end();
      return;
    }
    NodeRec& n = nodes_[idx];
    n.ports[port].have_info = true;
    n.ports[port].info = *pi;
    // Follow every live link out of a switch, and out of the SM's own port.
    const bool live = pi->phys_state == mad::PhysState::link_up &&
                      pi->port_state >= mad::PortState::init;
    const bool forwards = n.info.node_type == mad::NodeType::sw
                              ? port != 0
                              : (path.empty() && port == sm_port_);
    if (forwards && live && !path.full())
      probe(path.extended(mad::PortNum(port)), n.info.node_guid, port);
    end();
  });
}

Discovered Discovery::take() {
  TopologyBuilder b;
  Discovered out;
  for (NodeRec& n : nodes_) {
    Node node;
    node.guid = n.info.node_guid;
    node.system_guid = n.info.system_image_guid;
    node.type = n.info.node_type;
    node.num_ports = n.info.num_ports;
    node.device_id = n.info.device_id;
    node.vendor_id = n.info.vendor_id;
    node.revision = n.info.revision;
    node.description = std::move(n.description);
    if (node.type == mad::NodeType::sw) {
      node.sw.lft_cap = n.sw.linear_fdb_cap;
      node.sw.lft_top = n.sw.linear_fdb_top.value();
      node.sw.mft_cap = n.sw.multicast_fdb_cap;
      node.sw.lids_per_port = n.sw.lids_per_port;
      node.sw.life_time = n.sw.life_time_value;
      node.sw.enhanced_port0 = n.sw.enhanced_port0;
      node.sw.port_state_change = n.sw.port_state_change;
    }
    std::vector<Port> ports(n.ports.size());
    for (size_t p = 0; p < n.ports.size(); ++p) {
      const PortRec& r = n.ports[p];
      Port& q = ports[p];
      q.guid = node.type == mad::NodeType::sw ? n.info.node_guid : r.guid;
      if (!r.have_info) continue;
      q.lid = r.info.lid;
      q.lmc = r.info.lmc;
      q.state = r.info.port_state;
      q.phys = r.info.phys_state;
      q.width_active = r.info.link_width_active;
      q.speed_active = r.info.link_speed_active;
      q.speed_ext_active = r.info.link_speed_ext_active;
      q.mtu_cap = r.info.mtu_cap;
      q.vl_cap = r.info.vl_cap;
      q.sm_lid = r.info.master_sm_lid;
    }
    b.add_node(std::move(node), std::move(ports));
  }
  for (NodeRec& n : nodes_)
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const PortRec& r = n.ports[p];
      if (r.peer.is_zero() || n.info.node_guid > r.peer) continue;  // each link once
      if (n.info.node_guid == r.peer && p > r.peer_port) continue;
      b.add_link(n.info.node_guid, mad::PortNum(static_cast<uint8_t>(p)), r.peer,
                 mad::PortNum(r.peer_port));
    }
  b.set_sm(sm_guid_, mad::PortNum(sm_port_));
  out.topo = std::move(b).build();
  out.port_info.resize(out.topo.node_count());
  out.switch_info.resize(out.topo.node_count());
  for (NodeRec& n : nodes_) {
    const NodeId id = *out.topo.find(n.info.node_guid);
    auto& pis = out.port_info[id];
    pis.resize(n.ports.size());
    for (size_t p = 0; p < n.ports.size(); ++p) pis[p] = n.ports[p].info;
    out.switch_info[id] = n.sw;
  }
  out.problems = std::move(problems_);
  out.unreachable = failed_;
  out.smps = smps_;
  if (failed_log_.suppressed())
    log_.warn(205, "discovery: {} more unanswered SMPs not logged", failed_log_.suppressed());
  nodes_.clear();
  by_guid_.clear();
  return out;
}

}  // namespace sm
