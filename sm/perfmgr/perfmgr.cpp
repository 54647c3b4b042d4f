#include "sm/perfmgr/perfmgr.h"

#include <algorithm>

#include "sm/perfmgr/link_check.h"

namespace sm::perfmgr {

namespace {

// Ports the snapshot takes per turn of the loop (a few milliseconds).
constexpr size_t kPublishChunk = 16384;

mad::TransactionConfig tx_config(const Config& c) {
  return {.window = std::max(1, c.max_outstanding),
          .timeout = c.query_timeout,
          .retries = c.query_retries,
          .backoff = 2.0,
          .max_timeout = c.query_timeout * 4};
}

PortEnd end_of(const Topology& t, NodeId id, uint8_t port) {
  const Node& n = t.node(id);
  const Lid lid = t.port(id, PortNum(n.is_switch() ? 0 : port)).lid;
  return {.node = n.guid, .description = n.description, .port = port, .lid = lid.value(), .is_switch = n.is_switch()};
}

bool ext_speeds_valid(const NodeRec& r, uint8_t port) {
  const size_t p = r.is_switch() ? 0 : port;
  return p < r.ports.size() && r.ports[p].have_info &&
         (r.ports[p].info.capability_mask & mad::port_cap::is_extended_speeds_supported);
}

}  // namespace

PerfMgr::PerfMgr(mad::Transport& t, Config cfg, Logger& log, std::function<int64_t()> wall_ms)
    : cfg_(std::move(cfg)),
      log_(log),
      wall_ms_(std::move(wall_ms)),
      tx_(t, tx_config(cfg_)),
      tx_clock_(t.clock()),
      health_(cfg_) {}

void PerfMgr::reconfigure(const Config& cfg) {
  const bool was = cfg_.enabled;
  cfg_ = cfg;
  health_.set_config(cfg_);
  if (!was && cfg_.enabled) next_sweep_ = now();
}

bool PerfMgr::on_mad(const mad::Packet& p) {
  if (p.mad[1] != mad::mgmt_class::perf) return false;
  return tx_.on_receive(p);
}

void PerfMgr::on_tick(const View& v) {
  tx_.on_tick();
  flapping_ = v.flapping;
  may_query_ = v.may_query;
  if (!sweep_ && cfg_.enabled && v.may_query && v.subnet && v.subnet->topology &&
      now() >= std::max(next_sweep_, v.settle_until))
    start_sweep(v);
  if (sweep_ && sweep_->closing) publish_some();
  else if (sweep_) pump(v.may_query);
  if (sweep_ && !sweep_->closing && sweep_over()) finish();
}

std::optional<mad::Nanos> PerfMgr::next_deadline(bool may_query, mad::Nanos settle_until) const {
  if (sweep_ && sweep_->closing) return now();  // publishing, a chunk per turn
  std::optional<mad::Nanos> d = tx_.next_deadline();
  const mad::Nanos due = std::max(next_sweep_, settle_until);
  if (!sweep_ && cfg_.enabled && may_query && (!d || due < *d)) d = due;
  return d;
}

// The nodes to read, in topology order; each is taken apart into its ports as the queue runs
// dry (expand), so no turn of the loop builds the whole fabric's list at once.
void PerfMgr::start_sweep(const View& v) {
  Sweep s{.number = ++sweeps_, .started = now(), .started_ms = wall_ms_(), .subnet = v.subnet};
  s.sent_at_start = tx_.stats().sent;
  const Topology& t = *v.subnet->topology;
  s.targets = std::move(spare_targets_);  // what the last sweep allocated
  s.targets.clear();
  sweep_ = std::move(s);
  log_.debug(code::counter_sweep_started, "counters: sweep {} of {} nodes", sweep_->number, t.node_count());
}

// Takes the next node with a port to read into the sweep and queues its first query (and
// checks its cables' speed and width); false when none is left.
bool PerfMgr::expand() {
  Sweep& s = *sweep_;
  const Topology& t = *s.subnet->topology;
  while (s.expanded < t.node_count()) {
    const NodeId id = s.expanded++;
    const Node& n = t.node(id);
    check_links(*s.subnet, id, stamp());
    if (!n.is_switch() && cfg_.ignore_cas) continue;
    NodeJob job{.guid = n.guid, .lid = 0, .first = s.targets.size(), .count = 0};
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      const Port& port = t.port(id, PortNum(p));
      if (!port.linked()) continue;
      PortEnd local = end_of(t, id, p);
      if (local.lid == 0) continue;  // not reachable by LID (yet)
      if (job.lid == 0) job.lid = local.lid;
      Track& tr = tracks_[{n.guid, p}];
      tr.sweep = s.number;
      ++job.count;
      s.targets.push_back(Target{.track = &tr, .local = std::move(local), .remote = end_of(t, port.peer, port.peer_port.value())});
    }
    if (job.count == 0) continue;
    const size_t i = s.nodes.size();
    s.nodes.push_back(std::move(job));
    if (caps_.contains(n.guid)) queue_node(i);
    else s.queue.push_back({Kind::class_port_info, i});
    return true;
  }
  return false;
}

bool PerfMgr::sweep_over() const {
  return sweep_->queue.empty() && sweep_->in_flight == 0 && sweep_->expanded == sweep_->subnet->topology->node_count();
}

// A switch that sums its ports' counters is asked for the sum first: an idle switch then
// costs one query, not two per port.
void PerfMgr::queue_node(size_t node) {
  const NodeJob& n = sweep_->nodes[node];
  const auto c = caps_.find(n.guid);
  const bool sum = c != caps_.end() && c->second.all_ports && n.count > 1;
  if (sum) sweep_->queue.push_back({Kind::node_sum, node});
  else queue_ports(node);
}

// PortCounters of each port; PortCountersExtended follows only for a port whose traffic
// counters moved (on_answer).
void PerfMgr::queue_ports(size_t node) {
  for (size_t t : sweep_->nodes[node].targets()) {
    sweep_->targets[t].waiting = 1;
    sweep_->queue.push_back({Kind::counters, t});
  }
}

// A port of a switch whose sum did not move: its counters are what they were.
void PerfMgr::port_quiet(size_t index) {
  Sweep& s = *sweep_;
  const Target& t = s.targets[index];
  Track& tr = *t.track;
  const Step step = tr.counters.advance(tr.counters.last(), now());
  tr.sampled_ms = wall_ms_();
  ++s.read;
  ++s.quiet;
  health_.on_step(t.local, t.remote, step, stamp());
}

void PerfMgr::pump(bool may_query) {
  // The SM's sweeps go first: no new query while one runs (those in flight finish).
  if (!may_query) return;
  while (sweep_ && sweep_->in_flight < static_cast<size_t>(std::max(1, cfg_.max_outstanding))) {
    if (sweep_->queue.empty() && !expand()) return;
    Request r = sweep_->queue.front();
    sweep_->queue.pop_front();
    submit(r);
  }
}

void PerfMgr::submit(const Request& r) {
  Sweep& s = *sweep_;
  mad::PmaMad m;
  uint16_t lid = 0;
  switch (r.kind) {
    case Kind::class_port_info:
      m = mad::make_pma(mad::method::get, mad::pma_attr::class_port_info);
      lid = s.nodes[r.index].lid;
      break;
    case Kind::node_sum: {
      m = mad::make_pma(mad::method::get, mad::pma_attr::port_counters);
      mad::PortCounters pc;
      pc.port_select = mad::kAllPorts;
      pc.encode(m.data);
      lid = s.nodes[r.index].lid;
      break;
    }
    case Kind::counters: {
      m = mad::make_pma(mad::method::get, mad::pma_attr::port_counters);
      mad::PortCounters pc;
      pc.port_select = s.targets[r.index].local.port;
      pc.encode(m.data);
      lid = s.targets[r.index].local.lid;
      break;
    }
    case Kind::counters_ext: {
      m = mad::make_pma(mad::method::get, mad::pma_attr::port_counters_ext);
      mad::PortCountersExtended pe;
      pe.port_select = s.targets[r.index].local.port;
      pe.encode(m.data);
      lid = s.targets[r.index].local.lid;
      break;
    }
    case Kind::clear:
      m = mad::make_clear_counters(s.targets[r.index].local.port, r.select, r.select2);
      lid = s.targets[r.index].local.lid;
      break;
  }
  mad::Packet p;
  p.mad = mad::encode_pma(m);
  p.addr = {.lid = Lid(lid), .qpn = 1, .qkey = mad::kGsiQkey, .sl = 0, .pkey_index = 0};
  ++s.in_flight;
  tx_.submit(p, [this, r, number = s.number](mad::Result<mad::Packet> res) {
    if (!sweep_ || sweep_->number != number) return;  // a sweep given up on (not reached today)
    --sweep_->in_flight;
    on_answer(r, std::move(res));
    pump(may_query_);
    if (sweep_ && !sweep_->closing && sweep_over()) finish();
  });
}

void PerfMgr::on_answer(const Request& r, mad::Result<mad::Packet> res) {
  Sweep& s = *sweep_;
  mad::Result<mad::PmaMad> m = res ? mad::decode_pma(res->mad) : std::unexpected(res.error());
  if (m && m->status != 0) m = mad::fail(mad::Errc::mad_status, fmt::format("MAD status 0x{:04x}", m->status));
  switch (r.kind) {
    case Kind::class_port_info: {
      const Guid g = s.nodes[r.index].guid;
      auto cpi = m ? mad::PmaClassPortInfo::decode(m->data) : std::unexpected(m.error());
      if (cpi) caps_[g] = Caps{.extended = cpi->extended_counters(), .all_ports = cpi->all_port_select()};
      else log_.debug(code::pma_no_class_port_info, "counters: {} answered no ClassPortInfo ({}); reading PortCounters",
                      g, cpi.error().message);
      queue_node(r.index);
      return;
    }
    case Kind::node_sum: {
      const NodeJob& n = s.nodes[r.index];
      auto pc = m ? mad::PortCounters::decode(m->data) : std::unexpected(m.error());
      const auto last = node_sums_.find(n.guid);
      const bool known = std::ranges::all_of(n.targets(),
                                     [&](size_t t) { return s.targets[t].track->counters.have(); });
      const bool steady = pc && known && last != node_sums_.end() && !stuck(*pc);
      if (steady && same_counts(*pc, last->second)) {  // nothing moved
        for (size_t t : n.targets()) port_quiet(t);
        return;
      }
      const auto c = caps_.find(n.guid);
      // Each port's error counters known without reading them: only traffic moved since the
      // last sum (the SM's own MADs count too), so they are as they were; or, on a first read
      // (or one that cannot be compared), the sum shows none above zero, so every port's are 0.
      // Then each port's extended counters alone.
      const bool as_before = steady && same_errors(*pc, last->second);
      const bool all_zero = pc && !steady && !stuck(*pc) && same_errors(*pc, mad::PortCounters{});
      if ((as_before || all_zero) && c != caps_.end() && c->second.extended) {
        node_sums_[n.guid] = *pc;
        for (size_t i : n.targets()) {
          Target& t = s.targets[i];
          const Track& tr = *t.track;
          t.waiting = 1;
          if (all_zero) {
            t.pc = mad::PortCounters{.port_select = t.local.port};
            t.pc_traffic = false;
          } else if (tr.pc) {
            t.pc = *tr.pc;
            t.pc_traffic = tr.pc_traffic;
          } else {  // never read one by one: its PortCounters now
            s.queue.push_back({Kind::counters, i});
            continue;
          }
          t.have_pc = true;
          s.queue.push_back({Kind::counters_ext, i});
        }
        return;
      }
      if (pc) node_sums_[n.guid] = *pc;
      else node_sums_.erase(n.guid);
      queue_ports(r.index);
      return;
    }
    case Kind::counters:
    case Kind::counters_ext: {
      Target& t = s.targets[r.index];
      if (!m) {
        t.failed = true;
      } else if (r.kind == Kind::counters) {
        auto pc = mad::PortCounters::decode(m->data);
        t.failed = !pc;
        if (pc) {
          t.pc = *pc;
          t.have_pc = true;
          t.pc_traffic = true;
          // The extended counters only where the port moved traffic since the last read (or
          // its PortCounters cannot tell: stuck, or never read).
          const auto c = caps_.find(t.local.node);
          const Track* tr = t.track;
          const bool quiet = tr->pc && tr->pc_traffic && traffic_of(*tr->pc) == traffic_of(*pc) && !stuck(*pc) &&
                             tr->counters.extended();
          if (c != caps_.end() && c->second.extended && !quiet) {
            ++t.waiting;
            s.queue.push_front({Kind::counters_ext, r.index});
          }
        }
      } else {
        auto pe = mad::PortCountersExtended::decode(m->data);
        t.failed = !pe;
        if (pe) {
          t.ext = *pe;
          t.have_ext = true;
        }
      }
      if (--t.waiting == 0) port_done(r.index);
      return;
    }
    case Kind::clear: {
      const Target& t = s.targets[r.index];
      auto pc = m ? mad::PortCounters::decode(m->data) : std::unexpected(m.error());
      if (!pc) {
        log_.debug(code::counters_not_cleared, "counters: clear of {} failed: {}", describe(t.local), pc.error().message);
        return;
      }
      t.track->counters.cleared(r.select, r.select2, *pc);
      ++s.clears;
      return;
    }
  }
}

void PerfMgr::port_done(size_t index) {
  Sweep& s = *sweep_;
  Target& t = s.targets[index];
  Track& tr = *t.track;
  if (t.failed || !t.have_pc) {
    ++tr.failures;
    ++s.timeouts;
    log_.debug(code::port_unanswered, "counters: {} did not answer", describe(t.local));
    return;
  }
  const auto c = caps_.find(t.local.node);
  const bool ext = c != caps_.end() && c->second.extended;
  const Reading r = t.have_ext ? reading_of(t.pc, &t.ext)
                    : ext      ? with_extended_of(t.pc, tr.counters.last())
                               : reading_of(t.pc);
  const Step step = tr.counters.advance(r, now());
  tr.pc = t.pc;
  tr.pc_traffic = t.pc_traffic;
  tr.sampled_ms = wall_ms_();
  ++s.read;
  if (step.reset)
    log_.debug(code::counters_reset, "counters: {} went down (a reset or reboot): new baseline", describe(t.local));
  health_.on_step(t.local, t.remote, step, stamp());
  if (step.clear_select || step.clear_select2)
    s.queue.push_front({Kind::clear, index, step.clear_select, step.clear_select2});
}

// The cables of node `id` that run below what both ends enable (each cable at one end).
void PerfMgr::check_links(const Subnet& sub, NodeId id, Stamp now) {
  const Topology& t = *sub.topology;
  const Node& n = t.node(id);
  const NodeRec* a = sub.node(id);
  for (uint8_t p = 1; p <= n.num_ports; ++p) {
    const Port& port = t.port(id, PortNum(p));
    if (!port.linked()) continue;
    const Node& peer = t.node(port.peer);
    const uint8_t pp = port.peer_port.value();
    if (std::make_pair(peer.guid, pp) < std::make_pair(n.guid, p)) continue;  // each cable once
    const NodeRec* b = sub.node(port.peer);
    if (!a || !b || p >= a->ports.size() || pp >= b->ports.size() || !a->ports[p].have_info ||
        !b->ports[pp].have_info)
      continue;
    if (auto what = degraded(a->ports[p].info, ext_speeds_valid(*a, p), b->ports[pp].info, ext_speeds_valid(*b, pp)))
      health_.on_degraded(end_of(t, id, p), end_of(t, port.peer, pp), std::move(*what), now);
  }
}

void PerfMgr::check_flapping(const Subnet& sub, Stamp now) {
  const Topology& t = *sub.topology;
  for (const auto& [cable, changes] : flapping_) {
    const auto id = t.find(cable.first);
    if (!id || cable.second > t.node(*id).num_ports) continue;
    const Port& port = t.port(*id, PortNum(cable.second));
    std::optional<PortEnd> peer;
    if (port.linked()) peer = end_of(t, port.peer, port.peer_port.value());
    health_.on_flapping(end_of(t, *id, cable.second), peer, changes, now);
  }
}

// Every query answered: the health rules' verdicts, then the snapshot, a chunk of ports per
// turn of the loop (the largest fabrics have a quarter million).
void PerfMgr::finish() {
  Sweep& s = *sweep_;
  const Stamp at = stamp();
  check_flapping(*s.subnet, at);
  const std::vector<Health::Key> fresh = health_.end_sweep(at, mono_ms(s.started));
  decide_isolation(*s.subnet, {fresh.begin(), fresh.end()});
  if (cfg_.log_errors)
    for (const Health::Key& k : fresh) {
      const Finding& f = health_.findings().at(k);
      log_.warn(code::health_finding, "health: {} at {}{}: {}", f.rule, describe(f.at),
                f.peer ? " <-> " + describe(*f.peer) : std::string(), f.what);
    }
  const double ms = std::chrono::duration<double, std::milli>(now() - s.started).count();
  auto snap = std::make_shared<Snapshot>();
  snap->sweep = {.number = s.number,
                 .started_ms = s.started_ms,
                 .duration_ms = ms,
                 .ports = s.read,
                 .queries = tx_.stats().sent - s.sent_at_start,
                 .timeouts = s.timeouts,
                 .clears = s.clears};
  snap->sweeps = sweeps_;
  snap->findings = health_.open();
  for (const auto& [rule, n] : health_.fired()) snap->findings_by_rule.emplace_back(rule, n);
  snap->ports.reserve(s.targets.size());
  s.closing = std::move(snap);  // the ports follow from the next tick on
}

void PerfMgr::publish_some() {
  Sweep& s = *sweep_;
  Snapshot& snap = *s.closing;
  const size_t end = std::min(s.targets.size(), snap.ports.size() + kPublishChunk);
  for (size_t i = snap.ports.size(); i < end; ++i) {
    Target& t = s.targets[i];  // its last use: the snapshot takes its ends
    const Track& tr = *t.track;
    snap.ports.push_back(PortSample{.local = std::move(t.local),
                                    .remote = std::move(t.remote),
                                    .totals = tr.counters.totals(),
                                    .rates = tr.counters.rates(),
                                    .has_rates = tr.counters.has_rates(),
                                    .extended = tr.counters.extended(),
                                    .sampled_ms = tr.sampled_ms,
                                    .failures = tr.failures});
  }
  if (snap.ports.size() < s.targets.size()) return;  // more at the next tick
  // Ports no longer in the subnet: every track is of this sweep when there are as many.
  if (cfg_.rm_nodes && tracks_.size() != s.targets.size())
    std::erase_if(tracks_, [&](const auto& kv) { return kv.second.sweep != s.number; });
  log_.info_if(s.number == 1 || s.timeouts > 0, code::counter_sweep_done,
               "counters: sweep {}: {} ports read ({} quiet by their switch's sum), {} unanswered, {} cleared, {} "
               "queries, {:.1f} ms",
               s.number, s.read, s.quiet, s.timeouts, s.clears, snap.sweep.queries, snap.sweep.duration_ms);
  last_subnet_ = s.subnet;
  published_ = std::move(s.closing);
  next_sweep_ = s.started + cfg_.sweep_time;
  spare_targets_ = std::move(s.targets);  // freeing a quarter million of them takes a while
  sweep_.reset();
  if (on_sweep_done) on_sweep_done(published_);
}

}  // namespace sm::perfmgr
