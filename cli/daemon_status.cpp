#include "cli/daemon_status.h"

#include <fmt/format.h>
#include <unistd.h>

#include "cli/json.h"

namespace cli {

namespace {

double uptime_s(const StatusContext& c) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - c.started).count();
}

// The master this SM knows of: itself, or the one a standby watches (zero when none yet).
mad::Guid master_of(const sm::SubnetManager& m) {
  if (m.state() == mad::SmState::master) return m.ha_role().self();
  return m.ha_role().watched();
}

// The SM port's LID now: the one the SM gave it, not the one it had when the daemon opened it.
uint16_t own_lid(const service::Service& svc, const StatusContext& c) {
  const auto s = svc.subnet();
  return s && s->sm.lid.is_unicast() ? s->sm.lid.value() : c.port.lid.value();
}

}  // namespace

std::string status_summary(const service::Service& svc) {
  const sm::SubnetManager& m = svc.manager();
  const sm::SweepReport& r = m.last_sweep();
  std::string s(mad::sm_state_name(m.state()));
  if (m.state() == mad::SmState::standby) s += fmt::format(" under {}", master_of(m));
  if (m.state() != mad::SmState::master) return s;
  if (m.sweeping()) return s + ", sweeping";
  s += m.subnet_up() ? fmt::format(", subnet up: {} switches, {} CAs", r.switches, r.cas)
                     : fmt::format(", subnet not up: {}", r.failure);
  if (m.sweeps() > 0)
    s += fmt::format("; sweep {} ({}) {:.1f} ms", r.number, r.heavy ? "heavy" : "incremental", r.total.wall_ms);
  if (const auto& st = svc.store_status(); !st.error.empty())
    s += fmt::format("; store failing ({} commits lost): {}", st.failed_commits, st.error);
  return s;
}

std::string status_json(const service::Service& svc, const StatusContext& c) {
  const sm::SubnetManager& m = svc.manager();
  const service::StoreStatus& st = svc.store_status();
  const sm::SweepReport& r = m.last_sweep();
  std::string peers;
  for (const ha::Peer& p : m.ha_role().peers())
    peers += fmt::format("{}{{\"guid\": \"{}\", \"priority\": {}, \"state\": {}, \"act_count\": {}, "
                         "\"answered\": {}, \"sm_key_ok\": {}}}",
                         peers.empty() ? "" : ", ", p.port, p.info.priority,
                         json_quote(mad::sm_state_name(p.info.state)), p.info.act_count, p.answered, p.believed);
  return fmt::format(
      "{{\"pid\": {}, \"uptime_s\": {:.1f}, \"state\": {}, \"priority\": {}, \"act_count\": {}, "
      "\"master\": \"{}\", \"subnet_up\": {}, \"sweeping\": {}, \"sweeps\": {},\n"
      " \"port\": {{\"ca\": {}, \"port\": {}, \"guid\": \"{}\", \"lid\": {}}},\n"
      " \"config\": {}, \"db\": {}, \"routing_engine\": {}, \"commits\": {}, \"last_commit_ms\": {:.1f}, "
      "\"failed_commits\": {}, \"store_error\": {},\n"
      " \"last_sweep\": {{\"number\": {}, \"heavy\": {}, \"trigger\": {}, \"up\": {}, \"failure\": {}, "
      "\"switches\": {}, \"cas\": {}, \"max_lid\": {}, \"engine\": {}, \"lft_blocks_written\": {}, "
      "\"smps\": {}, \"ms\": {:.1f}}},\n"
      " \"peers\": [{}]}}",
      ::getpid(), uptime_s(c), json_quote(mad::sm_state_name(m.state())), m.ha_role().config().priority,
      m.ha_role().act_count(), master_of(m), m.subnet_up(), m.sweeping(), m.sweeps(), json_quote(c.port.ca),
      c.port.port, c.port.guid, own_lid(svc, c), json_quote(c.config_file), json_quote(c.db_path),
      json_quote(m.config().routing_engine), st.commits, st.last_commit_ms, st.failed_commits, json_quote(st.error), r.number,
      r.heavy, json_quote(r.trigger), r.up, json_quote(r.failure), r.switches, r.cas, r.max_lid,
      json_quote(r.engine), r.program.lft_blocks_written, r.smps_sent, r.total.wall_ms, peers);
}

std::string status_text(const service::Service& svc, const StatusContext& c) {
  const sm::SubnetManager& m = svc.manager();
  const service::StoreStatus& st = svc.store_status();
  const sm::SweepReport& r = m.last_sweep();
  std::string s = fmt::format("fabricsm (pid {}), up {:.0f} s: {}\n", ::getpid(), uptime_s(c), status_summary(svc));
  s += fmt::format("port      {} port {}, GUID {}, LID {}\n", c.port.ca, c.port.port, c.port.guid, own_lid(svc, c));
  s += fmt::format("SMInfo    priority {}, ActCount {}\n", m.ha_role().config().priority, m.ha_role().act_count());
  s += fmt::format("routing   {}\n", m.config().routing_engine);
  if (m.sweeps() > 0)
    s += fmt::format("sweep     #{} {} ({}): {}; {} switches, {} CAs, max LID {}, engine {}, {} LFT blocks "
                     "written, {} SMPs, {:.1f} ms\n",
                     r.number, r.heavy ? "heavy" : "incremental", r.trigger, r.up ? "up" : r.failure, r.switches,
                     r.cas, r.max_lid, r.engine.empty() ? "-" : r.engine, r.program.lft_blocks_written, r.smps_sent,
                     r.total.wall_ms);
  s += fmt::format("store     {}: {} commits, last {:.1f} ms{}\n", c.db_path, st.commits, st.last_commit_ms,
                   st.error.empty() ? "" : ", last error: " + st.error);
  if (!c.config_file.empty()) s += fmt::format("config    {}\n", c.config_file);
  for (const ha::Peer& p : m.ha_role().peers())
    s += fmt::format("peer SM   {} priority {} {}{}{}\n", p.port, p.info.priority, mad::sm_state_name(p.info.state),
                     p.answered ? "" : " (not answering)", p.believed ? "" : " (SM_Key differs: not believed)");
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace cli
