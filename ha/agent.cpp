#include "ha/agent.h"

namespace ha {

void Agent::on_set(uint32_t modifier, const SmInfo& sender, const std::function<void(const Answer&)>& reply) {
  Role::SetOutcome o = role_.on_set(host_.now(), modifier, sender);
  reply(Answer{o.status, role_.self_info(o.status == 0)});
  run(std::move(o.out));
}

void Agent::run(Output out) {
  for (const Note& n : out.notes) host_.note(n);
  const Nanos timeout = role_.config().poll_timeout;
  for (const Action& a : out.actions) {
    switch (a.kind) {
      case Action::Kind::discover: host_.discover(); break;
      case Action::Kind::become_master: host_.become_master(); break;
      case Action::Kind::stand_by: host_.stand_by(); break;
      case Action::Kind::resweep: host_.resweep(); break;
      case Action::Kind::notify_master: host_.notify_master(a.peer); break;
      case Action::Kind::query:
        host_.send_sm_info(a.peer, 0, SmInfo{}, timeout, [this, p = a.peer](mad::Result<SmInfo> r) {
          run(role_.query_result(host_.now(), p, r));
        });
        break;
      case Action::Kind::poll:
        host_.send_sm_info(a.peer, 0, SmInfo{}, timeout,
                           [this, p = a.peer](mad::Result<SmInfo> r) { run(role_.poll_result(host_.now(), p, r)); });
        break;
      case Action::Kind::confirm:
        host_.confirm_sm_info(a.peer, role_.config().confirm_timeout,
                              [this, p = a.peer](mad::Result<SmInfo> r) { run(role_.poll_result(host_.now(), p, r)); });
        break;
      case Action::Kind::handover:
        host_.send_sm_info(a.peer, mad::sm_info_ctl::handover, role_.self_info(true), timeout,
                           [this, p = a.peer](mad::Result<SmInfo> r) {
                             run(role_.handover_result(host_.now(), p, r));
                           });
        break;
      case Action::Kind::acknowledge:
        host_.send_sm_info(a.peer, mad::sm_info_ctl::acknowledge, role_.self_info(true), timeout,
                           [](mad::Result<SmInfo>) {});
        break;
    }
  }
}

}  // namespace ha
