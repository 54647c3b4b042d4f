#include "service/service.h"

#include <chrono>
#include <utility>

#include "sm/guid2lid.h"

namespace service {

namespace {

// Events and SM peers a standby (no sweeps, no commits) keeps are written this often.
constexpr auto kFlushEvery = std::chrono::seconds(2);
// After a sweep of the SM's, no counter sweep starts for this long: its commit, and the hosts'
// SA queries as their ports come up, go first.
constexpr auto kPerfSettle = std::chrono::seconds(1);
// Events kept in memory for the web view (the store keeps them all).
constexpr size_t kRecentEvents = 2000;

int64_t system_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Service::Service(mad::Transport& transport, Config cfg, sm::Logger& log)
    : transport_(transport),
      cfg_(std::move(cfg)),
      log_(log),
      hints_(cfg_.adapt),
      indexer_(sm::Worker::Options{.wait = transport.clock().is_virtual(), .behind = true}) {
  if (!cfg_.wall_ms) cfg_.wall_ms = system_ms;
}

Service::~Service() { log_.set_observer(nullptr); }

mad::Result<std::unique_ptr<Service>> Service::create(mad::Transport& transport, Config cfg, sm::Logger& log) {
  std::unique_ptr<Service> s(new Service(transport, std::move(cfg), log));
  sm::Remembered remembered;
  std::vector<sm::store::SaObject> stored;
  if (!s->cfg_.db_path.empty()) {
    auto r = s->open_store();
    auto objects = r ? s->store_->now([](sm::store::Store& st) { return st.load_sa_objects(); })
                     : mad::Result<std::vector<sm::store::SaObject>>(std::unexpected(r.error()));
    if (!objects) {
      log.error(sm::code::store_open_failed, "store: {}", objects.error().message);
      return std::unexpected(objects.error());
    }
    remembered = std::move(*r);
    stored = std::move(*objects);
  }
  if (!s->cfg_.imported_lids.empty()) {
    const size_t added = sm::merge_imported_lids(remembered.lids, s->cfg_.imported_lids);
    log.info(sm::code::lids_imported, "guid2lid: {} of its {} ports' LIDs taken (the store remembers the others)",
             added, s->cfg_.imported_lids.size());
  }
  s->wire(std::move(remembered), std::move(stored));
  return s;
}

mad::Result<sm::Remembered> Service::open_store() {
  sm::store::OpenReport rep;
  auto s = sm::store::Store::open({.path = cfg_.db_path, .on_corrupt = cfg_.on_corrupt, .group = cfg_.db_group}, &rep);
  if (!s) return std::unexpected(s.error());
  std::unique_ptr<sm::store::Store> st = std::move(*s);
  if (!rep.set_aside.empty())
    log_.error(sm::code::store_set_aside, "store: {} was not a healthy database; kept as {}, starting from the fabric",
               cfg_.db_path, rep.set_aside);
  auto lids = st->load_lids();
  if (!lids) return std::unexpected(lids.error());
  auto tables = st->load_lft_memory();
  if (!tables) return std::unexpected(tables.error());
  log_.info(sm::code::store_opened, "store: {} ({}schema v{}{}): {} LIDs, {} switches' tables known", cfg_.db_path,
            rep.created ? "new, " : "", rep.version,
            rep.from_version && rep.from_version != rep.version ? fmt::format(", upgraded from v{}", rep.from_version)
                                                                : "",
            lids->size(), tables->size());
  auto last = st->last_sweep();
  if (!last) return std::unexpected(last.error());
  store_ = std::make_unique<StoreWriter>(std::move(st), cfg_.store_thread);
  return sm::Remembered{std::move(*lids), std::move(*tables), *last};
}

void Service::wire(sm::Remembered remembered, std::vector<sm::store::SaObject> stored) {
  manager_ = std::make_unique<sm::SubnetManager>(transport_, cfg_.sm, log_, std::move(remembered));
  // One IPoIB broadcast group per ipoib partition of the partitions file.
  multicast_ = std::make_unique<sm::multicast::Multicast>(
      log_, sm::multicast::MulticastConfig{.sa = {.pkt_life = cfg_.sm.ports.subnet_timeout},
                                           .partitions = cfg_.sm.partitions});
  manager_->set_multicast(multicast_.get());
  perf_ = std::make_unique<sm::perfmgr::PerfMgr>(transport_, cfg_.perf, log_, cfg_.wall_ms);
  perf_->on_sweep_done = [this](const std::shared_ptr<const sm::perfmgr::Snapshot>& s) { on_counter_sweep(s); };
  if (cfg_.perf.enabled)
    log_.info(sm::code::perfmgr_started, "perfmgr: counter sweeps every {} s, {} queries in flight{}{}",
              std::chrono::duration_cast<std::chrono::seconds>(cfg_.perf.sweep_time).count(), cfg_.perf.max_outstanding,
              cfg_.perf.ignore_cas ? ", CAs ignored" : "", cfg_.perf.on_standby ? ", on standby too" : "");
  sa_ = std::make_unique<sm::sa::Server>(transport_, log_, cfg_.sa);
  use_qos_policy(cfg_.sm);
  services_ = std::make_unique<sm::sa::Services>(sm::sa::Clocks{transport_.clock(), cfg_.wall_ms});
  subscriptions_ = std::make_unique<sm::sa::Subscriptions>(cfg_.sa.subnet_prefix);
  reporter_ = std::make_unique<sm::sa::Reporter>(transport_, *subscriptions_, log_,
                                                 sm::sa::ReporterConfig{.subnet_prefix = cfg_.sa.subnet_prefix});
  sa_->add_handler(multicast_->mcmember_handler());
  sa_->add_handler(*services_);
  sa_->add_handler(*subscriptions_);
  if (store_) {
    auto keep = [this](sm::store::SaObject o) { notes_.objects.push_back(std::move(o)); };
    services_->on_change = keep;
    subscriptions_->on_change = keep;
    restore_sa_state(stored);
  }
  log_.set_observer([this](sm::Level l, const sm::LogCode& c, std::string_view msg) { on_log(l, c, msg); });
  manager_->on_sweep_done = [this](const std::shared_ptr<const sm::Subnet>& s) { on_sweep(s); };
  manager_->on_sa_mad = [this](const mad::Packet& p) {
    if (p.mad[3] == mad::sa_method::report_resp) reporter_->on_report_resp(p);
    else sa_->on_mad(p);
  };
  manager_->on_notice = [this](const mad::Notice& n) { reporter_->on_notice(n); };
  manager_->on_ha_note = [this](const ha::Note& n) {
    if (on_ha_note) on_ha_note(n);
  };
  next_flush_ = transport_.clock().now() + kFlushEvery;
}

void Service::on_log(sm::Level l, const sm::LogCode& code, std::string_view msg) {
  if (!code.event || l == sm::Level::debug) return;
  const char* level = l == sm::Level::error ? "error" : l == sm::Level::warn ? "warn" : "info";
  sm::store::Event e{wall_ms(), level, code.number, std::string(msg)};
  if (recent_events_.size() == kRecentEvents) recent_events_.pop_front();
  recent_events_.push_back(e);
  ++events_logged_;
  if (store_) notes_.events.push_back(std::move(e));
}

// SA state clients created, as the store has it, replacing what this SM holds: at start, and
// when it becomes master after standing by (with a database the SMs share, the last master's
// groups, services and subscriptions, MLIDs and leases included).
void Service::restore_sa_state(const std::vector<sm::store::SaObject>& objects) {
  std::vector<std::vector<uint8_t>> groups;
  for (const auto& o : objects)
    if (o.kind == "mcgroup") groups.push_back(o.record);
  const size_t g = multicast_->restore(groups), s = services_->load(objects), i = subscriptions_->load(objects);
  if (!objects.empty())
    log_.info(sm::code::sa_state_restored,
              "store: {} multicast group(s), {} service record(s), {} event subscription(s) read back", g, s, i);
}

void Service::log_lids(const sm::Subnet& s) const {
  if (!log_.enabled(sm::Level::debug)) return;
  const sm::Topology& t = *s.topology;
  for (const auto& l : s.sweep.lids.lids) {
    const sm::Node& n = t.node(l.node);
    log_.debug(sm::code::lid_of_port, "LID {} {} {} port {} port-GUID {}", l.lid, n.is_switch() ? "switch" : "ca",
               n.guid, l.port, t.port(l.node, l.port).guid);
  }
}

void Service::note_peers(const std::vector<ha::Peer>& peers) {
  const std::shared_ptr<const sm::Subnet> s = manager_->subnet();
  const mad::Nanos now = transport_.clock().now();
  const int64_t ms_now = wall_ms();
  for (const ha::Peer& p : peers) {
    uint16_t lid = 0;
    if (s && s->lids)
      if (auto it = s->lids->find(p.port); it != s->lids->end()) lid = it->second.lid.value();
    notes_.peers.push_back({.guid = p.port.value(),
                            .lid = lid,
                            .priority = p.info.priority,
                            .state = static_cast<uint8_t>(p.info.state),
                            .act_count = p.info.act_count,
                            .sm_key_ok = p.believed,
                            .heard_ms = ms_now - std::chrono::duration_cast<std::chrono::milliseconds>(now - p.last_heard).count()});
  }
}

// Groups clients created, joined or left go to the store with the next commit or flush.
void Service::note_groups() {
  for (auto& [key, record] : multicast_->take_store_changes())
    notes_.objects.push_back({.kind = "mcgroup", .key = std::move(key), .record = std::move(record)});
}

void Service::write_buffered() {
  note_peers(manager_->ha_role().peers());
  note_groups();
  if (notes_.empty()) return;
  post_store([this](sm::store::Store& st) -> StoreWriter::Done {
    auto f = st.flush_events();
    if (f) return nullptr;
    return [this, why = f.error().message] { log_.error(sm::code::store_flush_failed, "store: {}: {}", cfg_.db_path, why); };
  });
}

void Service::post_store(std::function<StoreWriter::Done(sm::store::Store&)> job) {
  store_->post([notes = std::exchange(notes_, {}), job = std::move(job)](sm::store::Store& st) mutable {
    std::move(notes).into(st);
    return job(st);
  });
}

void Service::flush() {
  if (!store_) return;
  write_buffered();
  store_->drain();
  store_->deliver();
}

void Service::on_sweep(const std::shared_ptr<const sm::Subnet>& s) {
  log_lids(*s);
  perf_settle_until_ = transport_.clock().now() + kPerfSettle;
  // What a master's sweep configured: the SA answers from it, the store commits it. A
  // standby's walk changes nothing it owns (no SA answers); its events still go out.
  const bool configured = manager_->state() == mad::SmState::master && s->configured();
  if (configured && !sa_current_ && store_) {
    sa_current_ = true;
    // The last master may have written other rows: the next commit writes them all.
    auto objs = store_->now([](sm::store::Store& st) {
      st.forget_written();
      return st.load_sa_objects();
    });
    if (objs) restore_sa_state(*objs);
    else log_.error(sm::code::sa_state_not_restored, "store: SA state not read back on taking over: {}", objs.error().message);
  }
  if (configured) {
    index_next_ = s;  // indexed on the worker; the SA answers from the last index meanwhile
    index_if_wanted();
  } else {
    index_next_.reset();
    sa_->set_index(nullptr);  // index_ stays: the next configured sweep is compared with it
  }
  if (store_ && !configured) {
    write_buffered();
  } else if (store_) {
    note_peers(s->sm.peers);
    note_groups();
    post_store([this, s, now = wall_ms()](sm::store::Store& st) {
      auto c = st.commit(*s, now);
      return [this, c = std::move(c), number = s->sweep.number, heavy = s->sweep.heavy] {
        if (!c) {
          store_status_.error = c.error().message;
          ++store_status_.failed_commits;
          log_.error(sm::code::store_commit_failed, "store: {}: commit of sweep {} failed: {}", cfg_.db_path, number,
                     c.error().message);
          return;
        }
        ++store_status_.commits;
        store_status_.last_commit_ms = c->ms;
        store_status_.error.clear();
        log_.info_if(heavy, sm::code::store_committed,
                     "store: sweep {} committed: {} nodes, {} ports, {} LIDs, {} switch tables, {} events, {:.1f} ms",
                     number, c->nodes, c->ports, c->lids, c->switches, c->events, c->ms);
      };
    });
  }
  if (configured) note_hints_in_place(*s);
  if (on_sweep_done) on_sweep_done(s);
}

// One index at a time: a sweep that ends while one is built is indexed after it (only the last).
void Service::index_if_wanted() {
  if (indexer_.busy() || !index_next_) return;
  // The end ports that came and went are found beside it, against the index the SA has now.
  std::function<Indexed()> work = [s = std::exchange(index_next_, nullptr), life = cfg_.sm.ports.switch_life_time,
                                   before = index_] {
    auto ix = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(s, life));
    return Indexed{ix, sm::sa::Reporter::changes(before.get(), *ix), before};
  };
  indexer_.post<Indexed>(std::move(work), [this](Indexed built) { indexed(std::move(built)); });
  // On virtual time the SA answers from the new index in the same turn, as if it cost nothing.
  if (indexer_.waits()) indexer_.poll();
}

void Service::indexed(Indexed built) {
  if (manager_->state() != mad::SmState::master) return;  // stood by meanwhile: no SA answers
  std::shared_ptr<const sm::sa::Index> ix = std::move(built.index);
  if (ix->engine_sls() && sa_->qos_policy() && !qos_sls_unused_said_) {
    qos_sls_unused_said_ = true;
    log_.warn(sm::code::qos_policy_sls_unused, "QoS policy: the routing engine gives SLs of its own (VL layers "
              "that keep its routes free of deadlock): PathRecords answer those, not the policy's");
  }
  // Traps 64/65 for the end ports that came and went (found again if the SA's index changed meanwhile).
  if (built.before == index_) reporter_->on_index(ix, built.changes);
  else reporter_->on_index(index_.get(), ix);
  sa_->set_index(ix);
  // The last references to the index replaced (and to the subnet it was of): tens of ms to free.
  reaper_.drop(std::exchange(index_, std::move(ix)));
  reaper_.drop(std::move(built.before));
}

void Service::use_qos_policy(const sm::SmConfig& sm) {
  auto policy = sm.qos.enabled ? sm.qos_policy : nullptr;
  if (policy)
    log_.info(sm::code::qos_policy_loaded, "QoS policy: {} port groups, {} levels, {} rules; PathRecords answer its SLs",
              policy->groups.size(), policy->levels.size(), policy->rules.size());
  qos_sls_unused_said_ = false;
  sa_->set_qos_policy(std::move(policy));
}

void Service::reconfigure(const sm::SmConfig& next, const sm::perfmgr::Config& perf, const sm::adapt::Config& adapt) {
  manager_->reconfigure(next);
  use_qos_policy(next);
  multicast_->set_partitions(next.partitions);
  perf_->reconfigure(perf);
  hints_.reconfigure(adapt);
}

void Service::begin_turn() {
  if (loop_.begin()) turn_began_ = manager_->progress().phase;
}

// A turn over LoopTimer::kLongTurnMs held every MAD that arrived meanwhile: said, with what it did.
void Service::end_turn() {
  const size_t mads = std::exchange(turn_mads_, 0);
  const double ms = loop_.end([&] {
    const std::string_view now = manager_->progress().phase;
    const std::string sweep = manager_->sweeping() ? fmt::format("sweep {} ", manager_->last_sweep().number) : "";
    return fmt::format("{}{}{}{}, {} MAD(s) in", sweep, turn_began_, now == turn_began_ ? "" : " -> ",
                       now == turn_began_ ? "" : now, mads);
  });
  if (ms > LoopTimer::kLongTurnMs) {
    const TurnCost& c = loop_.last_cost();
    log_.warn(sm::code::loop_turn_long,
              "event loop: a turn of {:.0f} ms ({}; on CPU {:.0f} ms, {} page faults, preempted {} times, blocked {} "
              "times): MADs that arrived meanwhile waited",
              ms, loop_.last_doing(), c.cpu_ms, c.page_faults, c.preempted, c.waited);
  }
}

void Service::on_mad(const mad::Packet& p) {
  begin_turn();
  ++turn_mads_;
  if (p.mad[1] == mad::mgmt_class::perf && perf_->on_mad(p)) return;
  manager_->on_mad(p);
}

// Counter sweeps run between the SM's sweeps, as master (or as standby when told to).
bool Service::perf_may_query() const {
  if (manager_->sweeping()) return false;
  const mad::SmState s = manager_->state();
  return s == mad::SmState::master || (s == mad::SmState::standby && cfg_.perf.on_standby);
}

sm::perfmgr::View Service::perf_view() const {
  sm::perfmgr::View v{.subnet = manager_->subnet(), .may_query = perf_may_query(), .settle_until = perf_settle_until_,
                      .flapping = {}};
  for (const sm::FlapDetector::Flap& f : manager_->flapping()) v.flapping.push_back({{f.node, f.port}, f.changes});
  return v;
}

void Service::on_counter_sweep(const std::shared_ptr<const sm::perfmgr::Snapshot>& s) {
  const mad::Nanos now = transport_.clock().now();
  if (store_) {
    const bool sample = now >= next_sample_;
    if (sample) next_sample_ = now + cfg_.perf.sample_interval;
    const int64_t keep_ms = std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.perf.retention).count();
    post_store([this, s, sample, drop_before = wall_ms() - keep_ms](sm::store::Store& st) {
      auto c = st.commit_counters(*s, sample, drop_before);
      return [this, c = std::move(c), number = s->sweep.number] {
        if (!c) {
          log_.error(sm::code::counters_not_stored, "store: {}: counter sweep {} not stored: {}", cfg_.db_path, number,
                     c.error().message);
          return;
        }
        store_status_.last_counters_ms = c->ms;
        store_status_.counter_rows += c->ports;
      };
    });
  }
  if (manager_->state() == mad::SmState::master) adapt_to(*s);
  if (on_counters) on_counters(s);
}

void Service::adapt_to(const sm::perfmgr::Snapshot& snap) {
  const std::shared_ptr<const sm::Subnet> subnet = manager_->subnet();
  if (!subnet) return;
  auto d = hints_.on_snapshot(snap, *subnet, transport_.clock().now());
  if (!d) return;
  if (d->kind == sm::adapt::Decision::Kind::stop) {
    log_.info(sm::code::traffic_stopped, "traffic hints round {} did not pay: {}", d->round, d->why);
    return;
  }
  if (d->kind == sm::adapt::Decision::Kind::release) {
    log_.info(sm::code::traffic_released, "traffic hints round {}: {} moved route(s) given back: {}", d->round,
              manager_->pinned(), d->why);
  } else {
    std::string hot;
    for (const sm::adapt::HotChannel& c : d->hot)
      hot += fmt::format("{}\"{}\"[{}] -> \"{}\"[{}] {:.0f}%", hot.empty() ? "" : "; ", c.from.description, c.from.port,
                         c.to.description, c.to.port, c.utilisation * 100);
    log_.info(sm::code::traffic_round, "traffic hints round {}: moving routes: {}; every hot channel: {}", d->round, d->why,
              hot);
  }
  manager_->set_traffic_hints(std::move(d->load), d->round);
}

// The first sweep up with a round's hints: what it moved and what it wrote.
void Service::note_hints_in_place(const sm::Subnet& s) {
  hints_.on_sweep(s);
  const uint64_t g = s.sweep.hints_generation;
  if (g == 0 || g == hints_noted_ || !s.sweep.up || !s.configured()) return;
  hints_noted_ = g;
  log_.info(sm::code::traffic_round_done,
            "traffic hints round {} in place (sweep {}): {} hot channel(s), {} destination(s) moved, {} LFT entries, "
            "{} LFT blocks written", g, s.sweep.number, s.sweep.hinted_links, s.sweep.moved_destinations,
            s.sweep.moved_entries, s.sweep.program.lft_blocks_written);
}

void Service::on_tick() {
  begin_turn();
  tick();
  // Waits for the worker stand for no work only where time stands still with them (virtual
  // time); elsewhere (the inline drill) the loop was silent all along: counted.
  const double waited = manager_->take_waited_ms() + indexer_.take_waited_ms();
  if (transport_.clock().is_virtual()) loop_.exclude(waited);
  end_turn();
}

void Service::tick() {
  indexer_.poll();
  index_if_wanted();
  manager_->on_tick();
  const mad::SmState state = manager_->state();
  if (state != mad::SmState::master) {
    if (state == mad::SmState::standby) sa_current_ = false;
    sa_->set_index(nullptr);
    index_next_.reset();
    if (index_) {  // a new master has no earlier view to compare with
      index_.reset();
      reporter_->on_index(nullptr, nullptr);
    }
  }
  if (store_) store_->deliver();  // what the store's jobs left: their results logged, counted
  perf_->on_tick(perf_view());
  if (perf_->isolation_epoch() != isolation_epoch_ && state == mad::SmState::master) {
    isolation_epoch_ = perf_->isolation_epoch();
    manager_->set_isolated(perf_->isolated());
  }
  // Through sweeps too: the SA answers from the last subnet it indexed until the next index is
  // in (held until a sweep's end, queries at 32k CAs waited seconds and timed out).
  sa_->on_tick();
  services_->expire();
  reporter_->on_tick();
  const mad::Nanos now = transport_.clock().now();
  if (store_ && !manager_->sweeping() && now >= next_flush_) {
    next_flush_ = now + kFlushEvery;
    write_buffered();
  }
}

std::optional<mad::Nanos> Service::next_deadline() const {
  std::optional<mad::Nanos> d = manager_->next_deadline();
  auto consider = [&](std::optional<mad::Nanos> t) {
    if (t && (!d || *t < *d)) d = t;
  };
  consider(sa_->next_deadline());
  consider(reporter_->next_deadline());
  consider(indexer_.next_poll(transport_.clock().now()));
  consider(services_->next_expiry());
  consider(perf_->next_deadline(perf_may_query(), perf_settle_until_));
  if (store_ && !manager_->sweeping()) consider(next_flush_);
  return d;
}

}  // namespace service
