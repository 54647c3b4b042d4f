// SubnetManager's side of high availability: the election gate between a walk and the rest
// of a sweep, and what the HA agent (ha::Agent, through HaHost) asks the SM to do. Only a
// master configures; a standby's walks end after discovery.
#include "sm/subnet_manager.h"

namespace sm {

void SubnetManager::ha_discover() {
  if (sweeping_) {  // the walk after this one elects
    pending_.want_heavy("election");
    return;
  }
  heavy_sweep(sweeps_ == 0 ? "start" : "election");
}

bool SubnetManager::resign() {
  ha_.resign();
  return ha_.role().state() == mad::SmState::master && ha_.role().handing_over();
}

void SubnetManager::ha_become_master() {
  if (!master_) log_.info(code::configuring, "this SM configures the subnet from now on");
  master_ = true;
  if (gated_) {  // the walk that elected goes on into LIDs, routing and programming
    gated_ = false;
    assign_and_route();
  } else {
    request_sweep("this SM became master");
  }
}

void SubnetManager::ha_stand_by() {
  if (master_) log_.info(code::standing_by, "another SM configures the subnet: standing by");
  master_ = false;
  up_ = false;
  pending_.clear();
  // Another SM writes the tables from now on: what this one wrote is no longer known (the
  // programmer may still be finishing a pass: forget after it).
  if (programmer_ || worker_.busy()) forget_tables_ = true;  // the worker may be reading it
  else lft_memory_.clear();
  if (mc_) mc_->forget_tables();
  routed_.reset();  // and the routes it finds when master again are not necessarily ours
  if (gated_) {
    gated_ = false;
    finish_walk("standing by");
  }
}

// The election: the agent asks the SMs this walk found and makes this SM master (the sweep
// goes on) or standby (it ends here); a master's walks only tell it who is around.
void SubnetManager::elect(const HaHost::Scan& scan) {
  gated_ = true;
  ha_.discovered(port_guid_, ha_host_.sm_ports(scan), true);
  if (!gated_) return;  // decided at once
  if (master_) {
    gated_ = false;
    assign_and_route();
  } else if (ha_.state() != mad::SmState::discovering) {
    gated_ = false;
    finish_walk(fmt::format("{}: configured by another SM", mad::sm_state_name(ha_.state())));
  } else {
    phase_ = "electing";
  }
}

// A walk that configures nothing (this SM is not master): reported, never retried.
void SubnetManager::finish_walk(std::string why) {
  report_.up = false;
  report_.failure = std::move(why);
  report_.total = clock_.sweep();
  const auto& st = tx_.stats();
  report_.smps_sent = st.sent - mads_at_start_.sent;
  phase_ = "publishing";
  log_.info(code::walked, "sweep {}: walked {} switches, {} CAs: {}", report_.number, report_.switches, report_.cas,
            report_.failure);
  publish([this] { start_next_if_wanted(); });
}

// The first walk's first answer is the SM's own port: from then on SMInfo answers carry its GUID.
void SubnetManager::learn_own_guid() {
  const NodeRec* n = model_.find(model_.sm_node());
  if (!n || model_.sm_port() >= n->ports.size() || n->ports[model_.sm_port()].guid.is_zero()) return;
  port_guid_ = n->ports[model_.sm_port()].guid;
  ha_.set_self(port_guid_);
  ha_host_.set_self(port_guid_);
}

}  // namespace sm
