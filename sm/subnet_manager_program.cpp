// A sweep's programming steps after routing: LFTs and port configuration (the Programmer),
// then P_Key tables and partition enforcement (the PKeyWriter), then the QoS tables (the
// QosWriter, with qos on), then the multicast forwarding tables, then finish().
#include "sm/subnet_manager.h"

#include <utility>

namespace sm {

void SubnetManager::program() {
  if (!keys_checked_) return audit_keys();  // ports that hide their key: probed first; then here again
  clock_.start_phase();
  phase_ = "programming";
  const Topology& t = *topo_;
  const Lid sm_lid = t.port(t.sm_node(), t.sm_port()).lid;
  const bool verify = report_.heavy && std::exchange(verify_next_heavy_, false);
  // The plans read the model, the memories and the keys: on the worker, the model and the
  // memories borrowed (nothing on the loop changes them while it is busy: traps wait). Keys
  // derived from a secret are copied: SMPs sent meanwhile fill their cache.
  const mkey::KeyRing* live = client_.keys();
  auto copy = live && live->derives() ? std::make_shared<const mkey::KeyRing>(live->for_planning()) : nullptr;
  post_job<ProgramPlans>("planning",
      [topo = topo_, tables = tables_, &model = std::as_const(model_), &memory = std::as_const(lft_memory_),
       &pkeys = pkey_memory_, &qos = qos_memory_, sm_lid, policy = qos_port_policy(cfg_.ports, cfg_.qos), verify,
       copy, keys = copy ? copy.get() : live] {
        forget_reset_ports(pkeys, model);  // before the Programmer records its Sets
        forget_reset_qos(qos, model);
        return plan_programming(*topo, *tables, model, memory, sm_lid, policy, verify, keys);
      },
      [this](ProgramPlans plans) { start_programming(std::move(plans)); });
}

void SubnetManager::start_programming(ProgramPlans plans) {
  if (!master_) {  // stood by while the worker planned
    if (std::exchange(forget_tables_, false)) lft_memory_.clear();
    finish_walk(fmt::format("{} while planning: configured by another SM", mad::sm_state_name(ha_.state())));
    return;
  }
  programmer_ = std::make_unique<Programmer>(client_, log_, lft_memory_, model_);
  programmer_->start(topo_, tables_, std::move(plans), [this] { after_programming(); });
}

// Nodes a Set failed on: the retry re-reads and programs just those (unless LIDs ran out,
// which no retry of a few nodes mends).
void SubnetManager::retry_failed(const std::set<Guid>& nodes) {
  for (Guid g : nodes)
    if (!keys_.refusing(g)) retry_.insert(g);  // those wait for their lease (key_tick)
  if (retry_.empty()) return;
  if (report_.lids.unassigned == 0) retry_in_part_ = true;
}

void SubnetManager::after_programming() {
  report_.program = programmer_->stats();
  report_.programming = clock_.phase();
  const ProgramStats& s = report_.program;
  log_.info(code::programmed,
            "sweep {}: programming: {} LFT blocks written ({} read back), {} SwitchInfo, "
            "{} port Sets ({} with ClientReregister), {} activations, {} failures, {:.1f} ms",
            report_.number, s.lft_blocks_written, s.lft_blocks_read, s.switch_info_sets, s.port_sets,
            s.client_reregisters, s.activations, s.failures, report_.programming.wall_ms);
  log_tampered(programmer_->tampered(), report_.trigger.empty() ? "a heavy sweep" : "a heavy sweep (" + report_.trigger + ")");
  const bool ok = programmer_->ok() && report_.lids.unassigned == 0;
  retry_failed(programmer_->failed_nodes());
  programmer_.reset();  // in its own callback: it touches nothing after calling it
  if (std::exchange(forget_tables_, false)) {
    lft_memory_.clear();
    if (mc_) mc_->forget_tables();
  }
  program_partitions(ok);
}

void SubnetManager::program_partitions(bool ok) {
  if (!master_) {  // stood by meanwhile: what the ports hold is the new master's business
    pkey_memory_.clear();
    finish(ok, ok ? "" : "programming failed on some nodes");
    return;
  }
  const double started_ms = clock_.sweep().wall_ms;
  post_job<PKeyPlan>(
      "P_Key planning",
      [topo = topo_, &model = std::as_const(model_), &memory = std::as_const(pkey_memory_), partitions = cfg_.partitions] {
        return plan_pkeys(*topo, model, memory, partitions);
      },
      [this, ok, started_ms](PKeyPlan plan) { write_pkeys(std::move(plan), ok, started_ms); });
}

void SubnetManager::write_pkeys(PKeyPlan plan, bool ok, double started_ms) {
  if (!master_) {  // stood by while the worker planned
    pkey_memory_.clear();
    finish(ok, ok ? "" : "programming failed on some nodes");
    return;
  }
  pkey_writer_ = std::make_unique<PKeyWriter>(client_, log_, pkey_memory_, model_);
  pkey_writer_->start(topo_, std::move(plan), [this, ok, started_ms] {
    report_.pkeys = pkey_writer_->stats();
    const PKeyStats& s = report_.pkeys;
    const double ms = clock_.sweep().wall_ms - started_ms;
    log_.info_if(s.blocks_written || s.enforcement_sets || s.failures || report_.heavy, code::pkeys_programmed,
                 "sweep {}: P_Keys: {} partition(s), {} block(s) written on {} port(s), {} read back, {} enforcement "
                 "Set(s), {} failures, {:.1f} ms",
                 report_.number, cfg_.partitions.partitions.size(), s.blocks_written, s.ports_written, s.blocks_read,
                 s.enforcement_sets, s.failures, ms);
    const bool all = ok && pkey_writer_->ok();
    retry_failed(pkey_writer_->failed_nodes());
    pkey_writer_.reset();
    next_turn([this, all] { program_qos(all); });
  });
}

void SubnetManager::program_qos(bool ok) {
  auto next = [this](bool all) {
    next_turn([this, all] {
      if (all && mc_ && master_) return program_multicast();
      finish(all, all ? "" : "programming failed on some nodes");
    });
  };
  // Tables with SLs need their SL2VL whether or not qos is on (sm/program/vl_plan.h).
  if ((!cfg_.qos.enabled && !layers_) || !master_) {
    qos_memory_.clear();  // what the ports hold now is nobody's business here: read again when on
    return next(ok);
  }
  const double started_ms = clock_.sweep().wall_ms;
  if (layers_ && cfg_.qos.enabled && !std::exchange(told_sl2vl_wins_, true))
    log_.info(code::sl2vl_from_routing, "QoS: the SL-to-VL tables are {}'s VL layers (SL i on VL i for {} VL(s){}), "
              "not qos_sl2vl: another mapping would put routes on a layer whose dependencies they could make cyclic",
              report_.engine, layers_->vls_used,
              layers_->multicast_sl ? fmt::format(", multicast on SL {}", *layers_->multicast_sl) : std::string());
  qos_writer_ = std::make_unique<QosWriter>(client_, log_, qos_memory_, model_);
  qos_writer_->start(topo_, cfg_.qos, layers_, [this, ok, started_ms, next] {
    report_.qos = qos_writer_->stats();
    const QosStats& s = report_.qos;
    log_.info_if(s.sl2vl_written || s.vlarb_written || s.failures || report_.heavy, code::qos_programmed,
                 "sweep {}: QoS: {} port(s), {} SLtoVL table(s) and {} VLArbitration block(s) written, {} read back, "
                 "{} failures, {:.1f} ms",
                 report_.number, s.ports, s.sl2vl_written, s.vlarb_written, s.tables_read, s.failures,
                 clock_.sweep().wall_ms - started_ms);
    const bool all = ok && qos_writer_->ok();
    retry_failed(qos_writer_->failed_nodes());
    qos_writer_.reset();
    next(all);
  });
}

void SubnetManager::program_multicast() {
  phase_ = "multicast";
  mc_->program(*topo_, model_, client_, true, [this](const MulticastTables::Outcome& o) {
    report_.mft_blocks = o.blocks_written;
    retry_failed(o.failed);
    next_turn([this, ok = o.failures == 0] {
      finish(ok, ok ? "" : "multicast forwarding tables failed on some switches");
    });
  });
}

}  // namespace sm
