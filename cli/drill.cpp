#include "cli/drill.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/verifier.h"

namespace cli {

using namespace std::chrono_literals;

struct Cluster::Slot final : sim::Reactor {
  Cluster* owner = nullptr;
  size_t index = 0;
  DrillSm spec;
  sim::NodeIdx node = sim::kNoNode;
  uint8_t port = 0;
  sm::Logger log;
  std::vector<std::string> lines;
  std::unique_ptr<sim::SimTransport> transport;
  std::unique_ptr<service::Service> svc;
  sim::EndpointId ep = sim::kNoEndpoint;
  bool alive = false;

  void on_mad(const mad::Packet& p) override { svc->on_mad(p); }
  void on_tick() override { svc->on_tick(); }
  std::optional<mad::Nanos> next_deadline() const override { return svc->next_deadline(); }
};

Cluster::~Cluster() = default;

mad::Result<std::unique_ptr<Cluster>> Cluster::create(const sim::FabricSpec& spec, const sim::SimConfig& sim_cfg,
                                                       std::vector<DrillSm> sms, sm::Level log_level) {
  std::unique_ptr<Cluster> c(new Cluster());
  auto f = sim::SimFabric::build(spec, sim_cfg);
  if (!f) return std::unexpected(f.error());
  c->fabric_ = std::move(*f);
  c->driver_ = std::make_unique<sim::MultiDriver>(*c->fabric_);
  c->log_level_ = log_level;
  std::set<std::string> used;
  for (size_t i = 0; i < sms.size(); ++i) {
    auto at = c->fabric_->find(sms[i].node);
    if (!at) return mad::fail(mad::Errc::not_found, fmt::format("no node \"{}\" in the fabric", sms[i].node));
    if (!used.insert(sms[i].node).second)
      return mad::fail(mad::Errc::conflict, fmt::format("two SMs on \"{}\": one SM per node", sms[i].node));
    auto s = std::make_unique<Slot>();
    s->owner = c.get();
    s->index = i;
    s->spec = std::move(sms[i]);
    s->node = *at;
    s->port = c->fabric_->node(*at).is_switch() ? 0 : 1;
    // Warnings are kept whatever is shown: the rogue event looks for W0609 too.
    s->log.set_level(std::max(log_level, sm::Level::warn));
    Slot* raw = s.get();
    s->log.set_sink([raw, log_level](sm::Level l, std::string_view line) {
      const double ms = static_cast<double>(raw->owner->now().count()) / 1e6;
      std::string text = fmt::format("[{:9.1f} ms] {}: {}", ms, raw->owner->name(raw->index), line);
      if (l <= log_level) std::fputs((text + "\n").c_str(), stderr);
      if (raw->owner->on_log) raw->owner->on_log(raw->index, l, text);
      raw->lines.push_back(std::move(text));
    });
    c->slots_.push_back(std::move(s));
  }
  return c;
}

std::string Cluster::name(size_t i) const { return fmt::format("sm{}", i + 1); }
bool Cluster::alive(size_t i) const { return slots_[i]->alive; }
sim::NodeIdx Cluster::node_of(size_t i) const { return slots_[i]->node; }
const std::string& Cluster::spec_node(size_t i) const { return slots_[i]->spec.node; }
uint8_t Cluster::priority(size_t i) const { return slots_[i]->spec.cfg.ha.priority; }
bool Cluster::sticky(size_t i) const { return slots_[i]->spec.cfg.ha.sticky; }
const sm::SubnetManager& Cluster::sm(size_t i) const { return slots_[i]->svc->manager(); }
service::Service& Cluster::service(size_t i) { return *slots_[i]->svc; }
void Cluster::add_reactor(sim::EndpointId ep, mad::Reactor& r) { driver_->add(ep, r); }
void Cluster::remove_reactor(sim::EndpointId ep) { driver_->remove(ep); }
const std::vector<std::string>& Cluster::log_lines(size_t i) const { return slots_[i]->lines; }

bool Cluster::start(size_t i) {
  Slot& s = *slots_[i];
  if (s.alive) return true;
  auto ep = fabric_->attach(s.node, s.port);
  if (!ep) return false;  // cannot happen: the port was checked in create() and detached by kill()
  s.transport = std::make_unique<sim::SimTransport>(*fabric_, *ep);
  auto svc = service::Service::create(*s.transport, service::Config{.sm = s.spec.cfg, .db_path = s.spec.db_path,
                                                                .store_thread = s.spec.store_thread, .perf = s.spec.perf,
                                                                .imported_lids = s.spec.imported_lids}, s.log);
  if (!svc) {  // the reason is logged
    fabric_->detach(*ep);
    return false;
  }
  s.ep = *ep;
  fabric_->set_is_sm(s.ep, true);
  s.svc = std::move(*svc);
  s.svc->on_ha_note = [this, i](const ha::Note& n) { ha_events_.push_back(HaEvent{now(), i, n}); };
  s.svc->on_sweep_done = [this, i](const std::shared_ptr<const sm::Subnet>& sn) {
    sweeps_.push_back(Sweep{now(), i, sn->sweep});
  };
  s.alive = true;
  driver_->add(s.ep, s);
  s.svc->start();
  return true;
}

void Cluster::kill(size_t i) {
  Slot& s = *slots_[i];
  if (!s.alive) return;
  s.alive = false;
  driver_->remove(s.ep);
  fabric_->set_is_sm(s.ep, false);
  fabric_->detach(s.ep);
  // The service stays (its counters are read after); nothing drives it any more.
}

void Cluster::run_for(mad::Nanos span, const std::function<bool()>& stop) {
  driver_->run_until(now() + span, stop);
}

bool Cluster::run_until(const std::function<bool()>& cond, mad::Nanos limit) {
  if (cond()) return true;
  driver_->run_until(now() + limit, cond);
  return cond();
}

std::vector<size_t> Cluster::masters() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i]->alive && slots_[i]->svc->manager().state() == mad::SmState::master) out.push_back(i);
  return out;
}

bool Cluster::settled() const {
  for (const auto& s : slots_) {
    if (!s->alive) continue;
    const sm::SubnetManager& m = s->svc->manager();
    const mad::SmState st = m.state();
    if (m.sweeping() || (st != mad::SmState::master && st != mad::SmState::standby)) return false;
    if (st == mad::SmState::master && !m.subnet_up()) return false;
  }
  return true;
}

// --- the drill ------------------------------------------------------------------------------

namespace {

double ms_between(mad::Nanos from, mad::Nanos to) { return static_cast<double>((to - from).count()) / 1e6; }

// What the hosts see, to tell what an event cost them.
struct Snapshot {
  std::map<uint64_t, uint16_t> lids;      // port GUID -> LID (CA ports, switch port 0)
  std::map<uint64_t, uint32_t> rereg;     // CA port GUID -> ClientReregister count
  uint64_t lft_blocks = 0;
  size_t ha_events = 0, sweeps = 0;
  std::vector<size_t> masters;
};

Snapshot take(const Cluster& c) {
  Snapshot s;
  for (const sim::SimNode& n : c.fabric().nodes()) {
    if (n.is_switch()) {
      s.lids[n.guid.value()] = n.ports[0].lid;
      s.lft_blocks += n.sw->lft_blocks_written;
      continue;
    }
    for (const sim::SimPort& p : n.ports) {
      if (p.num == 0) continue;
      s.lids[p.guid.value()] = p.lid;
      s.rereg[p.guid.value()] = p.client_rereg_count;
    }
  }
  s.ha_events = c.ha_events().size();
  s.sweeps = c.sweeps().size();
  s.masters = c.masters();
  return s;
}

// The parts of the fabric (switches join them, CAs end them) the live SMs sit in: SM index
// -> part number (numbered in SM order).
std::map<size_t, size_t> parts_of_sms(const Cluster& c) {
  const sim::SimFabric& f = c.fabric();
  std::vector<size_t> part(f.nodes().size(), SIZE_MAX);
  size_t parts = 0;
  std::map<size_t, size_t> out;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!c.alive(i)) continue;
    const sim::NodeIdx start = c.node_of(i);
    if (part[start] == SIZE_MAX) {
      std::vector<sim::NodeIdx> queue{start};
      part[start] = parts;
      for (size_t h = 0; h < queue.size(); ++h) {
        const sim::SimNode& n = f.node(queue[h]);
        if (!n.is_switch() && h > 0) continue;  // a CA does not forward
        for (const sim::SimPort& p : n.ports)
          if (p.num != 0 && p.link_up() && part[p.peer] == SIZE_MAX) {
            part[p.peer] = parts;
            queue.push_back(p.peer);
          }
      }
      ++parts;
    }
    out[i] = part[start];
  }
  return out;
}

std::string note_line(const Cluster& c, const Cluster::HaEvent& e, mad::Nanos t0) {
  return fmt::format("+{:.1f} ms {}: {}", ms_between(t0, e.at), c.name(e.sm), e.note.text);
}

// The switch ports that cut `node` (a CA: its leaf switch) off from the rest of the fabric:
// every switch-to-switch link of that switch.
std::vector<std::pair<sim::NodeIdx, uint8_t>> isolating_cut(const sim::SimFabric& f, sim::NodeIdx node) {
  sim::NodeIdx sw = node;
  if (!f.node(node).is_switch()) {
    for (const sim::SimPort& p : f.node(node).ports)
      if (p.num != 0 && p.cable_node != sim::kNoNode && f.node(p.cable_node).is_switch()) {
        sw = p.cable_node;
        break;
      }
  }
  std::vector<std::pair<sim::NodeIdx, uint8_t>> cut;
  if (!f.node(sw).is_switch()) return cut;
  for (const sim::SimPort& p : f.node(sw).ports)
    if (p.num != 0 && p.link_up() && f.node(p.peer).is_switch()) cut.emplace_back(sw, p.num);
  return cut;
}

class Drill {
 public:
  Drill(Cluster& c, const DrillOptions& o) : c_(c), o_(o) {}

  mad::Result<DrillResult> run() {
    DrillResult out;
    for (size_t i = 0; i < c_.size(); ++i)
      out.sms.push_back(fmt::format("{}@{} priority {}{}", c_.name(i), c_.spec_node(i),
                                    c_.priority(i), c_.sticky(i) ? " sticky" : ""));
    t0_ = c_.now();
    Snapshot before = take(c_);
    for (size_t i = 0; i < c_.size(); ++i) c_.start(i);
    c_.run_until([&] { return c_.settled() && c_.masters().size() == 1; }, 60s);
    c_.run_for(o_.settle / 3);
    out.bring_up = measure("start", fmt::format("{} SMs start at once", c_.size()), t0_, before);
    for (const std::string& e : o_.events) {
      auto r = event(e);
      if (!r) return std::unexpected(r.error());
      out.events.push_back(std::move(*r));
    }
    return out;
  }

 private:
  mad::Result<EventResult> event(const std::string& what) {
    const Snapshot before = take(c_);
    const mad::Nanos at = c_.now();
    std::string detail;
    std::optional<RogueResult> rogue;
    const std::vector<size_t> masters = c_.masters();
    if (what == "kill" || what == "kill-standby") {
      std::optional<size_t> victim;
      if (what == "kill" && !masters.empty()) victim = masters.front();
      for (size_t i = c_.size(); what == "kill-standby" && i-- > 0;)
        if (c_.alive(i) && c_.sm(i).state() != mad::SmState::master) {
          victim = i;
          break;
        }
      if (!victim) return mad::fail(mad::Errc::invalid, fmt::format("drill event {}: no SM to kill", what));
      c_.kill(*victim);
      killed_.push_back(*victim);
      detail = fmt::format("{} ({}) killed", c_.name(*victim), what == "kill" ? "master" : "standby");
    } else if (what == "return") {
      if (killed_.empty()) return mad::fail(mad::Errc::invalid, "drill event return: no SM was killed before");
      const size_t back = killed_.back();
      killed_.pop_back();
      c_.start(back);
      detail = fmt::format("{} restarted", c_.name(back));
    } else if (what == "partition") {
      if (masters.empty()) return mad::fail(mad::Errc::invalid, "drill event partition: no master");
      cut_ = isolating_cut(c_.fabric(), c_.node_of(masters.front()));
      if (cut_.empty()) return mad::fail(mad::Errc::invalid, "drill event partition: the master's switch has no switch links");
      for (const auto& [n, p] : cut_) (void)c_.fabric().link_down(n, p);
      detail = fmt::format("{} links of {}'s switch {} down", cut_.size(), c_.name(masters.front()),
                           c_.fabric().node(cut_.front().first).name);
    } else if (what == "heal") {
      if (cut_.empty()) return mad::fail(mad::Errc::invalid, "drill event heal: no partition before");
      for (const auto& [n, p] : cut_) (void)c_.fabric().link_up(n, p);
      detail = fmt::format("{} links up again", cut_.size());
      cut_.clear();
    } else if (what == "loss") {
      c_.fabric().set_drop_rate(o_.loss);
      detail = fmt::format("{:.0f}% of MADs lost for {:.1f} s", o_.loss * 100,
                           static_cast<double>(o_.settle.count()) / 1e9);
      c_.run_for(o_.settle);
      c_.fabric().set_drop_rate(0);
    } else if (what == "rogue") {
      if (masters.empty()) return mad::fail(mad::Errc::invalid, "drill event rogue: no master");
      auto r = rogue_attack(c_, masters.front(), o_.rogue);
      if (!r) return std::unexpected(r.error());
      rogue = std::move(*r);
      detail = fmt::format("{} attacks {}", rogue->host, rogue->target);
    } else {
      return mad::fail(mad::Errc::parse, fmt::format("unknown drill event '{}' (kill, kill-standby, return, "
                                                     "partition, heal, loss, rogue)", what));
    }
    c_.run_for(o_.settle);
    EventResult out = measure(what, detail, at, before);
    out.rogue = std::move(rogue);
    return out;
  }

  EventResult measure(const std::string& what, const std::string& detail, mad::Nanos at, const Snapshot& before) {
    EventResult r;
    r.event = what;
    r.detail = detail;
    r.at_ms = ms_between(t0_, at);
    const Snapshot after = take(c_);
    const auto& evs = c_.ha_events();
    std::optional<size_t> new_master;
    bool changed_hands = false;
    for (size_t k = before.ha_events; k < evs.size(); ++k) {
      const Cluster::HaEvent& e = evs[k];
      if (r.notes.size() < 12) r.notes.push_back(note_line(c_, e, at));
      if (e.note.kind == ha::Note::Kind::master_lost) {
        if (!r.detection_ms) r.detection_ms = ms_between(at, e.at);
        changed_hands = true;
      }
      if (e.note.kind == ha::Note::Kind::handover) changed_hands = true;
      if (e.note.kind == ha::Note::Kind::state && e.note.text.starts_with("entering Master") && !r.master_ms) {
        r.master_ms = ms_between(at, e.at);
        new_master = e.sm;
      }
    }
    for (size_t i : after.masters) r.masters.push_back(c_.name(i));
    // The subnet is up again when the master at the end finished a sweep with it up.
    if (changed_hands || new_master)
      for (size_t k = before.sweeps; k < c_.sweeps().size(); ++k) {
        const Cluster::Sweep& s = c_.sweeps()[k];
        if (s.report.up && std::find(after.masters.begin(), after.masters.end(), s.sm) != after.masters.end()) {
          r.up_ms = ms_between(at, s.at);
          break;
        }
      }
    if (what == "loss" && after.masters == before.masters)
      for (size_t k = before.ha_events; k < evs.size(); ++k)
        if (evs[k].note.kind == ha::Note::Kind::master_lost) ++r.false_alarms;
    for (const auto& [guid, lid] : after.lids) {
      auto b = before.lids.find(guid);
      if (b != before.lids.end() && b->second != 0 && lid != b->second) ++r.lids_changed;
    }
    r.lft_blocks = after.lft_blocks - before.lft_blocks;
    for (const auto& [guid, n] : after.rereg) {
      auto b = before.rereg.find(guid);
      if (n > (b == before.rereg.end() ? 0 : b->second)) ++r.rereg_ports;
    }
    const auto parts = parts_of_sms(c_);
    std::map<size_t, size_t> masters_in;
    std::set<size_t> part_ids;
    for (const auto& [sm, part] : parts) {
      part_ids.insert(part);
      if (c_.sm(sm).state() == mad::SmState::master) ++masters_in[part];
    }
    r.partitions = part_ids.size();
    r.one_master = !part_ids.empty();
    for (size_t p : part_ids) r.one_master = r.one_master && masters_in[p] == 1;
    if (o_.verify && r.partitions == 1) r.routed = sim::verify_routing(c_.fabric()).all_routed();
    return r;
  }

  Cluster& c_;
  const DrillOptions& o_;
  mad::Nanos t0_{0};
  std::vector<size_t> killed_;
  std::vector<std::pair<sim::NodeIdx, uint8_t>> cut_;
};

}  // namespace

bool DrillResult::ok() const {
  auto good = [](const EventResult& e) {
    return e.one_master && e.lids_changed == 0 && e.routed.value_or(true) && (!e.rogue || e.rogue->ok());
  };
  if (!good(bring_up)) return false;
  return std::all_of(events.begin(), events.end(), good);
}

mad::Result<DrillResult> run_drill(Cluster& c, const DrillOptions& opts) { return Drill(c, opts).run(); }

}  // namespace cli
