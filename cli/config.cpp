#include "cli/config.h"
#include "cli/web_token.h"

#include <fmt/format.h>
#include <grp.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "cli/commands.h"
#include "sm/mkey/secret.h"
#include "cli/config_option.h"
#include "cli/listen_address.h"
#include "cli/opensm_conf.h"
#include "mad/text.h"
#include "routing/engine.h"
#include "routing/hints.h"
#include "sm/guid2lid.h"
#include "sm/partitions/partitions.h"
#include "sm/qos_policy/parse.h"

namespace po = boost::program_options;

namespace cli {

namespace {

using namespace config_detail;

// A group's ID by name or number, as chgrp takes it.
std::optional<unsigned> group_id(const std::string& name) {
  std::vector<char> buf(16384);
  struct group g{}, *found = nullptr;
  if (::getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found) == 0 && found) return found->gr_gid;
  unsigned n = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
  if (ec == std::errc() && end == name.data() + name.size() && ::getgrgid_r(n, &g, buf.data(), buf.size(), &found) == 0 && found)
    return n;
  return std::nullopt;
}

using ms = std::chrono::milliseconds;
int64_t as_ms(mad::Nanos n) { return std::chrono::duration_cast<ms>(n).count(); }

const std::vector<Option>& table() {
  static const std::vector<Option> t = [] {
    std::vector<Option> all = {
      // Port
      text("ca", "CA name to run on, e.g. mlx5_0 (default: the first with an active InfiniBand port)", &DaemonConfig::ca),
      num("port", "port number on that CA (0: its first active port)", 0, 254,
          [](DaemonConfig& c, int64_t v) { c.port = static_cast<int>(v); }, [](const DaemonConfig& c) { return c.port; }),
      {"guid", "port GUID to run on, instead of ca/port (OpenSM: guid)",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         c.guid.clear();
         if (v.empty()) return {};
         // Always hex, as ibstat prints it, with or without 0x.
         auto g = u64(v.starts_with("0x") || v.starts_with("0X") ? v : "0x" + v);
         if (!g || *g == 0) return mad::fail(mad::Errc::parse, fmt::format("{} is not a port GUID", mad::quoted(v)));
         c.guid = fmt::format("0x{:016x}", *g);
         return {};
       },
       [](const DaemonConfig& c) { return c.guid; }},
      // SM and HA
      num("sm_priority", "SMInfo priority 0..15: the highest is master, ties to the lower port GUID", 0, 15,
          [](DaemonConfig& c, int64_t v) { c.sm.ha.priority = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ha.priority; }),
      {"sm_key", "SM_Key (64 bits): SMs whose SMInfo carries another key are not believed",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         auto k = u64(v);
         if (!k) return std::unexpected(k.error());
         c.sm.ha.sm_key = *k;
         return {};
       },
       [](const DaemonConfig& c) { return fmt::format("0x{:016x}", c.sm.ha.sm_key); }},
      flag("sticky_master", "keep mastership when a higher-priority SM appears (no handover back)",
           [](auto& c) -> auto& { return c.sm.ha.sticky; }),
      num("sminfo_polling_timeout", "ms between a standby's SMInfo polls of the master (OpenSM: 10000)", 10, 600000,
          [](DaemonConfig& c, int64_t v) { c.sm.ha.poll_interval = c.sm.ha.poll_timeout = ms(v); },
          [](const DaemonConfig& c) { return as_ms(c.sm.ha.poll_interval); }),
      num("polling_retry_number", "unanswered polls before the standby takes over (OpenSM: 4)", 1, 100,
          [](DaemonConfig& c, int64_t v) { c.sm.ha.max_misses = static_cast<int>(v); },
          [](const DaemonConfig& c) { return c.sm.ha.max_misses; }),
      num("activity_stall_polls", "answers in a row with an unchanged ActCount before the master counts as hung",
          1, 100, [](DaemonConfig& c, int64_t v) { c.sm.ha.stall_polls = static_cast<int>(v); },
          [](const DaemonConfig& c) { return c.sm.ha.stall_polls; }),
      num("sminfo_confirm_timeout", "ms a standby waits for one more SMInfo answer after polling_retry_number "
          "misses before it takes over (a busy master is not a dead one; adds this to a real failover); 0 = none",
          0, 60000, [](DaemonConfig& c, int64_t v) { c.sm.ha.confirm_timeout = ms(v); },
          [](const DaemonConfig& c) { return as_ms(c.sm.ha.confirm_timeout); }),
      // Sweeps and routing
      num("sweep_interval", "seconds between light sweeps; 0 = none (traps still react)", 0, 86400,
          [](DaemonConfig& c, int64_t v) { c.sm.sweep_interval = std::chrono::seconds(v); },
          [](const DaemonConfig& c) { return std::chrono::duration_cast<std::chrono::seconds>(c.sm.sweep_interval).count(); }),
      num("lft_verify_pass", "light sweeps per full read-back of every LFT block (each reads its share and "
          "rewrites what differs); 0 = none", 0, 100000,
          [](DaemonConfig& c, int64_t v) { c.sm.lft_verify_pass = static_cast<int>(v); },
          [](const DaemonConfig& c) { return c.sm.lft_verify_pass; }),
      num("lft_verify_max_blocks", "at most this many LFT blocks read back per light sweep", 1, 10000000,
          [](DaemonConfig& c, int64_t v) { c.sm.lft_verify_max = static_cast<size_t>(v); },
          [](const DaemonConfig& c) { return static_cast<int64_t>(c.sm.lft_verify_max); }),
      num("worker_timeout", "seconds a routing (or planning) job off the event loop may take; past it the SM "
          "logs E0410, steps down for a standby and exits (systemd restarts it)", 1, 86400,
          [](DaemonConfig& c, int64_t v) { c.sm.worker_timeout = std::chrono::seconds(v); },
          [](const DaemonConfig& c) { return std::chrono::duration_cast<std::chrono::seconds>(c.sm.worker_timeout).count(); }),
      {"routing_engine", [] {  // the registry's engines, each with its line
         static const std::string help = [] {
           std::vector<std::string> engines;
           for (auto name : routing::engine_names())
             engines.push_back(fmt::format("{} ({})", name, (*routing::make_engine(name))->description()));
           return fmt::format("engine or chain tried in order (`fabricsm run --routing help` lists what each "
                              "promises), of: {}", fmt::join(engines, "; "));
         }();
         return help.c_str();
       }(),
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         if (auto chain = routing::parse_chain(v); !chain) return std::unexpected(chain.error());
         c.sm.routing_engine = v;
         return {};
       },
       [](const DaemonConfig& c) { return c.sm.routing_engine; }},
      flag("repair_routes",
           "after a link or switch goes away, re-route only the broken routes (FALSE: route in full)",
           [](auto& c) -> auto& { return c.sm.repair_routes; }),
      text("root_guid_file", "updn/ftree root switches, one GUID per line (empty: detect)", &DaemonConfig::root_guid_file),
      {"hints_file", "adaptive-hint link weights: '<switch-guid> <port> <weight>' lines",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         c.sm.routing.hints_file = v;
         return {};
       },
       [](const DaemonConfig& c) { return c.sm.routing.hints_file; }},
      text("partition_config_file",
           "partitions file, in a subset of OpenSM's partitions.conf syntax (empty: Default=0x7fff, ipoib : ALL=full)",
           &DaemonConfig::partition_config_file),
      flag("allow_both_pkeys", "a port named =both in the partitions file holds the P_Key as full and as limited "
           "member; FALSE (OpenSM's default): as full member only",
           [](auto& c) -> auto& { return c.allow_both_pkeys; }),
      text("guid2lid_file", "OpenSM's LID cache (/var/cache/opensm/guid2lid): ports the store does not remember "
           "get the LIDs it gives them, read at start", &DaemonConfig::guid2lid_file),
      // Port parameters
      num("lmc", "LID mask control for CA ports: 2^lmc LIDs each (0..7)", 0, 7,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.lmc = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.lmc; }),
      num("subnet_timeout", "PortInfo SubnetTimeOut: 4.096 us * 2^value", 0, 31,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.subnet_timeout = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.subnet_timeout; }),
      num("packet_life_time", "SwitchInfo LifeTimeValue of every switch", 0, 31,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.switch_life_time = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.switch_life_time; }),
      num("head_of_queue_lifetime", "HOQLife of switch-to-switch ports", 0, 31,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.hoq_life = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.hoq_life; }),
      num("leaf_head_of_queue_lifetime", "HOQLife of switch ports facing CAs", 0, 31,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.leaf_hoq_life = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.leaf_hoq_life; }),
      num("vl_stall_count", "VLStallCount of switch ports", 0, 7,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.vl_stall = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.vl_stall; }),
      num("max_op_vls", "OperationalVLs cap (1: VL0 .. 5: VL0-14), also capped by both ends' VLCap", 1, 5,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.max_op_vls = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.max_op_vls; }),
      {"m_key", "one M_Key for every port (0: none); m_key_secret_file gives each port its own instead",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         if (v == "hidden")
           return mad::fail(mad::Errc::invalid, "the key is not shown by --dump-config or in the log: write it here");
         auto k = u64(v);
         if (!k) return std::unexpected(k.error());
         c.sm.ports.m_key = *k;
         return {};
       },
       // A secret: shown nowhere (the dump, a reload's log line).
       [](const DaemonConfig& c) { return c.sm.ports.m_key ? std::string("hidden") : fmt::format("0x{:016x}", 0); }},
      num("m_key_lease_period", "M_KeyLeasePeriod, seconds: after a refused SMP a port whose SM is gone drops its "
          "protection after this long, so another SM can take it over (0: never)", 0, 65535,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.m_key_lease = static_cast<uint16_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.m_key_lease; }),
      num("m_key_protection_level", "M_KeyProtectBits written with the key: 0 Gets read the key, 1 Gets work but "
          "show no key, 2 and 3 Gets refused too (Sets need the key at every level)", 0, 3,
          [](DaemonConfig& c, int64_t v) { c.sm.ports.m_key_protect = static_cast<uint8_t>(v); },
          [](const DaemonConfig& c) { return c.sm.ports.m_key_protect; }),
      text("m_key_secret_file", "a file (mode 0600, 16 bytes or more) whose secret gives every port its own M_Key "
           "(keyed hash with the port GUID): SMs sharing it know every key; empty: m_key",
           &DaemonConfig::m_key_secret_file),
      // Transactions
      num("max_wire_smps", "SMPs in flight at once (OpenSM: 4)", 1, 4096,
          [](DaemonConfig& c, int64_t v) { c.sm.mads.window = static_cast<int>(v); },
          [](const DaemonConfig& c) { return c.sm.mads.window; }),
      num("transaction_timeout", "ms before an SMP's first resend; doubled each time (OpenSM: 200)", 1, 60000,
          [](DaemonConfig& c, int64_t v) { c.sm.mads.timeout = ms(v); },
          [](const DaemonConfig& c) { return as_ms(c.sm.mads.timeout); }),
      num("transaction_retries", "resends of an SMP before it counts as lost (OpenSM: 3)", 0, 20,
          [](DaemonConfig& c, int64_t v) { c.sm.mads.retries = static_cast<int>(v); },
          [](const DaemonConfig& c) { return c.sm.mads.retries; }),
      // Store, logs, control
      text("db_path", "SQLite database: LIDs, programmed tables, sweeps, events", &DaemonConfig::db_path),
      {"on_corrupt_db", "refuse: stop with an error; fresh: keep the file aside and start from the fabric",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         if (v == "refuse") c.on_corrupt_db = sm::store::OnCorrupt::refuse;
         else if (v == "fresh") c.on_corrupt_db = sm::store::OnCorrupt::start_fresh;
         else return mad::fail(mad::Errc::parse, fmt::format("{} is not refuse or fresh", mad::quoted(v)));
         return {};
       },
       [](const DaemonConfig& c) {
         return std::string(c.on_corrupt_db == sm::store::OnCorrupt::refuse ? "refuse" : "fresh");
       }},
      {"db_group", "A group that may read the database (mode 0640, e.g. for monitoring); empty: owner only (0600)",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         c.db_group = v;
         c.db_gid.reset();
         if (v.empty()) return {};
         const auto gid = group_id(v);
         if (!gid) return mad::fail(mad::Errc::parse, fmt::format("no group {}", mad::quoted(v)));
         c.db_gid = *gid;
         return {};
       },
       [](const DaemonConfig& c) { return c.db_group; }},
      {"log_level", "error, warn, info or debug",
       [](const std::string& v, DaemonConfig& c) -> mad::Result<void> {
         bool ok = false;
         (void)sm::parse_level(v, &ok);
         if (!ok) return mad::fail(mad::Errc::parse, fmt::format("{} is not error, warn, info or debug", mad::quoted(v)));
         c.log_level = v;
         return {};
       },
       [](const DaemonConfig& c) { return c.log_level; }},
      text("log_file", "Also log to this file, each line with its time (OpenSM's -f); SIGUSR1 reopens it "
           "(logrotate); empty: stderr only (the journal under systemd)", &DaemonConfig::log_file),
      flag("accum_log_file", "Append to log_file at start; FALSE: start it afresh",
           [](auto& c) -> auto& { return c.accum_log_file; }),
      num("log_max_size", "log_file moves to log_file.1 when it would pass this many MB; 0: no limit", 0, 1 << 20,
          [](DaemonConfig& c, int64_t v) { c.log_max_size_mb = static_cast<uint64_t>(v); },
          [](const DaemonConfig& c) { return static_cast<int64_t>(c.log_max_size_mb); }),
      flag("daemon", "Run in the background, detached (OpenSM's -B; not under systemd); needs log_file",
           [](auto& c) -> auto& { return c.daemon; }),
      text("control_socket", "Unix socket `fabricsm status` talks to (owner-only)", &DaemonConfig::control_socket),
      listen("metrics_listen", "Prometheus endpoint (GET /metrics): HOST:PORT, or PORT for 127.0.0.1:PORT; "
             "another address than loopback only when written here; empty: none", &DaemonConfig::metrics_listen),
      listen("web_listen", "The web view (GET /, /api/...): HOST:PORT, or PORT for 127.0.0.1:PORT; an address "
             "other than loopback needs web_token_file; empty: none", &DaemonConfig::web_listen),
      text("web_token_file", "A file (mode 0600, 16 bytes or more) holding the web view's access token; every "
           "request must then carry it (login form, or Authorization: Bearer); empty: none (loopback only)",
           &DaemonConfig::web_token_file),
  };
    // Port counters and health (config_perfmgr.cpp), before the store's options.
    const std::vector<Option>& perf = perfmgr_options();
    const auto at = std::find_if(all.begin(), all.end(), [](const Option& o) { return std::string_view(o.name) == "db_path"; });
    all.insert(at, perf.begin(), perf.end());
    // QoS tables (config_qos.cpp), after the port parameters.
    const std::vector<Option>& qos = qos_options();
    const auto tx = std::find_if(all.begin(), all.end(), [](const Option& o) { return std::string_view(o.name) == "max_wire_smps"; });
    all.insert(tx, qos.begin(), qos.end());
    return all;
  }();
  return t;
}

// Section headings of the config file, by the first option under each.
const std::vector<std::pair<std::string_view, std::string_view>>& groups() {
  static const std::vector<std::pair<std::string_view, std::string_view>> g = {
      {"ca", "Which port"},           {"sm_priority", "High availability"},
      {"sweep_interval", "Sweeps and routing"}, {"lmc", "Port parameters"},
      {"qos", "QoS tables"}, {"max_wire_smps", "Transactions"}, {"perfmgr", "Port counters and health"},
      {"db_path", "Store, logs, control"},
  };
  return g;
}

const Option* find_option(std::string_view name) {
  for (const Option& o : table())
    if (name == o.name) return &o;
  return nullptr;
}

}  // namespace

DaemonConfig::DaemonConfig() {
  sm.routing_engine = kDefaultRoutingEngine;
  // A real HCA's (and ibsim's) MAD path: a window of 64 keeps the kernel's queues short, and
  // OpenSM's first timeout of 200 ms suits a loaded head node.
  sm.mads.window = 64;
  sm.mads.timeout = std::chrono::milliseconds(200);
  sm.mads.retries = 3;
}

void DaemonConfig::finalize() {
  // Resends double the timeout up to 1 s, or the first timeout when that is longer.
  sm.mads.max_timeout = std::max(sm.mads.timeout, mad::Nanos(std::chrono::seconds(1)));
  sm.ha.poll_timeout = sm.ha.poll_interval;
}

po::options_description config_options() {
  po::options_description d("Configuration (the same names in fabricsm.conf)");
  const DaemonConfig defaults;
  for (const Option& o : table())
    d.add_options()(o.name, po::value<std::string>()->value_name("VALUE"),
                    fmt::format("{} [default: {}]", o.help, o.get(defaults)).c_str());
  return d;
}

mad::Result<void> apply_config_file(const std::string& path, DaemonConfig& cfg) {
  auto read = mad::read_text_file(path, "a configuration file");
  if (!read) return std::unexpected(read.error());
  auto lines = parse_config_lines(*read, path);
  if (!lines) return std::unexpected(lines.error());
  DaemonConfig next = cfg;  // all or nothing
  std::vector<std::string> ignored;
  for (const ConfigLine& l : *lines) {
    const Option* o = find_option(l.key);
    const OpenSmKey* osm = find_opensm_key(l.key);
    const bool at_opensm_default = osm && asks_nothing(*osm, l.value);
    if (!o && !osm)
      return mad::fail(mad::Errc::parse, fmt::format("{}:{}: unknown key {}", path, l.line, mad::quoted(l.key)));
    if (!o) {
      if (!at_opensm_default) ignored.push_back(fmt::format("{} {} (line {})", l.key, l.value, l.line));
      continue;
    }
    if (l.opensm_form && at_opensm_default) continue;
    if (auto r = o->set(l.value, next); !r)
      return mad::fail(mad::Errc::parse,
                       fmt::format("{}:{}: bad value for '{}': {}", path, l.line, l.key, r.error().message));
    next.origin[o->name] = fmt::format("{}:{}", path, l.line);
  }
  if (!ignored.empty())
    next.notes.push_back(fmt::format("{}: OpenSM options fabricsm does not implement, ignored: {}", path,
                                     fmt::join(ignored, ", ")));
  cfg = std::move(next);
  return {};
}

mad::Result<void> apply_options(const po::variables_map& vm, DaemonConfig& cfg) {
  DaemonConfig next = cfg;
  for (const Option& o : table()) {
    if (!vm.count(o.name) || vm[o.name].defaulted()) continue;
    if (auto r = o.set(vm[o.name].as<std::string>(), next); !r)
      return mad::fail(mad::Errc::parse, fmt::format("--{}: {}", o.name, r.error().message));
    next.origin[o.name] = fmt::format("--{}", o.name);
  }
  cfg = std::move(next);
  return {};
}

mad::Result<std::vector<mad::Guid>> load_guid_file(const std::string& path) {
  auto text = mad::read_text_file(path, "a GUID file");
  if (!text) return std::unexpected(text.error());
  std::istringstream f(*text);
  std::vector<mad::Guid> out;
  std::string line;
  for (int n = 1; std::getline(f, line); ++n) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string w;
    if (!(words >> w)) continue;
    auto g = u64(w);
    if (!g || *g == 0) return mad::fail(mad::Errc::parse, fmt::format("{}:{}: {} is not a GUID", path, n, mad::quoted(w)));
    out.emplace_back(*g);
    if (words >> w) return mad::fail(mad::Errc::parse, fmt::format("{}:{}: one GUID per line", path, n));
  }
  return out;
}

mad::Result<DaemonConfig> load_config(const std::string& file, const po::variables_map& vm) {
  DaemonConfig cfg;
  if (!file.empty())
    if (auto r = apply_config_file(file, cfg); !r) return std::unexpected(r.error());
  if (auto r = apply_options(vm, cfg); !r) return std::unexpected(r.error());
  cfg.finalize();
  // The files the options name, read now: a bad one is refused (naming the option, the file and
  // its line) before anything uses it.
  auto named = [&cfg](const std::string& key, const mad::Error& e) {
    const auto at = cfg.origin.find(key);
    std::string where = key;  // the option, and where it was set: the file and line, or the command line
    if (at != cfg.origin.end()) where = at->second.starts_with("--") ? at->second : at->second + ": " + key;
    return std::unexpected(mad::Error{e.code, fmt::format("{}: {}", where, e.message)});
  };
  if (!cfg.root_guid_file.empty()) {
    auto roots = load_guid_file(cfg.root_guid_file);
    if (!roots) return named("root_guid_file", roots.error());
    cfg.sm.routing.root_guids = std::move(*roots);
  }
  if (!cfg.sm.routing.hints_file.empty()) {
    auto hints = routing::load_hints(cfg.sm.routing.hints_file);
    if (!hints) return named("hints_file", hints.error());
    cfg.sm.routing.hints = std::move(*hints);
  }
  if (!cfg.partition_config_file.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(cfg.partition_config_file, ec) && !ec) {
      // As OpenSM: no file, the default partition (Debian's opensm.conf names one that is not there).
      cfg.notes.push_back(fmt::format("partition_config_file {} does not exist: the default partition only ({})",
                                      cfg.partition_config_file, "Default=0x7fff, ipoib : ALL=full"));
    } else {
      auto parts = sm::load_partitions(cfg.partition_config_file);
      if (!parts) return named("partition_config_file", parts.error());
      cfg.sm.partitions = std::move(*parts);
    }
  }
  cfg.sm.partitions.allow_both_pkeys = cfg.allow_both_pkeys;
  if (!cfg.qos_policy_file.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(cfg.qos_policy_file, ec) && !ec) {
      // As OpenSM: no file, no policy (its default path is often not there); said only when it matters.
      if (cfg.sm.qos.enabled)
        cfg.notes.push_back(fmt::format("qos_policy_file {} does not exist: no QoS policy, PathRecords answer SL 0",
                                        cfg.qos_policy_file));
    } else {
      auto policy = sm::qos::load_policy(cfg.qos_policy_file);
      if (!policy) return named("qos_policy_file", policy.error());
      // Port groups may name partitions: those of the partitions file read above.
      if (auto r = sm::qos::resolve_partitions(*policy, cfg.sm.partitions, cfg.qos_policy_file); !r)
        return named("qos_policy_file", r.error());
      cfg.sm.qos_policy = std::make_shared<const sm::qos::Policy>(std::move(*policy));
    }
  }
  if (!cfg.m_key_secret_file.empty() && cfg.sm.ports.m_key_protect >= 2)
    // A port's key follows from its GUID, which a Get must read first: refused at 2 and 3.
    return mad::fail(mad::Errc::invalid,
                     "m_key_secret_file with m_key_protection_level 2 or 3: a restarted or standby SM could not read a "
                     "port before it knows the port's GUID, which gives its key; use level 1 (Gets work, keys hidden, "
                     "Sets need the key) or one m_key for every port");
  if (!cfg.m_key_secret_file.empty()) {  // kept out of the config dump, the log and the store
    auto secret = sm::mkey::read_secret_file(cfg.m_key_secret_file);
    if (!secret) return named("m_key_secret_file", secret.error());
    cfg.sm.m_key_secret = std::move(*secret);
  }
  if (!cfg.web_token_file.empty()) {  // kept out of the config dump and the log, as the M_Key secret
    auto token = read_web_token(cfg.web_token_file);
    if (!token) return named("web_token_file", token.error());
    cfg.web_token = std::move(*token);
  }
  if (!cfg.web_listen.empty() && cfg.web_token.empty())
    if (auto a = parse_listen_address(cfg.web_listen); a && !a->loopback)
      return mad::fail(mad::Errc::invalid, fmt::format("web_listen {} is not a loopback address: set web_token_file "
                                                       "too, so that only those holding the token see the fabric",
                                                       a->str()));
  if (cfg.daemon && cfg.log_file.empty())
    return mad::fail(mad::Errc::invalid, "daemon: a daemon in the background has no stderr: set log_file too");
  if (!cfg.guid2lid_file.empty()) {
    auto lids = sm::load_guid2lid(cfg.guid2lid_file);
    if (!lids) return named("guid2lid_file", lids.error());
    cfg.imported_lids = std::move(*lids);
  }
  return cfg;
}

std::string config_file_text(const DaemonConfig& cfg) {
  std::string out =
      "# fabricsm.conf -- fabricsm's configuration (`fabricsm run --dump-config`; the package keeps it in /etc/fabricsm/).\n"
      "#\n"
      "# Every option is listed here with its help; those at their default are commented out. The\n"
      "# same names work on the command line (`fabricsm run --sm_priority 10`), and the command line\n"
      "# wins. Names follow OpenSM's opensm.conf where the meaning is the same, and an opensm.conf\n"
      "# (`key value` lines) is read as well (`fabricsm config import` converts one). An unknown key\n"
      "# or a bad value stops the daemon at start with the file, line and key; on SIGHUP a bad file\n"
      "# is refused and the running settings stay.\n";
  const DaemonConfig defaults;
  for (const Option& o : table()) {
    for (const auto& [first, title] : groups())
      if (first == o.name) out += fmt::format("\n# --- {} {:-<{}}\n", title, "", 88 - title.size());
    const std::string value = o.get(cfg);
    out += fmt::format("# {}.\n{}{} ={}{}\n", o.help, value == o.get(defaults) ? "# " : "", o.name,
                       value.empty() ? "" : " ", value);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> describe(const DaemonConfig& cfg) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Option& o : table()) out.emplace_back(o.name, o.get(cfg));
  return out;
}

}  // namespace cli
