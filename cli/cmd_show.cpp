// fabricsm show: what the store knows, as aligned tables or JSON. Opens the database read-only
// (WAL: it works while the daemon runs and writes).
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <ctime>
#include <iostream>
#include <set>

#include "cli/commands.h"
#include "cli/show_counters.h"
#include "cli/table.h"
#include "mad/port_info.h"
#include "sm/store/store.h"

namespace po = boost::program_options;

namespace cli {

std::string when_ms(int64_t ms) {
  if (ms <= 0) return "-";
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string guid(uint64_t g) { return fmt::format("0x{:016x}", g); }
// A time as the table shows it (UTC), null in JSON when never.
Cell when(int64_t ms) { return ms > 0 ? Cell(when_ms(ms)) : Cell::none(); }
// A log code as the log line writes it: the level's letter and four digits ("I0101").
std::string code_name(const std::string& level, int64_t code) {
  const char letter = level == "error" ? 'E' : level == "warn" ? 'W' : level == "debug" ? 'D' : 'I';
  return fmt::format("{}{:04d}", letter, code);
}
const char* type_name(int64_t t) { return t == 2 ? "switch" : t == 3 ? "router" : "CA"; }
const char* state_name(int64_t s) {
  static const char* n[] = {"-", "Down", "Init", "Armed", "Active"};
  return s >= 0 && s <= 4 ? n[s] : "?";
}

using Fill = mad::Result<Table> (*)(sm::store::Db&, const std::vector<std::string>&);

mad::Result<Table> query(sm::store::Db& db, const std::string& sql, std::vector<std::string> cols,
                         std::vector<bool> numeric,
                         const std::function<std::vector<Cell>(const sm::store::Stmt&)>& row,
                         const std::function<void(sm::store::Stmt&)>& bind = {}) {
  auto st = db.prepare(sql);
  if (!st) return std::unexpected(st.error());
  if (bind) bind(*st);
  Table t{std::move(cols), {}, std::move(numeric)};
  while (true) {
    auto r = st->step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    t.rows.push_back(row(*st));
  }
  return t;
}

}  // namespace

int cmd_show(int argc, char** argv) {
  std::string what, db_path = "/var/lib/fabricsm/fabricsm.db";
  std::vector<std::string> args;
  bool json = false;
  int limit = 50;
  std::string port_spec;
  CountersQuery counters;
  int top = 0;
  po::options_description opts(
      "fabricsm show {nodes|links|lids|routes LID|events|sweeps|sms|counters|health} [--db PATH] [--json]\n"
      "              counters [--port NODE:PORT] [--top N [--by COUNTER]]\n\n"
      "Prints what the store holds (read-only; works while the daemon runs).\n\nOptions");
  opts.add_options()("help,h", "this help")("db", po::value(&db_path)->default_value(db_path), "database")(
      "json", po::bool_switch(&json), "JSON instead of a table")(
      "limit", po::value(&limit)->default_value(limit), "events and sweeps: the newest this many")(
      "port", po::value(&port_spec), "counters: only this port (node GUID or description, ':', port)")(
      "top", po::value(&top), "counters: the N ports with the highest rate of --by")(
      "by", po::value(&counters.by)->default_value(counters.by), "counters: the counter whose rate --top orders by");
  po::options_description hidden;
  hidden.add_options()("what", po::value(&what))("args", po::value(&args));
  po::positional_options_description pos;
  pos.add("what", 1).add("args", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm show: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  // Usage errors before the store is opened: they are the same whether it exists or not.
  auto usage = [](const std::string& m) {
    fmt::print(stderr, "fabricsm show: {}\n", m);
    return kExitUsage;
  };
  static const std::set<std::string> kTables = {"nodes", "links", "lids", "routes", "events", "sweeps", "sms",
                                                "counters", "health"};
  if (what.empty()) return usage("which table? (nodes, links, lids, routes LID, events, sweeps, sms, counters, health)");
  if (!kTables.contains(what))
    return usage(fmt::format("unknown table '{}' (nodes, links, lids, routes LID, events, sweeps, sms, counters, health)", what));
  long lid = 0;
  if (what == "routes") {
    if (args.size() != 1) return usage("routes: give one destination LID");
    char* end = nullptr;
    lid = std::strtol(args[0].c_str(), &end, 0);
    if (*end != '\0' || lid <= 0 || lid > 0xBFFF) return usage(fmt::format("routes: '{}' is not a unicast LID", args[0]));
  } else if (!args.empty()) {
    return usage(fmt::format("{}: unexpected argument '{}'", what, args[0]));
  }
  if (limit < 1) return usage(fmt::format("--limit {}: must be 1 or more", limit));
  if (what != "counters" && (vm.count("port") || vm.count("top") || !vm["by"].defaulted()))
    return usage("--port, --top and --by are options of `show counters`");
  if (vm.count("top") && top < 1) return usage(fmt::format("--top {}: must be 1 or more", top));
  counters.top = static_cast<size_t>(top);
  if (!port_spec.empty()) {
    auto p = parse_port_spec(port_spec);
    if (!p) return usage(fmt::format("--port: {}", p.error().message));
    counters.port = *p;
  }
  auto store = sm::store::Store::open({.path = db_path, .read_only = true});
  if (!store) {
    fmt::print(stderr, "fabricsm show: {}\n", store.error().message);
    return 1;
  }
  sm::store::Db& db = (*store)->db();
  mad::Result<Table> t = mad::fail(mad::Errc::invalid, "no table");
  if (what == "counters") {
    t = counters_table(**store, counters, json);
  } else if (what == "health") {
    t = health_table(**store);
  } else if (what == "nodes") {
    t = query(db, "SELECT guid, type, num_ports, description, present, first_seen, last_seen FROM nodes ORDER BY guid",
              {"guid", "type", "ports", "description", "present", "first_seen", "last_seen"},
              {false, false, true, false, false, false, false}, [](const sm::store::Stmt& s) {
                return std::vector<Cell>{guid(s.u64(0)), type_name(s.i64(1)), Cell::number(s.i64(2)), s.text(3),
                                         Cell::flag(s.i64(4) != 0), when(s.i64(5)), when(s.i64(6))};
              });
  } else if (what == "links") {
    // Every cable seen, present or gone, with its rate while it is up.
    t = query(db,
              "SELECT coalesce(a.description, ''), c.a_port, coalesce(b.description, ''), c.b_port, p.width, p.speed, "
              "p.speed_ext, p.state, c.present, c.first_seen, c.last_seen FROM cables c "
              "LEFT JOIN nodes a ON a.guid = c.a_guid LEFT JOIN nodes b ON b.guid = c.b_guid "
              "LEFT JOIN ports p ON p.node_guid = c.a_guid AND p.port = c.a_port AND c.present = 1 "
              "ORDER BY c.a_guid, c.a_port, c.b_guid, c.b_port",
              {"from", "from_port", "to", "to_port", "rate", "state", "present", "first_seen", "last_seen"},
              {false, true, false, true, false, false, false, false, false}, [](const sm::store::Stmt& s) {
                const bool up = s.i64(8) != 0 && !s.is_null(4);
                return std::vector<Cell>{
                    s.text(0), Cell::number(s.i64(1)), s.text(2), Cell::number(s.i64(3)),
                    up ? Cell(mad::link_rate_name(static_cast<uint8_t>(s.i64(4)), static_cast<uint8_t>(s.i64(5)),
                                                  static_cast<uint8_t>(s.i64(6))))
                       : Cell::none(),
                    up ? Cell(state_name(s.i64(7))) : Cell::none(), Cell::flag(s.i64(8) != 0), when(s.i64(9)),
                    when(s.i64(10))};
              });
  } else if (what == "lids") {
    t = query(db,
              "SELECT l.lid, l.lmc, l.port_guid, coalesce(n.description, ''), coalesce(p.port, -1), l.first_seen, "
              "l.last_seen, p.node_guid IS NOT NULL FROM lids l LEFT JOIN ports p ON p.port_guid = l.port_guid "
              "AND (p.port = 0 OR p.port_guid != p.node_guid) LEFT JOIN nodes n ON n.guid = p.node_guid "
              "GROUP BY l.port_guid ORDER BY l.lid",
              {"lid", "lmc", "port_guid", "node", "port", "first_seen", "last_seen", "present"},
              {true, true, false, false, true, false, false, false}, [](const sm::store::Stmt& s) {
                return std::vector<Cell>{Cell::number(s.i64(0)), Cell::number(s.i64(1)), guid(s.u64(2)), s.text(3),
                                         s.i64(4) < 0 ? Cell::none("") : Cell::number(s.i64(4)), when(s.i64(5)),
                                         when(s.i64(6)), Cell::flag(s.i64(7) != 0)};
              });
  } else if (what == "routes") {
    // A LID no port holds would list every switch as "(no route)": say so instead.
    auto holder = db.prepare("SELECT count(*) FROM lids WHERE lid <= ?1 AND ?1 < lid + (1 << lmc)");
    if (!holder) {
      fmt::print(stderr, "fabricsm show: {}\n", holder.error().message);
      return 1;
    }
    holder->bind(1, static_cast<int64_t>(lid));
    if (auto r = holder->step(); r && *r && holder->i64(0) == 0) {
      fmt::print(stderr, "fabricsm show routes: no port has LID {} (`fabricsm show lids` lists them)\n", lid);
      return 1;
    }
    // Each switch's entry for the LID, and where that port leads.
    t = query(db,
              "SELECT s.description, w.switch_guid, substr(w.lft, ?1 + 1, 1), w.top FROM switch_lfts w "
              "JOIN nodes s ON s.guid = w.switch_guid ORDER BY w.switch_guid",
              {"switch", "guid", "out_port", "next"}, {false, false, true, false},
              [&](const sm::store::Stmt& s) {
                const auto b = s.blob(2);
                const int port = b.empty() || lid > s.i64(3) ? 255 : b[0];
                std::string next = port == 0 ? "(this switch)" : port == 255 ? "(no route)" : "";
                if (next.empty()) {
                  auto q = db.prepare("SELECT n.description, CASE WHEN l.a_guid = ?1 THEN l.b_port ELSE l.a_port END "
                                      "FROM links l JOIN nodes n ON n.guid = CASE WHEN l.a_guid = ?1 THEN l.b_guid "
                                      "ELSE l.a_guid END WHERE (l.a_guid = ?1 AND l.a_port = ?2) OR "
                                      "(l.b_guid = ?1 AND l.b_port = ?2)");
                  if (q) {
                    q->bind(1, s.u64(1)).bind(2, port);
                    if (auto r = q->step(); r && *r) next = fmt::format("{}[{}]", q->text(0), q->i64(1));
                  }
                }
                return std::vector<Cell>{s.text(0), guid(s.u64(1)), port == 255 ? Cell::none() : Cell::number(port), next};
              },
              [&](sm::store::Stmt& s) { s.bind(1, static_cast<int64_t>(lid)); });
  } else if (what == "events") {
    t = query(db, "SELECT time, level, code, message FROM (SELECT * FROM events ORDER BY id DESC LIMIT ?1) ORDER BY id",
              {"time", "level", "code", "message"}, {false, false, true, false},
              [](const sm::store::Stmt& s) {
                Cell code = code_name(s.text(1), s.i64(2));
                code.text = fmt::format("{:04d}", s.i64(2));  // the level is the column before
                return std::vector<Cell>{when(s.i64(0)), s.text(1), std::move(code), s.text(3)};
              },
              [&](sm::store::Stmt& s) { s.bind(1, limit); });
  } else if (what == "sweeps") {
    t = query(db,
              "SELECT number, started, heavy, trigger, up, switches, cas, smps, lft_blocks, port_sets, total_ms, "
              "engine FROM (SELECT * FROM sweeps ORDER BY id DESC LIMIT ?1) ORDER BY id",
              {"sweep", "started", "kind", "trigger", "up", "switches", "CAs", "SMPs", "LFT_blocks", "port_sets",
               "ms", "engine"},
              {true, false, false, false, false, true, true, true, true, true, true, false},
              [](const sm::store::Stmt& s) {
                return std::vector<Cell>{Cell::number(s.i64(0)), when(s.i64(1)), s.i64(2) ? "heavy" : "incremental",
                                         s.text(3), Cell::flag(s.i64(4) != 0, "yes", "NO"), Cell::number(s.i64(5)),
                                         Cell::number(s.i64(6)), Cell::number(s.i64(7)), Cell::number(s.i64(8)),
                                         Cell::number(s.i64(9)), Cell::real(s.f64(10), 1), s.text(11)};
              },
              [&](sm::store::Stmt& s) { s.bind(1, limit); });
  } else if (what == "sms") {
    t = query(db, "SELECT guid, lid, priority, state, act_count, sm_key_ok, first_seen, last_heard FROM sm_peers ORDER BY guid",
              {"guid", "lid", "priority", "state", "act_count", "sm_key_ok", "first_seen", "last_heard"},
              {false, true, true, false, true, false, false, false}, [](const sm::store::Stmt& s) {
                static const char* st[] = {"NotActive", "Discovering", "Standby", "Master"};
                const int64_t k = s.i64(3);
                return std::vector<Cell>{guid(s.u64(0)), Cell::number(s.i64(1)), Cell::number(s.i64(2)),
                                         k >= 0 && k <= 3 ? st[k] : "?", Cell::number(s.i64(4)),
                                         Cell::flag(s.i64(5) != 0, "yes", "NO"), when(s.i64(6)), when(s.i64(7))};
              });
  }
  if (!t) {
    fmt::print(stderr, "fabricsm show: {}\n", t.error().message);
    return t.error().code == mad::Errc::invalid ? kExitUsage : 1;  // --by: not a counter
  }
  fmt::print("{}", json ? json_text(t->json()) + "\n" : t->text());
  return 0;
}

}  // namespace cli
