#include "sm/subnet_manager.h"

#include <chrono>

#include "mad/attributes.h"

namespace sm {

namespace {
int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

SubnetManager::SubnetManager(mad::Transport& transport, SmConfig cfg, Logger& log)
    : transport_(transport),
      cfg_(std::move(cfg)),
      log_(log),
      tx_(transport, cfg_.mads),
      client_(tx_, cfg_.ports.m_key),
      lids_(cfg_.ports.lmc) {}

PhaseTime SubnetManager::since(int64_t w, mad::Nanos f) const {
  return PhaseTime{static_cast<double>(wall_ns() - w) / 1e6,
                   static_cast<double>((transport_.clock().now() - f).count()) / 1e6};
}

void SubnetManager::start() {
  log_.info(101, "starting: routing {}, {} SMPs in flight, priority {}", cfg_.routing_engine,
            cfg_.mads.window, cfg_.priority);
  heavy_sweep();
}

void SubnetManager::request_sweep(std::string why) {
  log_.info(102, "heavy sweep requested: {}", why);
  if (sweeping_) {
    sweep_wanted_ = true;
    return;
  }
  heavy_sweep();
}

void SubnetManager::heavy_sweep() {
  sweeping_ = true;
  sweep_wanted_ = false;
  retry_at_.reset();
  ++sweeps_;
  report_ = SweepReport{};
  report_.number = sweeps_;
  mads_at_start_ = tx_.stats();
  sweep_wall_ns_ = phase_wall_ns_ = wall_ns();
  sweep_fabric_ = phase_fabric_ = transport_.clock().now();
  phase_ = "discovery";
  discovery_ = std::make_unique<Discovery>(client_, log_);
  discovery_->start([this] { after_discovery(); });
}

void SubnetManager::after_discovery() {
  seen_ = discovery_->take();
  discovery_.reset();
  const Topology& t = seen_.topo;
  report_.discovery = since(phase_wall_ns_, phase_fabric_);
  report_.nodes = t.node_count();
  report_.switches = t.switches().size();
  report_.cas = t.cas().size();
  report_.links = t.link_count();
  report_.problems = seen_.problems;
  log_.info(201, "sweep {}: discovery: {} switches, {} CAs, {} links, {} SMPs, {} unanswered, {:.1f} ms",
            sweeps_, report_.switches, report_.cas, report_.links, seen_.smps, seen_.unreachable,
            report_.discovery.wall_ms);
  if (t.sm_node() == kNoNode) {
    finish(false, "the SM's own port did not answer");
    return;
  }
  port_guid_ = t.port(t.sm_node(), t.sm_port()).guid;

  phase_wall_ns_ = wall_ns();
  phase_fabric_ = transport_.clock().now();
  LidAssignment partial;
  auto lids = lids_.assign(t, &partial);
  if (!lids) log_.error(301, "{}", lids.error().message);
  report_.lids = lids ? std::move(*lids) : std::move(partial);
  for (const std::string& note : report_.lids.notes) log_.warn(302, "LIDs: {}", note);
  topo_ = t.with_lids(report_.lids.lids);
  report_.max_lid = topo_.max_lid().value();
  report_.lid_assignment = since(phase_wall_ns_, phase_fabric_);
  log_.info(303, "sweep {}: LIDs: {} kept, {} restored, {} new, {} changed, max LID {}, {:.1f} ms",
            sweeps_, report_.lids.kept, report_.lids.restored, report_.lids.fresh,
            report_.lids.changed, report_.max_lid, report_.lid_assignment.wall_ms);

  phase_wall_ns_ = wall_ns();
  phase_fabric_ = transport_.clock().now();
  auto routed = routing::compute_chain(cfg_.routing_engine, topo_, cfg_.routing);
  report_.routing = since(phase_wall_ns_, phase_fabric_);
  if (!routed) {
    log_.error(401, "routing: {}", routed.error().message);
    finish(false, "routing failed: " + routed.error().message);
    return;
  }
  for (const std::string& why : routed->passed_over) log_.warn(402, "routing: passed over {}", why);
  tables_ = std::move(routed->tables);
  report_.engine = routed->used;
  log_.info(403, "sweep {}: routing: {} over {} switches, LIDs 1..{}, {:.1f} ms", sweeps_,
            report_.engine, report_.switches, report_.max_lid, report_.routing.wall_ms);

  phase_wall_ns_ = wall_ns();
  phase_fabric_ = transport_.clock().now();
  const Lid sm_lid = topo_.port(topo_.sm_node(), topo_.sm_port()).lid;
  phase_ = "programming";
  programmer_ = std::make_unique<Programmer>(client_, log_, lft_memory_);
  programmer_->start(seen_, topo_, tables_, sm_lid, cfg_.ports, [this] { after_programming(); });
}

void SubnetManager::after_programming() {
  report_.program = programmer_->stats();
  report_.programming = since(phase_wall_ns_, phase_fabric_);
  const ProgramStats& s = report_.program;
  log_.info(503, "sweep {}: programming: {} LFT blocks written ({} read back), {} SwitchInfo, "
            "{} port Sets, {} activations, {} failures, {:.1f} ms",
            sweeps_, s.lft_blocks_written, s.lft_blocks_read, s.switch_info_sets, s.port_sets,
            s.activations, s.failures, report_.programming.wall_ms);
  const bool ok = programmer_->ok() && report_.lids.unassigned == 0;
  programmer_.reset();
  finish(ok, ok ? "" : "programming failed on some nodes");
}

void SubnetManager::finish(bool up, std::string failure) {
  report_.up = up;
  report_.failure = std::move(failure);
  report_.total = since(sweep_wall_ns_, sweep_fabric_);
  const auto& st = tx_.stats();
  report_.smps_sent = st.sent - mads_at_start_.sent;
  report_.smps_retried = st.retried - mads_at_start_.retried;
  report_.smps_timed_out = st.timed_out - mads_at_start_.timed_out;
  ++act_count_;
  sweeping_ = false;
  phase_ = "idle";
  if (up) {
    state_ = mad::SmState::master;
    if (!up_) {
      log_.info(104, "SUBNET UP: {} switches, {} CAs, {} SMPs, {:.1f} ms", report_.switches,
                report_.cas, report_.smps_sent, report_.total.wall_ms);
    } else {
      log_.info(105, "sweep {} done: {} SMPs, {:.1f} ms", sweeps_, report_.smps_sent,
                report_.total.wall_ms);
    }
    up_ = true;
  } else {
    log_.error(106, "sweep {} did not bring the subnet up: {}", sweeps_, report_.failure);
    retry_at_ = transport_.clock().now() + cfg_.retry_interval;
  }
  if (on_sweep_done) on_sweep_done(report_);
  if (sweep_wanted_) heavy_sweep();
}

void SubnetManager::on_mad(const mad::Packet& p) {
  if (tx_.on_receive(p)) return;
  const uint8_t cls = p.mad[1];
  if (cls != mad::mgmt_class::subn_directed_route && cls != mad::mgmt_class::subn_lid_routed) return;
  auto smp = mad::decode_smp(p.mad);
  if (!smp) {
    log_.warn(601, "dropped a malformed SMP: {}", smp.error().message);
    return;
  }
  if (mad::method::is_response(smp->method)) return;  // late answer to a finished request
  if (smp->attr_id == mad::attr::sm_info) {
    answer_sm_info(p, *smp);
  } else if (smp->method == mad::method::trap && smp->attr_id == mad::attr::notice) {
    on_trap(p, *smp);
  }
}

void SubnetManager::answer_sm_info(const mad::Packet& p, const mad::Smp& req) {
  mad::Smp resp = req;
  resp.method = mad::method::get_resp;
  resp.status = mad::status::ok;
  if (req.method != mad::method::get) {
    resp.status = mad::status::unsupported_method_attr;  // Set (handover) comes with HA
  } else {
    mad::SmInfo info;
    info.guid = port_guid_;
    info.sm_key = 0;  // only revealed to a requester that knows it (HA)
    info.act_count = act_count_;
    info.priority = cfg_.priority;
    info.state = state_;
    resp.data = mad::encode_attr(info);
  }
  if (resp.is_directed()) resp.direction = true;  // the hop pointer is echoed as received
  mad::Packet out;
  out.mad = mad::encode_smp(resp);
  out.addr = p.addr;  // LID-routed: back to the requester's LID; DR: permissive
  (void)transport_.send(out);
}

void SubnetManager::on_trap(const mad::Packet& p, const mad::Smp& trap) {
  auto notice = mad::decode_attr<mad::Notice>(trap);
  // Acknowledge it, or the sender repeats it.
  mad::Smp repress = trap;
  repress.method = mad::method::trap_repress;
  mad::Packet out;
  out.mad = mad::encode_smp(repress);
  out.addr = p.addr;
  (void)transport_.send(out);
  if (!notice) {
    log_.warn(602, "malformed trap from LID {}: {}", p.addr.lid, notice.error().message);
    return;
  }
  log_.info(603, "trap {} ({}) from LID {}", notice->trap_or_device_id,
            mad::trap_name(notice->trap_or_device_id), notice->issuer_lid);
  if (notice->is_trap(mad::trap::link_state_change) || notice->is_trap(mad::trap::local_changes))
    request_sweep(fmt::format("trap {} from LID {}", notice->trap_or_device_id, notice->issuer_lid));
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
  tx_.on_tick();
  if (retry_at_ && !sweeping_ && transport_.clock().now() >= *retry_at_) heavy_sweep();
}

std::optional<mad::Nanos> SubnetManager::next_deadline() const {
  auto d = tx_.next_deadline();
  if (retry_at_ && !sweeping_ && (!d || *retry_at_ < *d)) d = retry_at_;
  return d;
}

}  // namespace sm
