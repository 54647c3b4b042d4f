#include "ha/role.h"

#include <utility>

#include <fmt/format.h>

#include <algorithm>

namespace ha {

namespace {
std::string ctl_name(uint32_t m) {
  switch (m) {
    case mad::sm_info_ctl::handover: return "HANDOVER";
    case mad::sm_info_ctl::acknowledge: return "ACKNOWLEDGE";
    case mad::sm_info_ctl::disable: return "DISABLE";
    case mad::sm_info_ctl::standby: return "STANDBY";
    case mad::sm_info_ctl::discover: return "DISCOVER";
    default: return fmt::format("modifier {}", m);
  }
}
std::string state_text(SmState s) { return std::string(mad::sm_state_name(s)); }
}  // namespace

SmInfo Role::self_info(bool with_key) const {
  SmInfo s;
  s.guid = self_;
  s.sm_key = with_key ? cfg_.sm_key : 0;
  s.act_count = act_count_;
  s.priority = cfg_.priority;
  s.state = state_;
  return s;
}

std::vector<Peer> Role::peers() const {
  std::vector<Peer> out;
  for (const auto& [g, s] : peers_) out.push_back(s.p);
  return out;
}

std::string Role::describe(const PeerState& s) const {
  if (!s.p.answered) return fmt::format("SM {}", s.p.port);
  return fmt::format("SM {} (priority {}, {})", s.p.port, s.p.info.priority, state_text(s.p.info.state));
}

// Discovering peers are about to change state; a second master must hand over or be handed
// over to: both are read again every poll interval.
Nanos Role::heartbeat() const {
  return std::max(Nanos(std::chrono::milliseconds(1)), std::min(cfg_.heartbeat, cfg_.poll_interval / 4));
}

bool Role::settled(const PeerState& s) const {
  return !s.p.answered || !s.p.believed ||
         (s.p.info.state != SmState::discovering && s.p.info.state != SmState::master);
}

void Role::query(Output& out, PeerState& s) {
  if (s.in_flight) return;
  s.in_flight = true;
  ++act_count_;  // IBA: the count moves with every SMP the SM issues
  out.act(Action::Kind::query, s.p.port);
}

void Role::absorb(Nanos now, PeerState& s, const mad::Result<SmInfo>& r, Output& out) {
  if (!r) {
    s.p.answered = false;
    return;
  }
  // An SM that has not read its own port yet answers with GUID 0 (it is still discovering).
  if (!r->guid.is_zero() && r->guid != s.p.port) {
    s.p.answered = false;
    out.note(Note::Kind::warning, fmt::format("the SM at port {} answers with GUID {}: ignored", s.p.port, r->guid));
    return;
  }
  const bool first = !s.p.answered && s.p.last_heard == Nanos(0);
  const bool was_believed = s.p.believed;
  s.p.answered = true;
  s.p.info = *r;
  s.p.info.guid = s.p.port;
  s.p.last_heard = now;
  s.p.believed = r->sm_key == cfg_.sm_key;
  if (!s.p.believed && (was_believed || !s.key_noted)) {
    s.key_noted = true;
    out.note(Note::Kind::security,
             fmt::format("{} answers with SM_Key 0x{:016x}, not ours: not believed (no handover to it, "
                         "no standing by under it)", describe(s), r->sm_key));
  } else if (s.p.believed && s.key_noted) {
    s.key_noted = false;
    out.note(Note::Kind::security, fmt::format("{} now carries our SM_Key", describe(s)));
  } else if (first && s.p.believed) {
    out.note(Note::Kind::peer, fmt::format("found {}", describe(s)));
  }
}

Output Role::start(Nanos now) {
  Output out;
  enter_discovering(now, out);
  return out;
}

void Role::enter_discovering(Nanos now, Output& out) {
  if (state_ != SmState::discovering)
    out.note(Note::Kind::state, fmt::format("entering Discovering (was {})", state_text(state_)));
  if (state_ == SmState::master) out.act(Action::Kind::stand_by);  // configure nothing until elected
  state_ = SmState::discovering;
  walked_ = false;
  handed_over_.clear();
  handover_to_.reset();
  poll_in_flight_ = false;
  watched_ = Guid();
  out.act(Action::Kind::discover);
  // Ask the SMs known already while the walk runs: a dead one costs no extra time after it.
  for (auto& [g, s] : peers_) query(out, s);
  (void)now;
}

void Role::enter_standby(Nanos now, Guid master, Output& out) {
  const bool was = state_ == SmState::standby && watched_ == master;
  if (state_ != SmState::standby)
    out.note(Note::Kind::state, fmt::format("entering Standby under SM {} (was {})", master, state_text(state_)));
  else if (!was)
    out.note(Note::Kind::state, fmt::format("standing by under SM {} now", master));
  state_ = SmState::standby;
  watched_ = master;
  handover_to_.reset();
  misses_ = stalls_ = waits_ = 0;
  confirming_ = false;
  last_act_.reset();
  auto w = peers_.find(master);
  seen_master_ = w != peers_.end() && w->second.p.answered && w->second.p.info.state == SmState::master;
  notified_ = false;
  out.act(Action::Kind::stand_by);
  poll_in_flight_ = false;
  send_poll(now, out);
}

void Role::enter_master(Nanos now, Output& out) {
  out.note(Note::Kind::state, fmt::format("entering Master (was {}), priority {}", state_text(state_), cfg_.priority));
  state_ = SmState::master;
  watched_ = Guid();
  handover_to_.reset();
  poll_in_flight_ = false;
  ++act_count_;
  next_heartbeat_ = now + heartbeat();
  out.act(Action::Kind::become_master);
  for (Guid g : handed_over_) {
    ++act_count_;
    out.act(Action::Kind::acknowledge, g);
  }
  handed_over_.clear();
  for (auto& [g, s] : peers_) s.next_check = now + (settled(s) ? cfg_.peer_check : cfg_.poll_interval);
}

void Role::maybe_decide(Nanos now, Output& out) {
  if (state_ != SmState::discovering || !walked_) return;
  for (const auto& [g, s] : peers_)
    if (s.in_flight) return;
  const PeerState* master = nullptr;
  const PeerState* higher = nullptr;
  for (const auto& [g, s] : peers_) {
    if (!s.p.answered || !s.p.believed) continue;
    const SmState st = s.p.info.state;
    if (st == SmState::master && !handed_over_.contains(g)) {
      if (!master || outranks(rank(s), rank(*master))) master = &s;
    } else if ((st == SmState::discovering || st == SmState::standby) && outranks(rank(s), me())) {
      if (!higher || outranks(rank(s), rank(*higher))) higher = &s;
    }
  }
  if (master) enter_standby(now, master->p.port, out);
  else if (higher) enter_standby(now, higher->p.port, out);
  else enter_master(now, out);
}

Output Role::discovered(Nanos now, Guid self, const std::vector<SmPort>& ports, bool complete) {
  Output out;
  self_ = self;
  std::set<Guid> seen;
  for (const SmPort& sp : ports) {
    if (sp.port == self_ || sp.port.is_zero()) continue;
    seen.insert(sp.port);
    auto [it, fresh] = peers_.try_emplace(sp.port);
    PeerState& s = it->second;
    if (fresh) {
      s.p.port = sp.port;
      s.p.first_seen = now;
      if (state_ != SmState::not_active) query(out, s);
    } else if ((state_ == SmState::discovering || state_ == SmState::master) &&
               (sp.route_changed || !s.p.answered)) {
      query(out, s);  // a stale route may have hidden it; or it came back (a healed partition)
    }
  }
  if (complete)
    for (auto it = peers_.begin(); it != peers_.end();) {
      if (!seen.contains(it->first) && !it->second.in_flight && it->first != watched_) {
        if (it->second.p.answered) out.note(Note::Kind::peer, fmt::format("{} is gone", describe(it->second)));
        it = peers_.erase(it);
      } else {
        ++it;
      }
    }
  if (state_ == SmState::discovering) {
    walked_ = true;
    maybe_decide(now, out);
  }
  return out;
}

Output Role::query_result(Nanos now, Guid peer, const mad::Result<SmInfo>& r) {
  Output out;
  auto it = peers_.find(peer);
  if (it == peers_.end()) return out;
  PeerState& s = it->second;
  s.in_flight = false;
  absorb(now, s, r, out);
  switch (state_) {
    case SmState::discovering: maybe_decide(now, out); break;
    case SmState::master:
      s.next_check = now + (settled(s) ? cfg_.peer_check : cfg_.poll_interval);
      evaluate(now, s, out);
      break;
    default: break;
  }
  return out;
}

// A master looks at another SM: hand over to a higher one (a master always; a standby unless
// sticky), or wait for a lower master to hand over to it.
void Role::evaluate(Nanos now, PeerState& s, Output& out) {
  if (state_ != SmState::master || handover_to_ || !s.p.answered || !s.p.believed) return;
  const bool higher = outranks(rank(s), me());
  if (s.p.info.state == SmState::master) {
    if (higher) {
      out.note(Note::Kind::handover, fmt::format("split brain: {} is master too and outranks this SM: handing over",
                                                 describe(s)));
      handover_to_ = s.p.port;
      ++act_count_;
      out.act(Action::Kind::handover, s.p.port);
    } else if (!s.split_noted) {
      s.split_noted = true;
      out.note(Note::Kind::warning, fmt::format("split brain: {} is master too; this SM outranks it and waits "
                                                "for its handover", describe(s)));
    }
  } else if (s.p.info.state == SmState::standby && higher) {
    if (cfg_.sticky) {
      if (!s.sticky_noted)
        out.note(Note::Kind::handover, fmt::format("{} outranks this SM; sticky master: keeping the subnet", describe(s)));
      s.sticky_noted = true;
      return;
    }
    out.note(Note::Kind::handover, fmt::format("{} outranks this SM: handing the subnet over", describe(s)));
    handover_to_ = s.p.port;
    ++act_count_;
    out.act(Action::Kind::handover, s.p.port);
  } else {
    s.split_noted = false;
  }
  (void)now;
}

void Role::handed_over_to(Nanos now, Guid peer, Output& out) {
  if (!resigning_) return enter_standby(now, peer, out);
  out.note(Note::Kind::state, stepping_down_ ? "entering NotActive: stepped down" : "entering NotActive: stopping");
  state_ = SmState::not_active;
  watched_ = Guid();
  out.act(Action::Kind::stand_by);
}

Output Role::resign(Nanos) {
  Output out;
  if (state_ != SmState::master || resigning_) return out;
  resigning_ = true;
  const PeerState* best = nullptr;
  for (const auto& [g, s] : peers_)
    if (s.p.answered && s.p.believed && s.p.info.state == SmState::standby && (!best || outranks(rank(s), rank(*best))))
      best = &s;
  if (!best) return out;
  out.note(Note::Kind::handover, fmt::format("stopping: handing the subnet over to {}", describe(*best)));
  handover_to_ = best->p.port;
  ++act_count_;
  out.act(Action::Kind::handover, best->p.port);
  return out;
}

Output Role::step_down(Nanos now, const std::string& why) {
  Output out;
  if (state_ != SmState::master) return out;
  out.note(Note::Kind::state, fmt::format("stepping down: {}", why));
  stepping_down_ = true;
  resigning_ = false;  // a stop under way does not keep it from handing over now
  Output r = resign(now);
  if (r.actions.empty()) {
    enter_not_active(why, out);
    return out;
  }
  for (Note& n : r.notes) out.notes.push_back(std::move(n));
  for (Action& a : r.actions) out.actions.push_back(a);
  return out;
}

void Role::enter_not_active(const std::string& why, Output& out) {
  out.note(Note::Kind::state, fmt::format("entering NotActive: {}", why));
  state_ = SmState::not_active;
  handover_to_.reset();
  watched_ = Guid();
  ++act_count_;
  out.act(Action::Kind::stand_by);
}

Output Role::handover_result(Nanos now, Guid peer, const mad::Result<SmInfo>& r) {
  Output out;
  if (state_ != SmState::master || !handover_to_ || *handover_to_ != peer) return out;
  handover_to_.reset();
  if (r) {
    out.note(Note::Kind::handover, fmt::format("SM {} took the subnet over", peer));
    handed_over_to(now, peer, out);
    return out;
  }
  if (stepping_down_) {
    enter_not_active(fmt::format("handover to SM {} failed ({})", peer, r.error().message), out);
    return out;
  }
  out.note(Note::Kind::warning, fmt::format("handover to SM {} failed ({}): still master", peer, r.error().message));
  if (auto it = peers_.find(peer); it != peers_.end()) it->second.next_check = now + cfg_.poll_interval;
  return out;
}

void Role::send_poll(Nanos now, Output& out) {
  poll_in_flight_ = true;
  poll_sent_ = now;
  ++act_count_;
  out.act(Action::Kind::poll, watched_);
}

void Role::master_lost(Nanos now, const std::string& why, Output& out) {
  out.note(Note::Kind::master_lost, fmt::format("master SM {} lost: {}", watched_, why));
  enter_discovering(now, out);
}

Output Role::poll_result(Nanos now, Guid peer, const mad::Result<SmInfo>& r) {
  Output out;
  if (state_ != SmState::standby || peer != watched_ || !poll_in_flight_) return out;
  poll_in_flight_ = false;
  next_poll_ = std::max(now, poll_sent_ + cfg_.poll_interval);
  auto [it, fresh] = peers_.try_emplace(peer);
  PeerState& s = it->second;
  if (fresh) {
    s.p.port = peer;
    s.p.first_seen = now;
  }
  absorb(now, s, r, out);
  const bool confirmed = std::exchange(confirming_, false);
  if (!s.p.answered) {
    if (++misses_ < cfg_.max_misses) return out;
    if (!confirmed && cfg_.confirm_timeout > Nanos(0)) {  // one more ask, with longer to answer
      confirming_ = poll_in_flight_ = true;
      poll_sent_ = now;
      ++act_count_;
      out.act(Action::Kind::confirm, watched_);
      return out;
    }
    master_lost(now, fmt::format("{} SMInfo polls in a row unanswered{}{}", misses_,
                                 confirmed ? fmt::format(", the last with {} ms to answer",
                                                         std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.confirm_timeout).count())
                                           : "",
                                 r ? "" : " (" + r.error().message + ")"), out);
    return out;
  }
  if (confirmed)
    out.note(Note::Kind::warning, fmt::format("master SM {} answered only after {} SMInfo polls unanswered: "
                                              "busy, or its route cut, not lost", watched_, misses_));
  misses_ = 0;
  if (!s.p.believed) {
    master_lost(now, "it answers with another SM_Key", out);
    return out;
  }
  const Rank them = rank(s);
  if (s.p.info.state == SmState::master) {
    waits_ = 0;
    seen_master_ = true;
    if (last_act_ && *last_act_ == s.p.info.act_count) {
      if (++stalls_ >= cfg_.stall_polls) {
        master_lost(now, fmt::format("its ActCount stayed at {} for {} polls", s.p.info.act_count, stalls_ + 1), out);
        return out;
      }
    } else {
      stalls_ = 0;
    }
    last_act_ = s.p.info.act_count;
    if (!notified_ && outranks(me(), them)) {
      notified_ = true;  // OpenSM hands over only when a trap tells it to look
      out.act(Action::Kind::notify_master, peer);
    }
    return out;
  }
  // A higher SM we wait for (never seen as master yet) gets time to finish its election; a
  // master that stepped down handed over to someone else: find out whom now.
  const bool coming = !seen_master_ &&
                      (s.p.info.state == SmState::discovering || s.p.info.state == SmState::standby) &&
                      outranks(them, me());
  if (coming && ++waits_ < cfg_.settle_polls) return out;
  out.note(Note::Kind::state, fmt::format("{} is not master{}: electing again", describe(s),
                                          coming ? fmt::format(" after {} polls", waits_) : ""));
  enter_discovering(now, out);
  return out;
}

Role::SetOutcome Role::on_set(Nanos now, uint32_t modifier, const SmInfo& sender) {
  SetOutcome o;
  Output& out = o.out;
  const std::string what = fmt::format("SMInfo Set {} from SM {}", ctl_name(modifier), sender.guid);
  if (sender.sm_key != cfg_.sm_key) {
    o.status = mad::status::invalid_field;
    out.note(Note::Kind::security, fmt::format("{} carries a wrong SM_Key (0x{:016x}): refused", what, sender.sm_key));
    return o;
  }
  auto [it, fresh] = peers_.try_emplace(sender.guid);
  PeerState& s = it->second;
  if (fresh) {
    s.p.port = sender.guid;
    s.p.first_seen = now;
  }
  s.p.answered = s.p.believed = true;
  s.p.info = sender;
  s.p.last_heard = now;
  auto illegal = [&] {
    o.status = mad::status::invalid_field;
    out.note(Note::Kind::warning, fmt::format("{} refused: sender {}, this SM {}", what,
                                              state_text(sender.state), state_text(state_)));
  };
  const bool from_master = sender.state == SmState::master;
  switch (modifier) {
    case mad::sm_info_ctl::handover:
      if (!from_master) return illegal(), o;
      s.p.info.state = SmState::standby;  // what it becomes now
      if (state_ == SmState::standby) {
        out.note(Note::Kind::handover, fmt::format("SM {} handed the subnet over", sender.guid));
        handed_over_.insert(sender.guid);
        enter_master(now, out);
      } else if (state_ == SmState::discovering) {
        out.note(Note::Kind::handover, fmt::format("SM {} handed the subnet over while this SM discovers", sender.guid));
        handed_over_.insert(sender.guid);
      } else if (state_ == SmState::master) {
        out.note(Note::Kind::handover, fmt::format("split brain over: SM {} handed its part of the subnet over", sender.guid));
        ++act_count_;
        out.act(Action::Kind::acknowledge, sender.guid);
        out.act(Action::Kind::resweep);
      } else {
        illegal();
      }
      return o;
    case mad::sm_info_ctl::acknowledge:
      if (state_ == SmState::master && handover_to_ && *handover_to_ == sender.guid) {
        // The answer to our HANDOVER was lost; its acknowledgement says it landed.
        out.note(Note::Kind::handover, fmt::format("SM {} acknowledged the handover", sender.guid));
        handover_to_.reset();
        handed_over_to(now, sender.guid, out);
      }
      return o;
    case mad::sm_info_ctl::disable:
      if (!from_master || state_ != SmState::standby) return illegal(), o;
      out.note(Note::Kind::state, fmt::format("entering NotActive: disabled by SM {}", sender.guid));
      state_ = SmState::not_active;
      poll_in_flight_ = false;
      watched_ = Guid();
      return o;
    case mad::sm_info_ctl::standby:
      if (!from_master || state_ != SmState::not_active) return illegal(), o;
      enter_standby(now, sender.guid, out);
      return o;
    case mad::sm_info_ctl::discover:
      if (!from_master || (state_ != SmState::standby && state_ != SmState::master)) return illegal(), o;
      if (last_discover_ && now - *last_discover_ < cfg_.discover_holdoff) {
        o.status = mad::status::busy;
        if (discovers_refused_++ == 0)
          out.note(Note::Kind::security,
                   fmt::format("{} within {} ms of the last: refused (one full walk per {} ms); further ones in this "
                               "burst not reported",
                               what, std::chrono::duration_cast<std::chrono::milliseconds>(now - *last_discover_).count(),
                               std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.discover_holdoff).count()));
        return o;
      }
      if (discovers_refused_)
        out.note(Note::Kind::security, fmt::format("{} refused {} SMInfo DISCOVER(s) since the last walk it took",
                                                   what, discovers_refused_));
      last_discover_ = now;
      discovers_refused_ = 0;
      enter_discovering(now, out);
      return o;
    default:
      illegal();
      return o;
  }
}

Output Role::sm_port_changed(Nanos now, Guid port) {
  Output out;
  if (state_ == SmState::not_active || port == self_ || port.is_zero()) return out;
  auto [it, fresh] = peers_.try_emplace(port);
  if (fresh) {
    it->second.p.port = port;
    it->second.p.first_seen = now;
  }
  query(out, it->second);
  return out;
}

Output Role::tick(Nanos now) {
  Output out;
  if (state_ == SmState::master) {
    if (now >= next_heartbeat_) {
      ++act_count_;
      next_heartbeat_ = now + heartbeat();
    }
    for (auto& [g, s] : peers_)
      if (!s.in_flight && now >= s.next_check) query(out, s);
  } else if (state_ == SmState::standby && !poll_in_flight_ && now >= next_poll_) {
    send_poll(now, out);
  }
  return out;
}

std::optional<Nanos> Role::next_deadline() const {
  std::optional<Nanos> d;
  auto consider = [&](Nanos t) {
    if (!d || t < *d) d = t;
  };
  if (state_ == SmState::master) {
    consider(next_heartbeat_);
    for (const auto& [g, s] : peers_)
      if (!s.in_flight) consider(s.next_check);
  } else if (state_ == SmState::standby && !poll_in_flight_) {
    consider(next_poll_);
  }
  return d;
}

}  // namespace ha
