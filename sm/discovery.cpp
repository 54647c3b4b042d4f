#include "sm/discovery.h"

namespace sm {

namespace {
bool live(const mad::PortInfo& pi) {
  return pi.phys_state == mad::PhysState::link_up && pi.port_state >= mad::PortState::init;
}
}  // namespace

void Discovery::start_full(std::function<void()> done) {
  done_ = std::move(done);
  full_ = true;
  before_ = std::move(model_);
  model_.clear();
  model_.reserve(before_.size());
  begin();
  probe(DrPath(), Guid(), 0);
  end();
}

void Discovery::start_refresh(const std::vector<Guid>& switches, std::function<void()> done) {
  done_ = std::move(done);
  full_ = false;
  begin();
  for (Guid g : switches) refresh_node(g);
  end();
}

void Discovery::end() {
  if (--pending_ != 0 || !done_) return;
  // A node whose old route crossed a cable that is now gone: route around it and try again.
  if ((!retry_.empty() || !retry_ports_.empty()) && !retried_) {
    retried_ = true;
    begin();  // held until the retry is out: nothing of this walk is in flight meanwhile
    if (!offload_) {
      model_.recompute_paths();
      return retry();
    }
    offload_([this] { model_.recompute_paths(); }, [this] { retry(); });
    return;
  }
  if (failed_log_.suppressed())
    log_.warn(code::unanswered_suppressed, "discovery: {} more unanswered SMPs not logged", failed_log_.suppressed());
  auto d = std::move(done_);
  done_ = nullptr;
  d();
}

void Discovery::retry() {
  std::vector<Guid> again;
  again.swap(retry_);
  std::vector<std::pair<Guid, uint8_t>> ports;
  ports.swap(retry_ports_);
  for (Guid g : again) {
    refreshed_.erase(g);
    refresh_node(g);
  }
  for (const auto& [g, p] : ports)
    if (const NodeRec* n = model_.find(g); n && n->is_switch()) read_port(g, p, n->path);
  end();
}

WalkSummary Discovery::settle() {
  if (full_) {
    if (!model_.find(model_.sm_node())) {
      model_ = std::move(before_);  // not even the SM's own node answered: nothing was learnt
    } else {
      summary_.kept = keep_unanswered(model_, before_, summary_.holes, left_out_);
      if (!summary_.kept.nodes.empty()) model_.recompute_paths();
      model_.keep_ignored(before_);
    }
    before_.clear();
  }
  summary_.pruned = model_.prune_unreachable();
  summary_.changed.assign(refreshed_.begin(), refreshed_.end());
  return std::move(summary_);
}

void Discovery::problem(std::string what) {
  log_.warn(code::discovery_problem, "discovery: {}", what);
  summary_.problems.push_back(std::move(what));
}

void Discovery::probe(const DrPath& path, Guid from, uint8_t from_port) {
  begin();
  ++summary_.smps;
  client_.get(path, mad::attr::node_info, 0, [this, path, from, from_port](mad::Result<mad::Smp> r) {
    if (!r) {
      ++summary_.unanswered;
      hole(from, from_port, Hole::Kind::node_info);
      if (failed_log_.allow())
        log_.warn(code::no_node_info, "discovery: no NodeInfo at path {}: {}", path.str(), r.error().message);
    } else if (auto ni = mad::decode_attr<mad::NodeInfo>(*r)) {
      on_node_info(path, from, from_port, *ni);
    } else {
      problem(fmt::format("bad NodeInfo at {}: {}", path.str(), ni.error().message));
    }
    end();
  });
}

void Discovery::on_node_info(const DrPath& path, Guid from, uint8_t from_port, const mad::NodeInfo& ni) {
  const uint8_t arrival = ni.local_port_num.value();
  if (ni.num_ports == 0 || arrival > ni.num_ports || (ni.node_type != mad::NodeType::sw && arrival == 0)) {
    problem(fmt::format("node {} at {} reports port {} of {}", ni.node_guid, path.str(), arrival, ni.num_ports));
    return;
  }
  const NodeRec* n = model_.find(ni.node_guid);
  const bool fresh = n == nullptr;
  if (fresh) {
    n = model_.add(ni, path);
    if (path.empty()) model_.set_sm(ni.node_guid, arrival);
  } else if (n->info.node_type != ni.node_type || n->info.num_ports != ni.num_ports ||
             n->info.system_image_guid != ni.system_image_guid) {
    if (!n->duplicate) {
      problem(fmt::format("duplicate GUID {}: a {} with {} ports at {} and a {} with {} ports at {}",
                          ni.node_guid, mad::node_type_name(n->info.node_type), n->info.num_ports,
                          n->path.str(), mad::node_type_name(ni.node_type), ni.num_ports, path.str()));
      model_.edit(ni.node_guid)->duplicate = true;
    }
    return;
  }
  if (!from.is_zero()) {
    const NodeRec* src = model_.find(from);
    const bool was_linked = src && src->ports[from_port].linked();
    if (!model_.link(from, from_port, ni.node_guid, arrival)) {
      // A full walk started from an empty model, so a port of the node that answers here
      // already cabled to another port means a second node answers with this GUID: leave it
      // out rather than merge its cables into the first one.
      const auto& mine = n->ports[arrival];
      if (full_ && mine.linked()) {
        if (!n->duplicate) {
          problem(fmt::format("duplicate GUID {}: the {} at {} answers by port {}, but port {} of the one at {} "
                              "is cabled to {}[{}]; the second is left out", ni.node_guid,
                              mad::node_type_name(ni.node_type), path.str(), arrival, arrival, n->path.str(),
                              mine.peer, mine.peer_port));
          model_.edit(ni.node_guid)->duplicate = true;
        }
        return;
      }
      // Otherwise a cable moved: name the end that was seen cabled elsewhere.
      const auto& theirs = src->ports[from_port];
      const bool at_src = theirs.linked();
      const auto& seen = at_src ? theirs : mine;
      problem(fmt::format("port {}[{}] answers as {}[{}] but {}[{}] was seen cabled to {}[{}]", from, from_port,
                          ni.node_guid, arrival, at_src ? from : ni.node_guid, at_src ? from_port : arrival,
                          seen.peer, seen.peer_port));
      return;
    }
    // A cable that just came back (or a known node seen anew): its far end changed state too,
    // and the node may have been reset; read it again.
    if (!full_ && !fresh && !was_linked) refresh_peer(ni.node_guid, arrival, path);
  }
  // Only once the cable is known to lead to this node; a record that knows it stays shared.
  n = model_.find(ni.node_guid);
  if (n->ports[arrival].guid != ni.port_guid) model_.edit(ni.node_guid)->ports[arrival].guid = ni.port_guid;
  if (fresh) {
    read_node(ni.node_guid, true);
    if (!n->is_switch()) read_port(ni.node_guid, arrival, path);  // a CA port is read by its own route
  } else if (!n->is_switch() && !n->ports[arrival].have_info) {
    read_port(ni.node_guid, arrival, path);
  }
}

void Discovery::refresh_peer(Guid g, uint8_t port, const DrPath& via) {
  const NodeRec* n = model_.find(g);
  if (!n) return;
  if (n->is_switch()) refresh_node(g);
  else read_port(g, port, via);
}

void Discovery::refresh_node(Guid g) {
  if (!refreshed_.insert(g).second) return;
  const NodeRec* n = model_.find(g);
  if (!n) return;
  const DrPath path = n->path;
  begin();
  ++summary_.smps;
  // Check the route still leads to this node before trusting what its ports say.
  client_.get(path, mad::attr::node_info, 0, [this, g, path](mad::Result<mad::Smp> r) {
    auto ni = r ? mad::decode_attr<mad::NodeInfo>(*r) : mad::Result<mad::NodeInfo>(std::unexpected(r.error()));
    if (!ni || ni->node_guid != g) {
      if (!retried_) {
        retry_.push_back(g);
      } else if (!r && r.error().code == mad::Errc::timeout) {
        // Unanswered over routes that avoid every cable known down: lost, or hung. A hole,
        // not a reason to walk it all (under loss that would never end).
        ++summary_.unanswered;
        hole(g, 0, Hole::Kind::at_route);
      } else {
        summary_.stale_path = true;
        log_.info(code::refresh_lost_node, "refresh: {} no longer answers at {}: a full sweep follows", g, path.str());
      }
    } else {
      const NodeRec* known = model_.find(g);
      const bool ca = known && !known->is_switch();
      read_node(g, known && known->description.empty());
      // A CA's ports are read by its own route: all of them (a CA has one or two), since a
      // refresh of a CA is a retry of what did not answer.
      if (const NodeRec* now = model_.find(g); ca && now) {
        const uint8_t ports = now->info.num_ports;
        const DrPath route = now->path;
        for (uint8_t p = 1; p <= ports; ++p) read_port(g, p, route);
      }
    }
    end();
  });
}

void Discovery::read_node(Guid g, bool with_description) {
  const NodeRec* n = model_.find(g);
  const DrPath path = n->path;
  if (with_description) {
    begin();
    ++summary_.smps;
    client_.get(path, mad::attr::node_description, 0, [this, g](mad::Result<mad::Smp> r) {
      if (!r) hole(g, 0, Hole::Kind::description);
      else if (auto d = mad::decode_attr<mad::NodeDescription>(*r))
        if (auto* node = model_.edit(g)) node->description = d->text;
      end();
    });
  }
  if (!n->is_switch()) return;
  begin();
  ++summary_.smps;
  client_.get(path, mad::attr::switch_info, 0, [this, g](mad::Result<mad::Smp> r) {
    if (r) {
      if (auto si = mad::decode_attr<mad::SwitchInfo>(*r))
        if (auto* node = model_.edit(g)) node->sw = *si;
    } else {
      ++summary_.unanswered;
      hole(g, 0, Hole::Kind::switch_info);
      if (failed_log_.allow()) log_.warn(code::no_switch_info, "discovery: no SwitchInfo from {}: {}", g, r.error().message);
    }
    end();
  });
  for (uint8_t p = 0; p <= n->info.num_ports; ++p) read_port(g, p, path);
}

void Discovery::read_port(Guid g, uint8_t port, const DrPath& path) {
  begin();
  ++summary_.smps;
  client_.get(path, mad::attr::port_info, port, [this, g, port, path](mad::Result<mad::Smp> r) {
    if (!model_.find(g)) {
      end();
      return;
    }
    const bool is_switch = model_.find(g)->is_switch();
    if (!r) {
      if (!full_ && !retried_ && is_switch) {
        retry_ports_.emplace_back(g, port);  // its route may cross what just broke
      } else {
        ++summary_.unanswered;
        hole(g, port, Hole::Kind::port_info);
        if (failed_log_.allow())
          log_.warn(code::no_port_info, "discovery: no PortInfo {}[{}]: {}", g, port, r.error().message);
      }
      end();
      return;
    }
    auto pi = mad::decode_attr<mad::PortInfo>(*r);
    if (!pi) {
      problem(fmt::format("bad PortInfo from {}[{}]: {}", g, port, pi.error().message));
      end();
      return;
    }
    PortRec& rec = model_.edit(g)->ports[port];
    const bool had = rec.have_info;
    const mad::PortState before = rec.info.port_state;
    rec.have_info = true;
    rec.info = *pi;
    const bool forwards = is_switch ? port != 0 : (path.empty() && port == model_.sm_port());
    if (forwards && !path.full()) {
      const bool changed = had && (rec.linked() != live(*pi) || before != pi->port_state);
      if (!full_ && changed) summary_.port_changes.emplace_back(g, port);
      if (!live(*pi)) {
        if (rec.linked()) {  // the cable is gone: its far end too, whose trap may be lost
          const Guid peer = rec.peer;
          const uint8_t peer_port = rec.peer_port;
          model_.unlink(g, port);
          // Its route may well have crossed this very cable: read it once routes are redone.
          const NodeRec* pn = model_.find(peer);
          if (!full_ && pn && pn->is_switch()) retry_ports_.emplace_back(peer, peer_port);
        }
      } else if (!rec.linked() || !had || before != pi->port_state) {
        // New, or changed under us (a flap, a reboot at the far end): look who is there now.
        if (rec.linked() && !full_) model_.unlink(g, port);
        probe(path.extended(mad::PortNum(port)), g, port);
      }
    }
    end();
  });
}

}  // namespace sm
