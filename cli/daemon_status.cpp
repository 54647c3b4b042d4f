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
  Json peers = Json::array();
  for (const ha::Peer& p : m.ha_role().peers())
    peers.push_back({{"guid", fmt::format("{}", p.port)}, {"priority", p.info.priority},
                     {"state", mad::sm_state_name(p.info.state)}, {"act_count", p.info.act_count},
                     {"answered", p.answered}, {"sm_key_ok", p.believed}});
  Json j = {{"pid", ::getpid()}, {"uptime_s", rounded(uptime_s(c), 1)}, {"state", mad::sm_state_name(m.state())},
            {"priority", m.ha_role().config().priority}, {"act_count", m.ha_role().act_count()},
            {"master", fmt::format("{}", master_of(m))}, {"subnet_up", m.subnet_up()}, {"sweeping", m.sweeping()},
            {"sweeps", m.sweeps()}};
  j["port"] = {{"ca", c.port.ca}, {"port", c.port.port}, {"guid", fmt::format("{}", c.port.guid)},
               {"lid", own_lid(svc, c)}};
  j["config"] = c.config_file;
  j["db"] = c.db_path;
  j["routing_engine"] = m.config().routing_engine;
  j["commits"] = st.commits;
  j["last_commit_ms"] = rounded(st.last_commit_ms, 1);
  j["failed_commits"] = st.failed_commits;
  j["store_error"] = st.error;
  // While a sweep runs, its report is being filled: only what is known at its start.
  Json last = {{"number", r.number}, {"heavy", r.heavy}, {"trigger", r.trigger}, {"in_progress", m.sweeping()}};
  if (!m.sweeping())
    last.update(Json{{"up", r.up}, {"failure", r.failure}, {"switches", r.switches}, {"cas", r.cas},
                     {"max_lid", r.max_lid}, {"engine", r.engine}, {"lft_blocks_written", r.program.lft_blocks_written},
                     {"smps", r.smps_sent}, {"ms", rounded(r.total.wall_ms, 1)}});
  j["last_sweep"] = std::move(last);
  j["peers"] = std::move(peers);
  const service::LoopFigures& l = svc.loop_figures();
  // The histogram as /metrics has it (cumulative, "le" in ms): two readings' difference is the
  // turns between them, where the longest since start is not.
  Json buckets = Json::array();
  uint64_t below = 0;
  for (size_t i = 0; i < service::LoopFigures::kBounds.size(); ++i)
    buckets.push_back({{"le_ms", service::LoopFigures::kBounds[i]}, {"turns", below += l.buckets[i]}});
  const service::TurnCost& lc = l.longest_cost;
  j["loop"] = {{"turns", l.turns}, {"longest_ms", rounded(l.longest_ms, 2)}, {"longest_doing", l.longest_doing},
               {"longest_cost", {{"cpu_ms", rounded(lc.cpu_ms, 1)}, {"page_faults", lc.page_faults},
                                 {"preempted", lc.preempted}, {"blocked", lc.waited}}},
               {"p99_ms", rounded(l.p99_ms(), 2)}, {"over_50ms", l.long_turns}, {"buckets", std::move(buckets)}};
  return json_text(j);
}

std::string status_text(const service::Service& svc, const StatusContext& c) {
  const sm::SubnetManager& m = svc.manager();
  const service::StoreStatus& st = svc.store_status();
  const sm::SweepReport& r = m.last_sweep();
  std::string s = fmt::format("fabricsm (pid {}), up {:.0f} s: {}\n", ::getpid(), uptime_s(c), status_summary(svc));
  s += fmt::format("port      {} port {}, GUID {}, LID {}\n", c.port.ca, c.port.port, c.port.guid, own_lid(svc, c));
  s += fmt::format("SMInfo    priority {}, ActCount {}\n", m.ha_role().config().priority, m.ha_role().act_count());
  s += fmt::format("routing   {}\n", m.config().routing_engine);
  if (m.sweeping())  // its report is being filled: nothing of it is worth printing yet
    s += fmt::format("sweep     #{} {} ({}): in progress\n", r.number, r.heavy ? "heavy" : "incremental", r.trigger);
  else if (m.sweeps() > 0)
    s += fmt::format("sweep     #{} {} ({}): {}; {} switches, {} CAs, max LID {}, engine {}, {} LFT blocks "
                     "written, {} SMPs, {:.1f} ms\n",
                     r.number, r.heavy ? "heavy" : "incremental", r.trigger, r.up ? "up" : r.failure, r.switches,
                     r.cas, r.max_lid, r.engine.empty() ? "-" : r.engine, r.program.lft_blocks_written, r.smps_sent,
                     r.total.wall_ms);
  const service::LoopFigures& l = svc.loop_figures();
  s += fmt::format("loop      {} turns, longest {:.1f} ms ({}; on CPU {:.0f} ms, {} page faults, preempted {} times), "
                   "p99 {:.2f} ms, {} over 50 ms\n",
                   l.turns, l.longest_ms, l.longest_doing.empty() ? "-" : l.longest_doing, l.longest_cost.cpu_ms,
                   l.longest_cost.page_faults, l.longest_cost.preempted, l.p99_ms(), l.long_turns);
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
