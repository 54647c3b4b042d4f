#include "sm/ha_host.h"

#include "mad/attributes.h"

namespace sm {

HaHost::Scan HaHost::scan(const Topology& topo, const FabricModel& model) {
  Scan out;
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    const NodeRec* rec = model.find(n.guid);
    if (!rec) continue;
    for (const Port& p : topo.ports(id)) {
      const uint8_t pn = p.num.value();
      if (n.is_switch() ? pn != 0 : (pn == 0 || p.guid.is_zero())) continue;
      if (pn >= rec->ports.size() || !rec->ports[pn].have_info) continue;
      const mad::PortInfo& pi = rec->ports[pn].info;
      if (id == topo.sm_node() && p.num == topo.sm_port()) {
        out.own_found = true;
        out.own_lid = p.lid;
        out.own_caps = pi.capability_mask;
        out.on_switch = n.is_switch();
      }
      if (!pi.has_cap(mad::port_cap::is_sm) || pi.has_cap(mad::port_cap::is_sm_disabled)) continue;
      out.sm_ports.push_back({p.guid, topo.path_to_port(id, p.num), topo.second_path_to_port(id, p.num), p.lid});
    }
  }
  return out;
}

std::vector<ha::SmPort> HaHost::sm_ports(const Scan& scan) {
  if (scan.own_found) {
    own_lid_ = scan.own_lid;
    own_caps_ = scan.own_caps;
    on_switch_ = scan.on_switch;
  }
  std::vector<ha::SmPort> out;
  std::unordered_map<Guid, Route> routes;
  for (const Scan::Found& f : scan.sm_ports) {
    auto old = routes_.find(f.port);
    const bool moved = old != routes_.end() && !(old->second.path == f.path);
    out.push_back(ha::SmPort{f.port, moved});
    // The same walked route keeps the way polls found to work (its cable may be up but lossy).
    const Way way = old != routes_.end() && !moved ? old->second.way : Way::walked;
    routes.emplace(f.port, Route{f.path, f.second, f.lid, way});
  }
  routes_ = std::move(routes);
  return out;
}

Guid HaHost::port_by_lid(const Topology& topo, Lid lid) {
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    for (const Port& p : topo.ports(id)) {
      if (n.is_switch() ? p.num.value() != 0 : p.num.value() == 0) continue;
      if (!p.lid.is_unicast() || lid < p.lid || lid.value() >= p.lid.value() + (1u << p.lmc)) continue;
      routes_[p.guid] = Route{topo.path_to_port(id, p.num), topo.second_path_to_port(id, p.num), p.lid};
      return p.guid;
    }
  }
  return Guid();
}

void HaHost::send_sm_info(Guid port, uint32_t modifier, const mad::SmInfo& payload, mad::Nanos timeout,
                          SmInfoDone done) {
  auto it = routes_.find(port);
  if (it == routes_.end()) {
    done(mad::fail(mad::Errc::not_found, fmt::format("no route to SM port {}", port)));
    return;
  }
  const Route& r = it->second;
  send_by(r, has(r, r.way) ? r.way : Way::walked, port, modifier, payload, timeout, std::move(done));
}

bool HaHost::has(const Route& r, Way way) const {
  switch (way) {
    case Way::walked: return true;
    case Way::second: return r.second.has_value();
    case Way::lid: return r.lid.is_unicast() && own_lid_.is_unicast();
  }
  return false;
}

void HaHost::send_by(const Route& r, Way way, Guid port, uint32_t modifier, const mad::SmInfo& payload,
                     mad::Nanos timeout, SmInfoDone done) {
  const uint8_t method = modifier ? mad::method::set : mad::method::get;
  // By LID: through the LFTs the master programmed, the answer back to this port's LID.
  mad::Smp s = way == Way::lid ? mad::make_lid_smp(method, mad::attr::sm_info, modifier)
                               : mad::make_dr_smp(method, mad::attr::sm_info, modifier,
                                                  way == Way::second ? *r.second : r.path);
  s.mkey = keys_.for_port(port);
  if (modifier) s.data = mad::encode_attr(payload);
  mad::Packet p;
  p.mad = mad::encode_smp(s);
  p.addr.lid = way == Way::lid ? r.lid : mad::kPermissiveLid;
  tx_.submit(
      p,
      [done = std::move(done)](mad::Result<mad::Packet> got) {
        if (!got) return done(std::unexpected(got.error()));
        auto smp = mad::decode_smp(got->mad);
        if (!smp) return done(std::unexpected(smp.error()));
        if (smp->status != mad::status::ok)
          return done(mad::fail(mad::Errc::mad_status, mad::status::describe(smp->status)));
        done(mad::decode_attr<mad::SmInfo>(*smp));
      },
      mad::Attempts{timeout, 0});
}

void HaHost::confirm_sm_info(Guid port, mad::Nanos timeout, SmInfoDone done) {
  auto it = routes_.find(port);
  if (it == routes_.end()) return send_sm_info(port, 0, mad::SmInfo{}, timeout, std::move(done));
  const Route r = it->second;
  std::vector<Way> ways{has(r, r.way) ? r.way : Way::walked};
  for (Way w : {Way::walked, Way::second, Way::lid})
    if (w != ways.front() && has(r, w)) ways.push_back(w);
  // The first answer goes to `done`. Once all are in, if the polls' way failed and another
  // answered, polls take that one.
  struct Ask {
    SmInfoDone done;
    size_t pending = 0;
    bool usual_failed = false;
    std::optional<Way> by;
    mad::Result<mad::SmInfo> last = mad::fail(mad::Errc::not_found, "no route");
  };
  auto ask = std::make_shared<Ask>();
  ask->done = std::move(done);
  ask->pending = ways.size() + 1;  // + 1 until all are out: an answer at once must not end it
  auto finish = [this, ask, port, walked = r.path] {
    if (--ask->pending > 0) return;
    if (!ask->by) return ask->done(ask->last);
    if (ask->usual_failed) prefer(port, walked, *ask->by);
  };
  for (Way w : ways)
    send_by(r, w, port, 0, mad::SmInfo{}, timeout, [ask, w, usual = ways.front(), finish](mad::Result<mad::SmInfo> res) {
      if (res && !ask->by) {
        ask->by = w;
        ask->done(res);
      } else if (!res) {
        if (w == usual) ask->usual_failed = true;
        ask->last = std::move(res);
      }
      finish();
    });
  finish();
}

void HaHost::prefer(Guid port, const DrPath& walked, Way way) {
  auto it = routes_.find(port);
  if (it == routes_.end() || !(it->second.path == walked)) return;  // walked again since
  it->second.way = way;
  log_.warn(code::ha_route, "HA: master SM {} answers by {} only, not by the walk's route {}: "
            "polling it that way until the next walk", port,
            way == Way::lid ? fmt::format("LID {}", it->second.lid.value())
                            : fmt::format("the second route {}", it->second.second ? it->second.second->str() : "?"),
            walked.str());
}

void HaHost::answer(const mad::Packet& p, const mad::Smp& req, ha::Agent& agent) {
  mad::Smp resp = req;
  resp.method = mad::method::get_resp;
  resp.status = mad::status::ok;
  if (resp.is_directed()) resp.direction = true;  // the hop pointer is echoed as received (ibsim)
  auto reply = [&](const ha::Agent::Answer& a) {
    resp.status = a.status;
    resp.data = mad::encode_attr(a.info);
    mad::Packet out;
    out.mad = mad::encode_smp(resp);
    out.addr = p.addr;  // LID-routed: back to the requester's LID; DR: permissive
    (void)transport_.send(out);
  };
  if (req.method == mad::method::get) {
    // IBA 14.2.5.13: the SM_Key only to a requester whose M_Key checks out.
    const uint64_t own = keys_.own_key(self_);
    reply(agent.on_get(own == 0 || req.mkey == own));
  } else if (req.method == mad::method::set) {
    auto sender = mad::decode_attr<mad::SmInfo>(req);
    if (!sender) {
      reply(ha::Agent::Answer{mad::status::invalid_field, agent.on_get(false).info});
      return;
    }
    agent.on_set(req.attr_mod, *sender, reply);
  } else {
    reply(ha::Agent::Answer{mad::status::unsupported_method, agent.on_get(false).info});
  }
}

void HaHost::notify_master(Guid port) {
  auto it = routes_.find(port);
  if (it == routes_.end() || !it->second.lid.is_unicast() || !own_lid_.is_unicast()) return;
  mad::Trap144 t;
  t.lid = own_lid_;
  t.capability_mask = own_caps_;
  t.change_flags = mad::trap144::sm_priority_changed;
  const mad::Notice notice = mad::Notice::make_trap144(
      own_lid_, on_switch_ ? mad::producer_type::sw : mad::producer_type::ca, t);
  mad::Smp smp = mad::make_lid_smp(mad::method::trap, mad::attr::notice, 0);
  smp.tid = 0x4854524150000000ULL | static_cast<uint64_t>(++traps_sent_);  // "HTRAP"
  smp.data = mad::encode_attr(notice);
  mad::Packet pkt;
  pkt.mad = mad::encode_smp(smp);
  pkt.addr.lid = it->second.lid;
  (void)transport_.send(pkt);
}

void HaHost::note(const ha::Note& n) {
  using K = ha::Note::Kind;
  switch (n.kind) {
    case K::state: log_.info(code::ha_state, "HA: {}", n.text); break;
    case K::master_lost: log_.warn(code::ha_master_lost, "HA: {}", n.text); break;
    case K::handover: log_.info(code::ha_handover, "HA: {}", n.text); break;
    case K::security: log_.error(code::ha_security, "HA security: {}", n.text); break;
    case K::peer: log_.info(code::ha_peer, "HA: {}", n.text); break;
    case K::warning: log_.warn(code::ha_warning, "HA: {}", n.text); break;
  }
  if (hooks_.note) hooks_.note(n);
}

}  // namespace sm
