#include "cli/reload.h"

#include <fmt/format.h>

#include <set>

namespace cli {

bool restart_only(const std::string& key) {
  static const std::set<std::string> keys = {
      "ca", "port", "guid", "sm_priority", "sm_key", "sticky_master", "sminfo_polling_timeout",
      "polling_retry_number", "activity_stall_polls", "sminfo_confirm_timeout", "max_wire_smps", "transaction_timeout",
      "transaction_retries", "db_path", "on_corrupt_db", "db_group", "control_socket", "lmc",
      "metrics_listen", "perfmgr_max_outstanding_queries", "guid2lid_file", "log_file",
      "accum_log_file", "log_max_size", "daemon", "m_key", "m_key_lease_period", "m_key_protection_level",
      "m_key_secret_file", "web_listen", "web_token_file"};
  return keys.count(key) != 0;
}

Reload plan_reload(const DaemonConfig& running, const DaemonConfig& next) {
  Reload r;
  const auto before = describe(running), after = describe(next);
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i].second == after[i].second) continue;
    (restart_only(before[i].first) ? r.restart : r.changed)
        .push_back(fmt::format("{} = {}", after[i].first, after[i].second));
  }
  r.apply = next;
  r.apply.once = running.once;
  r.apply.ca = running.ca;
  r.apply.port = running.port;
  r.apply.guid = running.guid;
  r.apply.sm.ha = running.sm.ha;
  r.apply.sm.mads = running.sm.mads;
  r.apply.sm.ports.lmc = running.sm.ports.lmc;
  r.apply.sm.ports.m_key = running.sm.ports.m_key;  // the Sets that change keys carry the old ones
  r.apply.sm.ports.m_key_lease = running.sm.ports.m_key_lease;
  r.apply.sm.ports.m_key_protect = running.sm.ports.m_key_protect;
  r.apply.sm.m_key_secret = running.sm.m_key_secret;
  r.apply.m_key_secret_file = running.m_key_secret_file;
  r.apply.db_path = running.db_path;
  r.apply.on_corrupt_db = running.on_corrupt_db;
  r.apply.db_group = running.db_group;
  r.apply.db_gid = running.db_gid;
  r.apply.control_socket = running.control_socket;
  r.apply.perf.max_outstanding = running.perf.max_outstanding;
  r.apply.metrics_listen = running.metrics_listen;
  r.apply.web_listen = running.web_listen;
  r.apply.web_token_file = running.web_token_file;
  r.apply.web_token = running.web_token;
  r.apply.log_file = running.log_file;
  r.apply.accum_log_file = running.accum_log_file;
  r.apply.log_max_size_mb = running.log_max_size_mb;
  r.apply.daemon = running.daemon;
  return r;
}

}  // namespace cli
