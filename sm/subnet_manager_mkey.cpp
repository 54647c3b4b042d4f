// M_Key: what the ports' keys say after each walk, and what trap 256 says (subnet_manager.h).
//  - A port that shows another SM's key (protect level 0, or a lease that ran out) gets this
//    SM's: its Sets carry the key it showed (the KeyRing holds it) until this SM's is on it.
//  - A port that hides its key (protect bits set, M_Key read as 0) holds one this SM does not
//    know, or none at all: one probe Set tells. Refused, the port is left alone (no Sets
//    planned) and, as the IBA's recovery path has it, the refusal started its lease timer:
//    when the lease has run out the port drops its protection and the next walk reads its key.
//    With lease 0 nothing but the right key reaches it again.
//  - Trap 256 names who sent an SMP with a wrong key; this SM's own refused SMPs are not news.
#include <fmt/format.h>

#include "mad/attributes.h"
#include "sm/program/port_plan.h"
#include "sm/mkey/port_audit.h"
#include "sm/subnet_manager.h"

namespace sm {

namespace {

constexpr size_t kNamed = 4;  // ports named in one line

using mkey::port_text;

}  // namespace

// The paths the sweep's SMPs take are the topology's canonical ones (a switch's shortest,
// smallest route; a CA port by its switch), which need not be the ones the walk first met
// the nodes by: the ring learns those too, or an SMP there would carry no key.
void SubnetManager::learn_paths(const Topology& t, NodeId from, NodeId to) {
  for (NodeId id = from; id < to; ++id) {
    const Node& n = t.node(id);
    if (n.is_switch()) {
      keys_.learn_path(n.path, mkey::key_port(t, id, 0), true);
      continue;
    }
    for (const Port& p : t.ports(id))
      if (p.num.value() != 0 && !p.guid.is_zero() && p.linked()) keys_.learn_path(t.path_to_port(id, p.num), p.guid, false);
  }
}

void SubnetManager::audit_keys() {
  keys_checked_ = true;
  // On the worker, the model borrowed and a copy of the ring (SMPs sent meanwhile fill its
  // caches); what it remembers goes with it and comes back.
  post_job<mkey::AuditResult>(
      "the M_Key audit",
      [topo = topo_, &model = std::as_const(model_), keys = keys_.for_planning(), state = std::move(audit_)]() mutable {
        return mkey::audit_ports(*topo, model, keys, std::move(state));
      },
      [this](mkey::AuditResult a) { audited(std::move(a)); });
}

void SubnetManager::audited(mkey::AuditResult a) {
  audit_ = std::move(a.state);
  for (const auto& r : a.rises) {
    violations_seen_ += r.rose;
    log_.warn(code::mkey_violations, "security: port {} counted {} M_Key violation(s) since the last sweep ({} "
              "in all): SMPs with a wrong key reached it", r.port, r.rose, r.total);
  }
  for (Guid g : a.accepted) keys_.accept(g);
  const std::vector<std::string>& foreign = a.foreign;
  if (!foreign.empty())
    log_.warn(code::mkey_foreign, "M_Key: {} port(s) carried another SM's key and showed it (protect level 0, or a "
              "lease that ran out): this SM's goes on them: {}{}", foreign.size(),
              fmt::join(foreign.begin(), foreign.begin() + static_cast<ptrdiff_t>(std::min(foreign.size(), kNamed)), "; "),
              foreign.size() > kNamed ? "; ..." : "");
  // Stood by meanwhile: program() goes on to where the sweep notices (start_programming).
  const std::vector<mkey::AuditResult::Probe>& probes = a.probes;
  if (probes.empty() || !master_) return program();
  const Topology& t = *topo_;
  // One Set that changes nothing: answered, the port has no key (protect bits without one);
  // refused, it holds a key this SM does not know, and the refusal starts its lease timer.
  key_probes_ = probes.size();
  auto refused = std::make_shared<std::vector<std::string>>();
  auto lease = std::make_shared<uint16_t>(0);
  for (const mkey::AuditResult::Probe& pr : probes) {
    mad::PortInfo same = pr.as_read;
    no_change_codes(same);
    const uint32_t mod = t.node(pr.id).is_switch() ? 0 : pr.port;
    client_.set_once(pr.path, mad::attr::port_info, mod, mad::encode_attr(same),
                     [this, pr, refused, lease](mad::Result<mad::Smp> r) {
                       if (!r) {
                         keys_.refuse(pr.guid);
                         refused->push_back(port_text(*topo_, pr.id, pr.port));
                         *lease = std::max(*lease, pr.as_read.m_key_lease_period);
                         if (pr.as_read.m_key_lease_period != 0) {
                           const mad::Nanos at = now() + std::chrono::seconds(pr.as_read.m_key_lease_period) +
                                                 std::chrono::seconds(1);
                           if (!key_retry_at_ || at < *key_retry_at_) key_retry_at_ = at;
                         }
                       }
                       if (--key_probes_ != 0) return;
                       if (!refused->empty()) {
                         const auto& v = *refused;
                         log_.error(code::mkey_refused,
                                    "M_Key: {} port(s) hold a key this SM does not know (another SM's, or a changed "
                                    "secret) and refused its Set: left alone, not programmed; {}: {}{}",
                                    v.size(),
                                    *lease ? fmt::format("tried again when their lease (up to {} s) has run out", *lease)
                                           : "lease 0: unrecoverable without the key that protects them (m_key or "
                                             "m_key_secret_file)",
                                    fmt::join(v.begin(), v.begin() + static_cast<ptrdiff_t>(std::min(v.size(), kNamed)), "; "),
                                    v.size() > kNamed ? "; ..." : "");
                       }
                       program();
                     });
  }
}

void SubnetManager::key_tick() {
  if (!key_retry_at_ || now() < *key_retry_at_) return;
  key_retry_at_.reset();
  const size_t n = keys_.refusing_count();
  keys_.clear_refusing();
  if (n == 0) return;
  log_.info(code::mkey_retry, "M_Key: the lease of {} port(s) left alone has run out: trying them again", n);
  request_sweep("M_Key lease ran out on ports left alone");
}

// This SM's own SMP: it came from here (directed route, or this SM's LID) with the key this SM
// holds for that port.
bool SubnetManager::own_bad_mkey(const mad::Notice& notice, const mad::Trap256& t) const {
  const Topology* topo = topo_.get();
  const Guid attacked = keys_.port_at(notice.issuer_lid);
  const Lid self = topo && topo->sm_node() != kNoNode ? topo->port(topo->sm_node(), topo->sm_port()).lid : Lid();
  return (t.dr_notice || (self.is_unicast() && t.lid == self)) && !attacked.is_zero() &&
         t.m_key == keys_.for_port(attacked);
}

void SubnetManager::on_bad_mkey(const mad::Notice& notice, const mad::Trap256& t) {
  const Topology* topo = topo_.get();
  const bool own = own_bad_mkey(notice, t);
  // By the LIDs this SM gave (a trap storm must not walk the whole topology per trap).
  auto who = [&](Lid lid) -> std::string {
    const Guid g = keys_.port_at(lid);
    const auto id = topo && !g.is_zero() ? topo->find_port(g) : std::nullopt;
    if (!id) return fmt::format("LID {} (not a port this SM addressed)", lid);
    for (const Port& p : topo->ports(*id))
      if (p.guid == g || (topo->node(*id).is_switch() && p.num.value() == 0)) return port_text(*topo, *id, p.num.value());
    return fmt::format("LID {}", lid);
  };
  const std::string target = who(notice.issuer_lid);
  const std::string what = fmt::format("{} of {} (modifier 0x{:x})", t.method == mad::method::set ? "a Set"
                                       : t.method == mad::method::get ? "a Get" : fmt::format("method 0x{:02x}", t.method),
                                       mad::attr::name(t.attr_id), t.attr_mod);
  if (own) {
    log_.debug(code::own_mkey_refused, "trap 256: {} refused this SM's own {}", target, what);
    return;
  }
  ++bad_mkey_traps_;
  const std::string from = t.dr_notice ? fmt::format("a directed route of {} hop(s) (DrSLID {})", t.dr_hop_count, t.dr_slid)
                                       : who(t.lid);
  log_.error(code::bad_mkey, "security: Bad M_Key (trap 256): {} refused {} with a wrong M_Key from {}", target, what, from);
}

}  // namespace sm
