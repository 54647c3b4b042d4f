// The daemon's configuration: every option of `fabricsm run` and of /etc/fabricsm/fabricsm.conf,
// with the same names in both (OpenSM's names where the meaning is the same: sm_priority,
// sweep_interval, routing_engine, max_wire_smps, ...). The command line is read with
// Boost.Program_options, files in fabricsm's form or OpenSM's (cli/opensm_conf.h); a bad file
// is refused with the key and the line, and changes nothing.
#pragma once

#include <boost/program_options.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mad/error.h"
#include "sm/adapt/hint_loop.h"
#include "sm/perfmgr/config.h"
#include "sm/store/store.h"
#include "sm/subnet_manager.h"

namespace cli {

struct DaemonConfig {
  // Which port to run on (all empty: the first active InfiniBand port).
  std::string ca;
  int port = 0;
  std::string guid;  // port GUID, as OpenSM's `guid`
  sm::SmConfig sm;   // sweeps, routing, port parameters, transactions, HA (sm.ha)
  sm::perfmgr::Config perf;  // port counters (perfmgr_*) and health rules (health_*)
  sm::adapt::Config adapt;   // traffic hints for adaptive-hint (traffic_*)
  std::string root_guid_file;
  std::string partition_config_file;  // read into sm.partitions by load_config
  bool allow_both_pkeys = false;      // OpenSM's: `=both` gives a port both entries, else the full one
  std::string qos_policy_file;        // read into sm.qos_policy by load_config
  std::string guid2lid_file;          // OpenSM's LID cache, read into imported_lids by load_config
  std::string m_key_secret_file;      // read into sm.m_key_secret by load_config
  sm::LidMap imported_lids;
  std::string db_path = "/var/lib/fabricsm/fabricsm.db";
  sm::store::OnCorrupt on_corrupt_db = sm::store::OnCorrupt::refuse;
  std::string db_group;               // may read the store (0640); empty: owner only (0600)
  std::optional<unsigned> db_gid;     // db_group's ID, resolved when the option is read
  std::string log_level = "info";
  std::string log_file;         // also log here, with timestamps; empty: stderr (the journal) only
  bool accum_log_file = true;   // append to log_file at start (OpenSM's default), else start it afresh
  uint64_t log_max_size_mb = 0; // log_file moves to log_file.1 past this size; 0: no limit
  bool daemon = false;          // OpenSM's -B: run in the background (needs log_file)
  std::string control_socket = "/run/fabricsm/fabricsm.sock";
  std::string metrics_listen;  // the Prometheus endpoint, "127.0.0.1:9684"; empty: none
  std::string web_listen;      // the web view, "127.0.0.1:9685"; empty: none
  std::string web_token_file;  // read into web_token by load_config
  std::string web_token;       // the web view's access token (never dumped nor logged)
  bool once = false;  // command line only
  // What reading the files found worth a warning (OpenSM keys not implemented, a missing
  // partitions file): the daemon logs them.
  std::vector<std::string> notes;
  // Where each option given was set ("FILE:LINE" or "--name"): an error in the file an option
  // names (root_guid_file, ...) says where that option came from.
  std::map<std::string, std::string> origin;

  DaemonConfig();  // the documented defaults (routing_engine "ftree,updn,minhop", ...)
  // Settings derived from others (the longest resend timeout, the heartbeat's poll timeout);
  // call after the options are applied.
  void finalize();
};

// The options, for --help and for both parsers. Every value goes through a checked setter
// into the DaemonConfig passed to parse_*().
boost::program_options::options_description config_options();

// Applies a configuration file over `cfg`. Errors name the file, the line and the key.
mad::Result<void> apply_config_file(const std::string& path, DaemonConfig& cfg);
// Applies parsed command-line options (those given explicitly) over `cfg`.
mad::Result<void> apply_options(const boost::program_options::variables_map& vm, DaemonConfig& cfg);

// Defaults, then the file (when not empty), then the command line; derived settings, the root
// GUID file and the hints file read and checked. What the daemon does at start and on SIGHUP.
mad::Result<DaemonConfig> load_config(const std::string& file, const boost::program_options::variables_map& vm);
// A file of GUIDs, one per line, '#' comments (root_guid_file). Errors name the line.
mad::Result<std::vector<mad::Guid>> load_guid_file(const std::string& path);

// The config file: every option with its help, those at their default commented out, the others
// set as in `cfg` (`run --dump-config`, `config import`). With the defaults, it is
// etc/fabricsm.conf (a test keeps the two the same).
std::string config_file_text(const DaemonConfig& cfg);

// One line per option "name = value", as a config file would say it (for status and --help).
std::vector<std::pair<std::string, std::string>> describe(const DaemonConfig& cfg);

}  // namespace cli
