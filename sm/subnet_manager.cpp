#include "sm/subnet_manager.h"

#include "mad/attributes.h"
#include "sm/topology_changes.h"

namespace sm {

SubnetManager::SubnetManager(mad::Transport& transport, SmConfig cfg, Logger& log, Remembered remembered)
    : transport_(transport),
      cfg_(std::move(cfg)),
      log_(log),
      tx_(transport, cfg_.mads),
      keys_(cfg_.ports.m_key, cfg_.m_key_secret),
      client_(tx_, &keys_),
      lids_(cfg_.ports.lmc, std::move(remembered.lids)),
      lft_memory_(std::move(remembered.lfts)),
      clock_(transport.clock()),
      pending_({cfg_.trap_coalesce, cfg_.retry_interval, cfg_.sweep_interval}),
      flaps_(cfg_.flap_threshold, cfg_.flap_window),
      ha_host_(transport, tx_, log, keys_,
               HaHost::Hooks{[this] { ha_discover(); }, [this] { ha_become_master(); },
                             [this] { ha_stand_by(); },
                             [this] { request_sweep("another master handed its part of the subnet over"); },
                             [this](const ha::Note& n) {
                               if (on_ha_note) on_ha_note(n);
                             }}),
      ha_(ha_host_, cfg_.ha),
      worker_(Worker::Options{.wait = transport.clock().is_virtual() || cfg_.inline_worker,
                              .wait_limit = cfg_.worker_wait_limit}) {
  sweep_base_ = remembered.last_sweep;
}

void SubnetManager::start() {
  log_.info(code::starting, "starting: routing {}, {} SMPs in flight, priority {}{}", cfg_.routing_engine,
            cfg_.mads.window, cfg_.ha.priority, cfg_.ha.sticky ? ", sticky" : "");
  ha_.start();  // Discovering: the agent asks for the first walk
}

void SubnetManager::request_sweep(std::string why, bool verify) {
  if (verify) verify_next_heavy_ = true;
  if (!master_ && ha_.state() != mad::SmState::discovering) {
    log_.debug(code::sweep_not_run, "heavy sweep not run: {} (this SM is {})", why, mad::sm_state_name(ha_.state()));
    return;
  }
  log_.info(code::sweep_requested, "heavy sweep requested: {}", why);
  pending_.want_heavy(std::move(why));
  if (!sweeping_) start_next_if_wanted();
}

bool SubnetManager::reconfigure(const SmConfig& next) {
  PortPolicy ports = next.ports;
  ports.lmc = cfg_.ports.lmc;  // the LID manager's LMC is fixed: another one is a restart
  // So are the keys: the Sets that would change them carry the keys the ports hold now.
  ports.m_key = cfg_.ports.m_key;
  ports.m_key_lease = cfg_.ports.m_key_lease;
  ports.m_key_protect = cfg_.ports.m_key_protect;
  const bool reroute = next.routing_engine != cfg_.routing_engine || !(next.routing == cfg_.routing) ||
                       !(ports == cfg_.ports);
  cfg_.routing_engine = next.routing_engine;
  cfg_.routing = next.routing;
  cfg_.repair_routes = next.repair_routes;
  cfg_.ports = ports;
  cfg_.sweep_interval = next.sweep_interval;
  cfg_.lft_verify_pass = next.lft_verify_pass;
  cfg_.lft_verify_max = next.lft_verify_max;
  cfg_.retry_interval = next.retry_interval;
  cfg_.worker_timeout = next.worker_timeout;
  pending_.set_timing({cfg_.trap_coalesce, cfg_.retry_interval, cfg_.sweep_interval});
  const bool repartition = !(next.partitions == cfg_.partitions);
  cfg_.partitions = next.partitions;
  const bool requos = !(next.qos == cfg_.qos);
  cfg_.qos = next.qos;
  if (reroute) {
    routed_.reset();  // routes made under the old settings are no base for a repair
    request_sweep("configuration reloaded");
  } else if (repartition) {
    request_sweep("partitions changed");
  } else if (requos) {
    request_sweep("QoS tables changed");
  }
  return reroute || repartition || requos;
}

void SubnetManager::begin_sweep(bool heavy, std::string trigger) {
  sweeping_ = true;
  ++sweeps_;
  report_ = SweepReport{};
  report_.number = sweep_base_ + sweeps_;
  report_.heavy = heavy;
  report_.trigger = std::move(trigger);
  tables_.reset();
  blocking_holes_ = 0;
  retry_.clear();
  retry_in_part_ = retry_all_ = false;
  keys_checked_ = false;
  mads_at_start_ = tx_.stats();
  clock_.start_sweep();
  phase_ = heavy ? "discovery" : "re-reading changed switches";
}

void SubnetManager::heavy_sweep(std::string trigger) {
  pending_.heavy_started();
  begin_sweep(true, std::move(trigger));
  discovery_ = std::make_unique<Discovery>(client_, log_, model_, left_out_);
  discovery_->start_full([this] { after_discovery(); });
}

void SubnetManager::incremental_sweep(PendingSweeps::Next what) {
  begin_sweep(false, std::move(what.why));
  report_.refreshed = what.switches.size();
  discovery_ = std::make_unique<Discovery>(client_, log_, model_, left_out_);
  // Traps are held while the worker re-routes the model; nothing else on the loop touches it.
  discovery_->set_offload([this](std::function<void()> work, std::function<void()> then) {
    post_job_or_run<bool>(
        "re-routing the walk", [work = std::move(work)] { return work(), true; },
        [then = std::move(then)](bool) { then(); });
  });
  discovery_->start_refresh(what.switches, [this] { after_discovery(); });
}

void SubnetManager::after_discovery() {
  if (discovery_->summary().stale_path) {  // the partial walk could not trust its routes: walk it all
    discovery_.reset();
    sweeping_ = false;
    --sweeps_;
    heavy_sweep("routes changed under a partial sweep");
    return;
  }
  note_port_changes(discovery_->summary().port_changes);
  // The walk's end and the snapshot grow with the fabric (about 50 and 100 ms at 43k nodes):
  // on the worker, the model borrowed (they fill holes, prune, canonicalise paths; nothing on
  // the loop touches the model meanwhile) and the discovery given away, so that the model it
  // replaced is freed there too. So are what changed since the last sweep's and the SM ports
  // the snapshot shows.
  post_job<Walked>(
      "the topology snapshot",
      [&model = model_, before = topo_, discovery = std::shared_ptr<Discovery>(std::move(discovery_))]() mutable {
        Walked w;
        w.walk = discovery->settle();
        discovery.reset();
        w.topo = std::make_shared<Topology>(model.snapshot());
        if (before) w.changes = topology_changes(*before, *w.topo);
        w.scan = HaHost::scan(*w.topo, model);
        return w;
      },
      [this](Walked w) { learn_walk_paths(std::make_shared<Walked>(std::move(w)), 0); });
}

// The key ring learns the walk's paths a slice of nodes per loop turn (43k paths: 20 ms), then
// the sweep goes on.
void SubnetManager::learn_walk_paths(std::shared_ptr<Walked> w, NodeId from) {
  constexpr size_t kSlice = 4096;
  const Topology& walk = *w->topo;
  const size_t n = walk.node_count();
  const auto end = static_cast<NodeId>(keys_.protects() ? std::min(n, size_t{from} + kSlice) : n);
  if (keys_.protects()) learn_paths(walk, from, end);
  if (end < n) return next_turn([this, w, end] { learn_walk_paths(w, end); });
  walked(std::move(*w));
}

void SubnetManager::walked(Walked w) {
  const WalkSummary& walk = w.walk;
  walked_ = std::move(w.topo);
  const std::shared_ptr<const Topology> before = std::exchange(topo_, walked_);
  if (mc_) mc_->topology_changed();
  const Topology& t = *topo_;
  report_.discovery = clock_.phase();
  report_.nodes = t.node_count();
  report_.switches = t.switches().size();
  report_.cas = t.cas().size();
  report_.links = t.link_count();
  report_.pruned = walk.pruned.size();
  report_.problems = walk.problems;
  if (report_.heavy)
    log_.info(code::discovered, "sweep {}: discovery: {} switches, {} CAs, {} links, {} SMPs, {} unanswered, {:.1f} ms",
              report_.number, report_.switches, report_.cas, report_.links, walk.smps, walk.unanswered,
              report_.discovery.wall_ms);
  else
    log_.info(code::refreshed,
              "sweep {} ({}): re-read {} switch(es), {} node(s) re-read or found, {} gone, {} SMPs, {:.1f} ms",
              report_.number, report_.trigger, report_.refreshed, walk.changed.size(), walk.pruned.size(), walk.smps,
              report_.discovery.wall_ms);
  note_holes(walk);
  for (Guid g : walk.pruned) lft_memory_.erase(g);
  if (before) log_changes(w.changes);
  if (t.sm_node() == kNoNode) {
    finish(false, "the SM's own port did not answer");
    return;
  }
  port_guid_ = t.port(t.sm_node(), t.sm_port()).guid;
  ha_.set_self(port_guid_);
  ha_host_.set_self(port_guid_);
  elect(w.scan);
}

// The first sweep of a run has nothing to compare with: its discovery line says what is there.
void SubnetManager::log_changes(const std::vector<TopologyChange>& changes) {
  constexpr size_t kMaxLines = 32;  // a switch that reboots takes all its cables with it
  for (size_t i = 0; i < changes.size() && i < kMaxLines; ++i) {
    const TopologyChange& c = changes[i];
    switch (c.kind) {
      case TopologyChange::Kind::node_gone: log_.warn(code::node_unreachable, "node gone: {}", c.text); break;
      case TopologyChange::Kind::node_new: log_.info(code::node_appeared, "node new: {}", c.text); break;
      case TopologyChange::Kind::link_down: log_.warn(code::link_down, "link down: {}", c.text); break;
      case TopologyChange::Kind::link_up: log_.info(code::link_up, "link up: {}", c.text); break;
      case TopologyChange::Kind::link_rate: log_.warn(code::link_rate_changed, "link rate: {}", c.text); break;
    }
  }
  if (changes.size() > kMaxLines)
    log_.info(code::topology_changes_suppressed, "sweep {}: {} more topology changes, not logged one by one",
              report_.number, changes.size() - kMaxLines);
}

void SubnetManager::assign_and_route() {
  clock_.start_phase();
  phase_ = "LIDs";
  // On the worker (30 ms at 43k nodes), the LID manager borrowed: only sweeps use it. The
  // walk's topology takes its LIDs in place when nothing else holds it (the usual case: a
  // sweep publishes only at its end); a copy for the largest fabric costs milliseconds.
  std::shared_ptr<Topology> walked = std::exchange(walked_, nullptr);
  topo_.reset();
  post_job<Addressed>(
      "LID assignment",
      [&lids = lids_, walked = std::move(walked)]() mutable {
        Addressed a;
        LidAssignment partial;
        auto assigned = lids.assign(*walked, &partial);
        if (!assigned) a.error = assigned.error().message;
        a.lids = assigned ? std::move(*assigned) : std::move(partial);
        if (walked.use_count() == 1) *walked = std::move(*walked).with_lids(a.lids.lids);
        else walked = std::make_shared<Topology>(walked->with_lids(a.lids.lids));
        a.topo = std::move(walked);
        return a;
      },
      [this](Addressed a) { addressed(std::move(a)); });
}

void SubnetManager::addressed(Addressed a) {
  if (!a.error.empty()) log_.error(code::lids_exhausted, "{}", a.error);
  report_.lids = std::move(a.lids);
  for (const std::string& note : report_.lids.notes) log_.warn(code::lid_note, "LIDs: {}", note);
  topo_ = std::move(a.topo);
  if (keys_.protects())  // traps come LID-routed: their repress carries the issuer's key
    for (NodeId id = 0; id < topo_->node_count(); ++id)
      for (const Port& p : topo_->ports(id)) {
        const Guid g = p.guid.is_zero() ? topo_->node(id).guid : p.guid;
        if (p.lid.is_unicast())
          for (uint32_t k = 0; k < (1u << p.lmc); ++k)  // each LID of its range
            keys_.learn_lid(Lid(static_cast<uint16_t>(p.lid.value() + k)), g);
      }
  report_.max_lid = topo_->max_lid().value();
  report_.lid_assignment = clock_.phase();
  log_.info_if(report_.heavy || report_.lids.changed, code::lids_assigned,
               "sweep {}: LIDs: {} kept, {} restored, {} new, {} changed, max LID {}, {:.1f} ms", report_.number,
               report_.lids.kept, report_.lids.restored, report_.lids.fresh, report_.lids.changed, report_.max_lid,
               report_.lid_assignment.wall_ms);
  clock_.start_phase();
  phase_ = "routing";
  route();
}

// Full routing is a function of the fabric alone; repaired tables also depend on the routes
// they started from. That is the price of a reaction that writes only what a failure broke,
// and it is paid back at the next full route: anything a repair cannot express (a link or
// node coming back, a LID moving) routes in full, so a returning cable restores exactly the
// bring-up's tables, and so does every heavy sweep (as OpenSM re-routes on each). A sweep
// that finds nothing changed repairs nothing, so a repaired fabric is not rewritten for
// balance at a random later moment.
void SubnetManager::route() {
  RouteInput in;
  in.topo = topo_;
  for (const auto& [g, p] : isolated_) in.isolated.emplace_back(g, PortNum(p));  // health findings
  in.chain = cfg_.routing_engine;
  in.opts = cfg_.routing;
  in.max_vls = [ports = cfg_.ports, qos = cfg_.qos](const Topology& t) { return routing_max_vls(t, ports, qos); };
  report_.hints_generation = hints_generation_;
  if (cfg_.repair_routes && !report_.heavy && routed_) {  // an incremental sweep after removals
    const char* why = nullptr;
    if (routed_->chain != cfg_.routing_engine) why = "the routing engine changed";
    else if (report_.lids.changed != 0 || report_.lids.fresh != 0) why = "LIDs changed";
    else if (routed_->hints_generation != hints_generation_ && traffic_.empty()) why = "the traffic hints were given back";
    if (why) log_.debug(code::routing_in_full, "sweep {}: routing in full: {}", report_.number, why);
    else in.repair_from = routed_;
  }
  in.before = routed_;
  in.pins = pins_;
  in.new_round = !routed_ || routed_->hints_generation != hints_generation_;
  if (in.new_round) in.traffic = traffic_;
  in.hints_generation = hints_generation_;
  in.hook = cfg_.routing_hook;
  post_job<RouteOutput>("routing", [in = std::move(in)]() mutable { return route_job(std::move(in)); },
                        [this](RouteOutput r) { routed(std::move(r)); }, false);
}

void SubnetManager::routed(RouteOutput r) {
  report_.routing = clock_.phase();
  if (!master_) {  // stood by while the worker routed: the new master configures
    routed_.reset();
    if (std::exchange(forget_tables_, false)) lft_memory_.clear();
    finish_walk(fmt::format("{} while routing: configured by another SM", mad::sm_state_name(ha_.state())));
    return;
  }
  if (!r.no_repair.empty())
    log_.debug(code::no_repair, "sweep {}: routing in full, no repair: {}", report_.number, r.no_repair);
  for (const std::string& why : r.passed_over) log_.warn(code::engine_passed_over, "routing: passed over {}", why);
  if (!r.tables) {
    routed_.reset();
    log_.error(code::routing_failed, "routing: {}", r.error);
    finish(false, "routing failed: " + r.error);
    return;
  }
  report_.engine = r.engine;
  if (r.repaired) {
    report_.repaired = true;
    report_.repaired_destinations = r.repaired_destinations;
    report_.repaired_entries = r.repaired_entries;
    log_.info(code::repaired,
              "sweep {}: routing: {} repair, {} destination(s) re-routed, {} LFT entries changed, {:.1f} ms",
              report_.number, report_.engine, r.repaired_destinations, r.repaired_entries, r.routing_ms);
  } else {
    log_.info(code::routed, "sweep {}: routing: {} over {} switches, LIDs 1..{}, {:.1f} ms", report_.number,
              report_.engine, report_.switches, report_.max_lid, r.routing_ms);
  }
  tables_ = r.tables;
  note_traffic(r);
  layers_.reset();
  if (tables_->has_sls()) layers_ = vl_layers(tables_->vls_used(), r.max_vls);
  routed_ = Routed{r.over, tables_, report_.engine, cfg_.routing_engine, hints_generation_};
  program();
}

// A routing job past its deadline (a hung engine): the loop is alive and answers, so no
// standby would notice; this SM says so and steps down, handing the subnet to a standby.
void SubnetManager::check_worker() {
  if (!worker_.busy() || now() < job_due_) return;
  worker_.abandon();
  wedged_ = true;
  routed_.reset();
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(cfg_.worker_timeout).count();
  log_.error(code::worker_hung, "sweep {}: {} ({}) did not end within {} s: abandoned; this SM steps down so "
             "that a standby takes the subnet over", report_.number, job_what_, cfg_.routing_engine, s);
  finish(false, fmt::format("{} did not end within {} s", job_what_, s));
  ha_.step_down(fmt::format("its {} did not end", job_what_));
}

void SubnetManager::finish(bool up, std::string failure) {
  report_.up = up;
  report_.failure = std::move(failure);
  report_.total = clock_.sweep();
  const auto& st = tx_.stats();
  report_.smps_sent = st.sent - mads_at_start_.sent;
  report_.smps_retried = st.retried - mads_at_start_.retried;
  report_.smps_timed_out = st.timed_out - mads_at_start_.timed_out;
  phase_ = "publishing";  // still sweeping until published: nothing new starts meanwhile
  if (blocking_holes_ > 0) {  // whatever else went wrong, most likely for the same loss
    const std::string why = fmt::format("discovery incomplete: {} read(s) unanswered", blocking_holes_);
    report_.failure = report_.failure.empty() ? why : report_.failure + "; " + why;
    up = report_.up = false;
    retry_in_part_ = true;
  }
  if (up && master_) {
    if (!up_)
      log_.info(code::subnet_up, "SUBNET UP: {} switches, {} CAs, {} SMPs, {:.1f} ms", report_.switches, report_.cas,
                report_.smps_sent, report_.total.wall_ms);
    else
      log_.info(code::sweep_done, "sweep {} done ({}): {} SMPs, {} LFT blocks, {:.1f} ms", report_.number,
                report_.heavy ? "heavy" : "incremental", report_.smps_sent, report_.program.lft_blocks_written,
                report_.total.wall_ms);
    up_ = true;
  } else if (!up) {
    log_.error(code::sweep_failed, "sweep {} did not bring the subnet up: {}", report_.number, report_.failure);
  }
  const bool failed = !up && (master_ || ha_.state() == mad::SmState::discovering);
  if (failed && master_ && retry_in_part_ && !retry_all_ && !retry_.empty()) {
    // Only what did not answer or take its Set: re-read and program those nodes again.
    pending_.swept(false, now());
    pending_.retry(std::vector<Guid>(retry_.begin(), retry_.end()), now());
  } else {
    pending_.swept(failed, now());
  }
  publish([this] { start_next_if_wanted(); });
}

void SubnetManager::publish(std::function<void()> then) {
  auto s = std::make_shared<Subnet>();
  s->sweep = report_;
  s->topology = topo_ ? topo_ : std::make_shared<const Topology>();
  s->tables = tables_;
  if (tables_ && layers_) s->multicast_sl = layers_->multicast_sl;
  s->lids = lids_.shared_map();
  const Topology& t = *s->topology;
  s->mfts.resize(t.node_count());
  if (mc_)  // the multicast tables are the service's, the SA's joins change them: read here
    for (NodeId sw : t.switches()) s->mfts[sw] = mc_->memory_of(t.node(sw).guid);
  s->sm.state = ha_.state();
  s->sm.info = ha_.role().self_info(false);
  s->sm.port_guid = port_guid_;
  if (t.sm_node() != kNoNode) s->sm.lid = t.port(t.sm_node(), t.sm_port()).lid;
  s->sm.up = up_;
  s->sm.sweeps = sweeps_;
  s->sm.peers = ha_.role().peers();
  s->sm.mkey_violations = violations_seen_;
  s->sm.bad_mkey_traps = bad_mkey_traps_;
  s->sm.mkey_refusing = keys_.refusing_count();
  // A reference to each node's records and memories: 13 ms at 43k nodes, on the worker (the
  // model and memories borrowed: the sweep lasts until it is published, so nothing that
  // changes them starts meanwhile).
  auto share = [s, &model = std::as_const(model_), &pkeys = std::as_const(pkey_memory_),
                &lfts = std::as_const(lft_memory_)] {
    const Topology& topo = *s->topology;
    s->nodes.resize(topo.node_count());
    s->pkeys.resize(topo.node_count());
    s->lfts.resize(topo.node_count());
    for (NodeId id = 0; id < topo.node_count(); ++id) {
      s->nodes[id] = model.share(topo.node(id).guid);
      s->pkeys[id] = pkeys.share(topo.node(id).guid);
    }
    for (NodeId sw : topo.switches()) s->lfts[sw] = lfts.share(topo.node(sw).guid);
    return s;
  };
  auto done = [this, then = std::move(then)](std::shared_ptr<Subnet> made) {
    sweeping_ = false;
    phase_ = "idle";
    reaper_.drop(std::exchange(published_, std::move(made)));
    if (on_sweep_done) on_sweep_done(published_);
    then();
  };
  post_job_or_run<std::shared_ptr<Subnet>>("publishing", std::move(share), std::move(done));
}

void SubnetManager::start_next_if_wanted() {
  if (sweeping_ || wedged_) return;
  if (!master_ && ha_.state() != mad::SmState::discovering) {
    pending_.drop_heavy();
    return;
  }
  PendingSweeps::Next next = pending_.after_sweep(now());
  if (next.kind == PendingSweeps::Next::Kind::heavy) heavy_sweep(std::move(next.why));
  else if (next.kind == PendingSweeps::Next::Kind::incremental) incremental_sweep(std::move(next));
}

void SubnetManager::mark_dirty(Guid sw, std::string why) {
  if (master_) pending_.mark_dirty(sw, std::move(why), now());
}

void SubnetManager::note_port_changes(const std::vector<std::pair<Guid, uint8_t>>& changes) {
  for (const FlapDetector::Flap& f : flaps_.note(changes, now())) {
    const NodeRec* n = model_.find(f.node);
    log_.warn(code::flapping, "port {}[{}] ({}) is flapping: {} state changes in {} s", f.node, f.port,
              n ? n->description : "?", f.changes,
              std::chrono::duration_cast<std::chrono::seconds>(flaps_.window()).count());
  }
}

void SubnetManager::start_light_sweep() {
  std::vector<std::pair<Guid, DrPath>> switches;
  switches.reserve(topo_->switches().size());  // one block, not a dozen copies (ms at 3,645 switches)
  for (NodeId id : topo_->switches()) switches.emplace_back(topo_->node(id).guid, topo_->node(id).path);
  light_ = std::make_unique<LightSweep>(client_);
  light_->start(switches, [this] {
    const LightSweep::Result r = light_->result();
    light_.reset();
    pending_.light_done(now());
    check_is_sm(r);
    check_rogue(r);
    log_.debug(code::light_sweep, "light sweep: {} switches, {} changed, {} silent", r.smps, r.changed.size(),
               r.silent.size());
    if (!r.silent.empty()) {  // gone, or its route is: only a full walk can tell
      request_sweep(fmt::format("light sweep: {} switch(es) did not answer", r.silent.size()));
      return;
    }
    for (Guid g : r.changed) mark_dirty(g, "light sweep: port state changed");
    if (!r.changed.empty())
      log_.info(code::light_sweep_changes, "light sweep: {} switch(es) report port state changes", r.changed.size());
    else if (rogue_.empty())
      verify_lfts();
  }, topo_->sm_node() != kNoNode ? std::optional<uint8_t>(topo_->sm_port().value()) : std::nullopt);
}

void SubnetManager::on_mad(const mad::Packet& p) {
  if (tx_.on_receive(p)) return;
  const uint8_t cls = p.mad[1];
  if (cls == mad::mgmt_class::subn_adm) {
    if (on_sa_mad) on_sa_mad(p);
    return;
  }
  if (cls != mad::mgmt_class::subn_directed_route && cls != mad::mgmt_class::subn_lid_routed) return;
  auto smp = mad::decode_smp(p.mad);
  if (!smp) {
    log_.warn(code::malformed_smp, "dropped a malformed SMP: {}", smp.error().message);
    return;
  }
  if (mad::method::is_response(smp->method)) return;  // late answer to a finished request
  if (smp->attr_id == mad::attr::sm_info) {
    if (smp->method == mad::method::get || smp->method == mad::method::set) ha_host_.answer(p, *smp, ha_);
  } else if (smp->method == mad::method::trap && smp->attr_id == mad::attr::notice) {
    if (worker_.busy()) held_traps_.push_back(p);  // what it changes, the worker may be reading
    else on_trap(p, *smp);
  }
}

void SubnetManager::on_trap(const mad::Packet& p, const mad::Smp& trap) {
  auto notice = mad::decode_attr<mad::Notice>(trap);
  const auto t256 = notice && notice->is_trap(mad::trap::bad_m_key) ? notice->trap256() : std::nullopt;
  // Acknowledge it, or the sender repeats it; but not a port that refused this SM's own SMP:
  // it would refuse the repress too, and trap again at once.
  if (!t256 || !own_bad_mkey(*notice, *t256)) {
    mad::Smp repress = trap;
    repress.method = mad::method::trap_repress;
    repress.mkey = keys_.for_lid(p.addr.lid);  // TrapRepress is checked against the issuer's key
    mad::Packet out;
    out.mad = mad::encode_smp(repress);
    out.addr = p.addr;
    (void)transport_.send(out);
  }
  if (!notice) {
    log_.warn(code::malformed_trap, "malformed trap from LID {}: {}", p.addr.lid, notice.error().message);
    return;
  }
  const uint16_t number = notice->trap_or_device_id;
  log_.info(code::trap, "trap {} ({}) from LID {}", number, mad::trap_name(number), notice->issuer_lid);
  if (notice->is_trap(mad::trap::link_state_change)) {
    const auto t128 = notice->trap128();
    const Guid sw = model_.switch_by_lid(t128 ? t128->lid : notice->issuer_lid, topo_.get());
    if (sw.is_zero())
      request_sweep(fmt::format("trap 128 from unknown LID {}", notice->issuer_lid));
    else
      mark_dirty(sw, fmt::format("trap 128 from LID {}", notice->issuer_lid));
  } else if (notice->is_trap(mad::trap::local_changes) && topo_) {
    // A port's capabilities changed (an SM came, went or changed priority): nothing to
    // re-route; the HA agent reads that SM's SMInfo.
    const auto t144 = notice->trap144();
    const Guid port = ha_host_.port_by_lid(*topo_, t144 ? t144->lid : notice->issuer_lid);
    log_.debug(code::trap_144, "trap 144 from LID {} (port {})", notice->issuer_lid, port);
    if (!port.is_zero()) ha_.sm_port_changed(port);
  } else if (t256) {
    on_bad_mkey(*notice, *t256);
  }
  if (on_notice) on_notice(*notice);
}

SubnetManager::Progress SubnetManager::progress() const {
  const auto& st = tx_.stats();
  Progress p;
  p.phase = phase_;
  if (programmer_) {
    const auto pp = programmer_->progress();
    p.phase = pp.stage == 2 ? "activating ports" : "programming";
    p.done = pp.done;
    p.total = pp.total;
    return p;
  }
  // Discovery cannot know how much is left: what is known so far is the total.
  p.done = (st.answered + st.timed_out) - (mads_at_start_.answered + mads_at_start_.timed_out);
  p.total = p.done + tx_.outstanding() + tx_.queued();
  return p;
}

void SubnetManager::on_tick() {
  worker_.poll();
  check_worker();
  if (!worker_.busy() && !held_traps_.empty())
    for (const mad::Packet& p : std::exchange(held_traps_, {})) on_trap(p, *mad::decode_smp(p.mad));
  for (auto& step : std::exchange(next_turn_, {})) step();
  // Stood by while a job read the LFT memory (or the programmer wrote it): forgotten once
  // neither does any more, whichever step of the sweep the standing by met.
  if (forget_tables_ && !worker_.busy() && !programmer_) {
    forget_tables_ = false;
    lft_memory_.clear();
  }
  tx_.on_tick();
  if (port_guid_.is_zero() && !worker_.busy()) learn_own_guid();
  ha_.on_tick();
  if (sweeping_ || light_ || verifier_ || wedged_) return;
  if (master_) key_tick();
  // Joins and leaves since the last pass: one pass for the whole batch.
  if (mc_ && master_ && up_ && topo_ && mc_->wants_programming()) mc_->program(*topo_, model_, client_, false, nullptr);
  PendingSweeps::Next next = pending_.on_tick(now(), master_, up_);
  switch (next.kind) {
    case PendingSweeps::Next::Kind::heavy: heavy_sweep(std::move(next.why)); break;
    case PendingSweeps::Next::Kind::incremental: incremental_sweep(std::move(next)); break;
    case PendingSweeps::Next::Kind::light: start_light_sweep(); break;
    case PendingSweeps::Next::Kind::none: break;
  }
}

std::optional<mad::Nanos> SubnetManager::next_deadline() const {
  std::optional<mad::Nanos> d = tx_.next_deadline();
  auto consider = [&](std::optional<mad::Nanos> t) {
    if (t && (!d || *t < *d)) d = t;
  };
  consider(ha_.next_deadline());
  // The worker's end is seen at the next tick (Worker::next_poll), its deadline at the latest.
  if (auto p = worker_.next_poll(now())) consider(std::min(*p, job_due_));
  if (!next_turn_.empty()) consider(now());
  if (!sweeping_ && !light_ && !verifier_) {
    if (mc_ && master_ && up_ && mc_->wants_programming()) consider(now());
    consider(pending_.next_deadline(master_, up_));
    if (master_) consider(key_retry_at_);
  }
  return d;
}

}  // namespace sm
