// fabricsm drill: failover drills with several SMs on one simulated fabric (see drill.h).
#include <fmt/format.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "routing/engine.h"
#include "sim/generators.h"
#include "sim/netfile.h"
#include "cli/commands.h"
#include "cli/usage.h"
#include "cli/config.h"
#include "cli/drill.h"
#include "cli/ha_options.h"
#include "cli/json.h"

namespace po = boost::program_options;

namespace cli {

namespace {

struct Args {
  std::string topology, fat_tree, priorities, sm_nodes, events = "kill,return,partition,heal,loss", config;
  std::string routing{kDefaultRoutingEngine}, log_level = "error";
  int sms = 3;
  int settle_ms = 3000;
  double loss = 0.05;
  uint64_t seed = 1;
  bool json = false, no_verify = false;
  HaArgs ha;
};

mad::Result<sim::FabricSpec> load_spec(const Args& a, std::string& label) {
  if (!a.topology.empty()) {
    label = a.topology;
    return sim::load_netfile(a.topology);
  }
  unsigned levels = 3, radix = 16;
  char extra = 0;
  if (!a.fat_tree.empty() && std::sscanf(a.fat_tree.c_str(), "%u,%u%c", &levels, &radix, &extra) != 2)
    return mad::fail(mad::Errc::invalid, fmt::format("--fat-tree wants LEVELS,RADIX, not '{}'", a.fat_tree));
  label = fmt::format("{}-level fat tree, radix {}", levels, radix);
  return sim::make_fat_tree(levels, radix);
}

std::string text_ms(const std::optional<double>& v) { return v ? fmt::format("{:.0f} ms", *v) : "-"; }

Json json_rogue(const RogueResult& r) {
  return {{"host", r.host}, {"target", r.target}, {"key_read", r.key_read}, {"attempts", r.attempts},
          {"refused", r.refused}, {"taken", r.taken}, {"routes_changed", r.routes_changed},
          {"reported_ms", rounded_or_null(r.reported_ms, 3)}, {"reported_by", r.reported_by},
          {"repaired_ms", rounded_or_null(r.repaired_ms, 1)}, {"ok", r.ok()}};
}

// Every attempt refused and reported, or what got through and how long it lasted.
std::string rogue_text(const RogueResult& r) {
  std::string s = fmt::format("    M_Key read: {}\n    {} Set(s): {} refused, {} taken; routes {}", r.key_read,
                              r.attempts, r.refused, r.taken,
                              r.routes_changed ? "CHANGED" : "unchanged");
  if (r.routes_changed)
    s += r.repaired_ms ? fmt::format(", repaired after {:.0f} ms", *r.repaired_ms) : ", NOT repaired";
  s += r.reported_ms    ? fmt::format("\n    violation reported after {:.3f} ms ({})", *r.reported_ms, r.reported_by)
       : r.refused == 0 ? "\n    nothing refused: no violation for an SM to report"
                        : "\n    violation NOT reported";
  s += r.ok() ? "\n    protected: every attempt refused and reported" : "\n    NOT protected";
  return s;
}

Json json_event(const EventResult& e) {
  return {{"event", e.event}, {"detail", e.detail}, {"at_ms", rounded(e.at_ms, 1)},
          {"detection_ms", rounded_or_null(e.detection_ms, 1)}, {"master_ms", rounded_or_null(e.master_ms, 1)},
          {"up_ms", rounded_or_null(e.up_ms, 1)}, {"lids_changed", e.lids_changed}, {"lft_blocks", e.lft_blocks},
          {"rereg_ports", e.rereg_ports}, {"false_alarms", e.false_alarms}, {"masters", e.masters},
          {"partitions", e.partitions}, {"one_master", e.one_master},
          {"routed", e.routed ? Json(*e.routed) : Json(nullptr)}, {"notes", e.notes},
          {"rogue", e.rogue ? json_rogue(*e.rogue) : Json(nullptr)}};
}

void print_text(const DrillResult& r) {
  fmt::print("fabric    {}\n", r.fabric);
  for (const auto& s : r.sms) fmt::print("SM        {}\n", s);
  fmt::print("\n{:<10} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7} {:>7}  {}\n", "event", "at", "detect", "master",
             "up", "LIDs", "blocks", "rereg", "masters");
  auto row = [](const EventResult& e) {
    std::string masters;
    for (const auto& m : e.masters) masters += (masters.empty() ? "" : ",") + m;
    std::string verdict = e.one_master ? (e.partitions > 1 ? fmt::format("one per part ({} parts)", e.partitions)
                                                           : "exactly one")
                                       : (e.partitions > 1 ? "NOT one per part" : "NOT exactly one");
    fmt::print("{:<10} {:>9} {:>9} {:>9} {:>9} {:>6} {:>7} {:>7}  {} ({}){}{}\n", e.event,
               fmt::format("{:.0f} ms", e.at_ms), text_ms(e.detection_ms), text_ms(e.master_ms), text_ms(e.up_ms),
               e.lids_changed, e.lft_blocks, e.rereg_ports, masters.empty() ? "none" : masters, verdict,
               e.routed ? (*e.routed ? ", all routed" : ", NOT ALL ROUTED") : "",
               e.false_alarms ? fmt::format(", {} false alarm(s), no takeover", e.false_alarms) : "");
  };
  row(r.bring_up);
  for (const auto& e : r.events) row(e);
  fmt::print("\n");
  for (const auto& e : r.events) {
    fmt::print("{}: {}\n", e.event, e.detail);
    if (e.rogue) fmt::print("{}\n", rogue_text(*e.rogue));
    for (const auto& n : e.notes) fmt::print("    {}\n", n);
  }
  const bool rogue = std::any_of(r.events.begin(), r.events.end(), [](const EventResult& e) { return e.rogue.has_value(); });
  fmt::print("\n{}\n", r.ok() ? fmt::format("drill passed: one master after every event, no LID changed{}",
                                            rogue ? ", every rogue Set refused and reported" : "")
                              : "drill FAILED (see above)");
}

}  // namespace

int cmd_drill(int argc, char** argv) {
  Args a;
  po::options_description opts(
      "fabricsm drill [options]\n\nFailover drills in the simulator: N SMs with priorities on one fabric, "
      "driven together on\nvirtual time, and a script of events (kill the master, bring it back, partition "
      "the fabric\nbetween the SMs and heal it, lose MADs, a rogue host). Prints per event: time to detect,\n"
      "time until an SM answers as master and until the subnet is up again, LIDs changed, LFT blocks\n"
      "written, ports told to re-register, and whether exactly one master remained. Exit status 0 when\n"
      "every event ends with one master (one per part while partitioned), no LID changed, every pair\n"
      "routed and every rogue Set refused and reported; 1 when one does not; 2 on a usage error.\n\n"
      "rogue: a CA that runs no SM (the farthest from the master) sends LID-routed SMPs to the master's\n"
      "switch: PortInfo Gets with M_Key 0 (the key they show, if any, is used), then Sets of the LFT\n"
      "blocks holding CA LIDs (black holes) and of one switch-to-switch port (Down). Prints the Sets\n"
      "refused (no answer within 200 ms) and taken, whether the routes changed, how long until an SM\n"
      "reported the violation (E0610 or W0609) and, when the attack landed, until the routes were\n"
      "whole again (up to 10 min). The event passes only when every Set was refused and reported.\n\n"
      "--config FILE: every SM takes its settings from FILE as `fabricsm run` would (m_key,\n"
      "m_key_protection_level, m_key_secret_file, sweep_interval, routing_engine, lft_verify_pass, ...);\n"
      "the drill's own options go on top: the priorities always, --routing and the HA options when given\n"
      "(else the file's, else the drill's defaults). No store, PerfMgr or guid2lid_file.\n\nOptions");
  opts.add_options()
      ("help,h", "this help")
      ("config,c", po::value(&a.config), "the SMs' configuration file (as `fabricsm run --config`)")
      ("topology,t", po::value(&a.topology), "net file (ibnetdiscover/ibsim format)")
      ("fat-tree", po::value(&a.fat_tree), "generate a k-ary fat tree: LEVELS,RADIX (default 3,16)")
      ("sms", po::value(&a.sms)->default_value(a.sms), "how many SMs")
      ("priorities", po::value(&a.priorities), "their SMInfo priorities, e.g. 15,10,5 (default 15, 10, 5, 0...)")
      ("sm-nodes", po::value(&a.sm_nodes), "the nodes they run on (default: CAs spread over the fabric)")
      ("events", po::value(&a.events)->default_value(a.events), "the script: kill, kill-standby, return, "
       "partition, heal, loss, rogue")
      ("settle-ms", po::value(&a.settle_ms)->default_value(a.settle_ms), "virtual time the SMs run after each event")
      ("loss", po::value(&a.loss)->default_value(a.loss), "fraction of MADs lost during the loss event")
      ("seed", po::value(&a.seed)->default_value(a.seed), "seed for losses")
      ("routing,R", po::value(&a.routing)->default_value(a.routing), "routing engine or chain")
      ("no-verify", po::bool_switch(&a.no_verify), "do not walk the LFTs after each event")
      ("log-level", po::value(&a.log_level)->default_value(a.log_level), "the SMs' log lines on stderr: "
       "error, warn, info or debug")
      ("json", po::bool_switch(&a.json), "print the results as one JSON object");
  add_ha_options(opts, a.ha);
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
    if (const std::string w = stray_word(parsed); !w.empty())
      throw po::error(fmt::format("unexpected argument '{}'", w));
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricsm drill: {}\n", e.what());
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  auto usage = [](const std::string& m) {
    fmt::print(stderr, "fabricsm drill: {}\n", m);
    return kExitUsage;
  };
  bool level_ok = false;
  const sm::Level level = sm::parse_level(a.log_level, &level_ok);
  if (!level_ok) return usage(fmt::format("bad --log-level '{}'", a.log_level));
  if (!a.topology.empty() && !a.fat_tree.empty()) return usage("give --topology or --fat-tree, not both");
  if (a.sms < 1 || a.sms > 16) return usage(fmt::format("--sms {}: must be 1-16", a.sms));
  if (a.settle_ms < 100) return usage(fmt::format("--settle-ms {}: must be 100 or more", a.settle_ms));
  if (!(a.loss >= 0 && a.loss < 1)) return usage(fmt::format("--loss {}: must be in [0, 1)", a.loss));
  if (auto c = routing::parse_chain(a.routing); !c) return usage(c.error().message);
  std::vector<int> prios;
  for (const auto& p : split_list(a.priorities)) {
    int v = -1;
    if (std::sscanf(p.c_str(), "%d", &v) != 1 || v < 0 || v > 15) return usage(fmt::format("bad priority '{}' (0-15)", p));
    prios.push_back(v);
  }
  if (!prios.empty() && prios.size() != static_cast<size_t>(a.sms))
    return usage(fmt::format("--priorities lists {} values for {} SMs", prios.size(), a.sms));
  for (int i = static_cast<int>(prios.size()); i < a.sms; ++i) prios.push_back(std::max(0, 15 - 5 * i));
  for (const std::string& e : split_list(a.events))
    if (std::find(std::begin(kDrillEvents), std::end(kDrillEvents), e) == std::end(kDrillEvents))
      return usage(fmt::format("--events: unknown drill event '{}' (kill, kill-standby, return, partition, heal, loss, "
                               "rogue)", e));
  std::vector<std::string> nodes = split_list(a.sm_nodes);
  if (!nodes.empty() && nodes.size() != static_cast<size_t>(a.sms))
    return usage(fmt::format("--sm-nodes lists {} nodes for {} SMs", nodes.size(), a.sms));

  // The SMs' settings: the file's (as `run` reads it), or the drill's defaults without one.
  sm::SmConfig base;
  DaemonConfig file_cfg;
  if (!a.config.empty()) {
    auto loaded = load_config(a.config, po::variables_map());
    if (!loaded) return usage(loaded.error().message);
    file_cfg = std::move(*loaded);
    for (const auto& n : file_cfg.notes) fmt::print(stderr, "fabricsm drill: note: {}\n", n);
    base = file_cfg.sm;
  }
  auto given = [&vm](const char* name) { return vm.count(name) && !vm[name].defaulted(); };
  auto from_file = [&](const char* drill_option, const char* file_key) {
    return !given(drill_option) && file_cfg.origin.contains(file_key);
  };
  if (a.config.empty() || given("routing")) base.routing_engine = a.routing;

  std::string label;
  auto spec = load_spec(a, label);
  if (!spec) {  // a --fat-tree that cannot be built is a usage error; a net file that cannot be read is not
    fmt::print(stderr, "fabricsm drill: {}\n", spec.error().message);
    return spec.error().code == mad::Errc::invalid ? kExitUsage : 1;
  }
  if (nodes.empty()) {  // CAs spread over the fabric: first, and at even steps
    std::vector<std::string> cas;
    for (const auto& n : spec->nodes)
      if (n.type != mad::NodeType::sw) cas.push_back(n.name);
    if (cas.size() < static_cast<size_t>(a.sms)) return usage("the fabric has fewer CAs than --sms");
    for (int i = 0; i < a.sms; ++i) nodes.push_back(cas[cas.size() * static_cast<size_t>(i) / static_cast<size_t>(a.sms)]);
  }
  std::vector<DrillSm> sms;
  for (int i = 0; i < a.sms; ++i) {
    DrillSm s;
    s.node = nodes[static_cast<size_t>(i)];
    s.cfg = base;
    auto hc = ha_config(a.ha, static_cast<uint8_t>(prios[static_cast<size_t>(i)]));
    if (!hc) return usage(hc.error().message);
    const ha::Config& f = file_cfg.sm.ha;  // what the file set, where the drill's option was not given
    if (from_file("sticky", "sticky_master")) hc->sticky = f.sticky;
    if (from_file("sm-key", "sm_key")) hc->sm_key = f.sm_key;
    if (from_file("poll-ms", "sminfo_polling_timeout")) {
      hc->poll_interval = f.poll_interval;
      if (!given("poll-timeout-ms")) hc->poll_timeout = f.poll_timeout;
    }
    if (from_file("poll-misses", "polling_retry_number")) hc->max_misses = f.max_misses;
    if (from_file("stall-polls", "activity_stall_polls")) hc->stall_polls = f.stall_polls;
    s.cfg.ha = *hc;
    sms.push_back(std::move(s));
  }
  auto cluster = Cluster::create(*spec, sim::SimConfig{.seed = a.seed}, std::move(sms), level);
  if (!cluster) {
    fmt::print(stderr, "fabricsm drill: {}\n", cluster.error().message);
    return 1;
  }
  DrillOptions o;
  o.events = split_list(a.events);
  o.settle = std::chrono::milliseconds(a.settle_ms);
  o.loss = a.loss;
  o.verify = !a.no_verify;
  auto r = run_drill(**cluster, o);
  if (!r) {
    fmt::print(stderr, "fabricsm drill: {}\n", r.error().message);
    return 1;
  }
  r->fabric = label;
  if (a.json) {
    Json events = Json::array();
    for (const auto& e : r->events) events.push_back(json_event(e));
    fmt::print("{}\n", json_text(Json{{"fabric", r->fabric}, {"sms", r->sms}, {"bring_up", json_event(r->bring_up)},
                                     {"events", std::move(events)}, {"ok", r->ok()}}));
  } else {
    print_text(*r);
  }
  return r->ok() ? 0 : 1;
}

}  // namespace cli
