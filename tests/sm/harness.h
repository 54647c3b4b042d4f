// Runs the real SubnetManager (the SM core alone; tests/service runs the whole stack) against a
// simulated fabric, for scenario tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/generators.h"
#include "sim/netfile.h"
#include "sim/sim_transport.h"
#include "sim/verifier.h"
#include "mad/reactor.h"
#include "sm/subnet_manager.h"

namespace smtest {

inline std::string shared_topology(const std::string& name) {
  return std::string(FABRICSM_SHARED_TOPOLOGIES) + "/" + name;
}

struct Run {
  std::unique_ptr<sim::SimFabric> fabric;
  std::unique_ptr<sim::SimTransport> transport;
  sm::Logger log{sm::Level::info};
  std::vector<std::string> lines;
  std::unique_ptr<sm::SubnetManager> sm;
  sim::EndpointId ep = 0;

  explicit Run(sim::FabricSpec spec, sm::SmConfig cfg = {}, sim::SimConfig sim_cfg = {},
               std::string sm_node = "") {
    auto f = sim::SimFabric::build(std::move(spec), sim_cfg);
    REQUIRE_MESSAGE(f, (f ? "" : f.error().message));
    fabric = std::move(*f);
    const auto found = sm_node.empty() ? std::optional<sim::NodeIdx>(0) : fabric->find(sm_node);
    REQUIRE_MESSAGE(found, "no node " << sm_node);
    const sim::NodeIdx at = *found;
    ep = *fabric->attach(at, fabric->node(at).is_switch() ? 0 : 1);
    fabric->set_is_sm(ep, true);
    transport = std::make_unique<sim::SimTransport>(*fabric, ep);
    log.set_sink([this](sm::Level, std::string_view l) { lines.emplace_back(l); });
    start(cfg);
  }
  // A fresh SM process on the same fabric and port (a restart without a database, or with
  // what a store kept).
  void start(sm::SmConfig cfg, sm::Remembered remembered = {}) {
    sm = std::make_unique<sm::SubnetManager>(*transport, cfg, log, std::move(remembered));
    sm->start();
  }
  // What the last sweep published, and its topology.
  const sm::Subnet& subnet() const {
    REQUIRE(sm->subnet());
    return *sm->subnet();
  }
  const fabric::Topology& topo() const { return *subnet().topology; }
  // Runs until the current sweep is over (or `max_sweeps` sweeps have run).
  bool until_idle(uint64_t max_sweeps = 10) {
    auto r = mad::run_loop(*sm, *transport, [&] {
      return !sm->sweeping() && (sm->subnet_up() || sm->sweeps() >= max_sweeps);
    });
    return r.has_value();
  }
  // Runs the SM for a stretch of fabric time (it reacts to whatever traps arrive).
  bool run_for(mad::Nanos span) {
    const mad::Nanos end = transport->clock().now() + span;
    auto r = mad::run_loop(*sm, *transport, [&] { return transport->clock().now() >= end && !sm->sweeping(); });
    return r.has_value();
  }
  // Every sweep report from now on.
  std::vector<sm::SweepReport>& record() {
    sm->on_sweep_done = [this](const std::shared_ptr<const sm::Subnet>& s) { reports.push_back(s->sweep); };
    return reports;
  }
  std::vector<sm::SweepReport> reports;
  bool sweep_again() {
    sm->request_sweep("test");
    return until_idle();
  }
  sim::VerifyReport verify() const { return sim::verify_routing(*fabric); }
  bool logged(const std::string& needle) const {
    for (const auto& l : lines)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
  // GUID -> LID of every CA port and switch port 0, as the fabric holds them.
  std::vector<std::pair<uint64_t, uint16_t>> lids() const {
    std::vector<std::pair<uint64_t, uint16_t>> out;
    for (const auto& n : fabric->nodes())
      for (const auto& p : n.ports)
        if ((n.is_switch() && p.num == 0) || (!n.is_switch() && p.num != 0 && p.lid))
          out.emplace_back(p.guid.value(), p.lid);
    std::sort(out.begin(), out.end());
    return out;
  }
};

// An SM configuration with this routing engine (or chain).
inline sm::SmConfig with_engine(const char* engine) {
  sm::SmConfig c;
  c.routing_engine = engine;
  return c;
}

inline sim::FabricSpec load(const std::string& shared_name) {
  auto s = sim::load_netfile(shared_topology(shared_name));
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  return std::move(*s);
}

}  // namespace smtest
