// Runs a Role inside an SM: turns its decisions into SmHost calls, feeds it the answers, time
// and the SMInfo requests of other SMs. Owns no timers of its own: the SM's event loop asks
// next_deadline() and calls on_tick().
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ha/role.h"
#include "ha/sm_host.h"

namespace ha {

class Agent {
 public:
  Agent(SmHost& host, Config cfg) : host_(host), role_(cfg) {}

  void start() { run(role_.start(host_.now())); }
  void set_self(Guid self) { role_.set_self(self); }
  void discovered(Guid self, const std::vector<SmPort>& ports, bool complete) {
    run(role_.discovered(host_.now(), self, ports, complete));
  }
  void sm_port_changed(Guid port) { run(role_.sm_port_changed(host_.now(), port)); }
  void on_tick() { run(role_.tick(host_.now())); }
  void resign() { run(role_.resign(host_.now())); }
  void step_down(const std::string& why) { run(role_.step_down(host_.now(), why)); }
  std::optional<Nanos> next_deadline() const { return role_.next_deadline(); }

  // The answer to another SM's (or a tool's) SMInfo request: MAD status and attribute.
  struct Answer {
    uint16_t status = 0;
    SmInfo info;
  };
  // `authenticated`: the requester may see the SM_Key (IBA: its M_Key checked out).
  Answer on_get(bool authenticated) const { return Answer{0, role_.self_info(authenticated)}; }
  // A control packet: `reply` gets the answer before the decisions it causes run (a new
  // master's first sweep must not hold up the old master's handover).
  void on_set(uint32_t modifier, const SmInfo& sender, const std::function<void(const Answer&)>& reply);

  SmState state() const { return role_.state(); }
  const Role& role() const { return role_; }

 private:
  void run(Output out);
  SmHost& host_;
  Role role_;
};

}  // namespace ha
