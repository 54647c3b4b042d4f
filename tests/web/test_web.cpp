// The web view's API over subnets the SM published on simulated fabrics: the index (tiers,
// groups, failed cables, search), and the endpoints' answers against the topology, the tables
// and the simulator's own figures.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "sim/generators.h"
#include "sim/metrics.h"
#include "tests/sm/harness.h"
#include "web/api.h"
#include "web/api_parts.h"
#include "web/fabric_index.h"

using namespace std::chrono_literals;
using Json = nlohmann::json;
using smtest::Run;

namespace {

struct Served {
  web::Published pub;
  std::shared_ptr<const web::FabricIndex> index;
  Json get(const std::string& path, web::Params p = {}, int want = 200) const {
    const web::Context ctx{pub, index, nullptr, 1000};
    web::Answer a = web::answer(path, p, ctx);
    CHECK_MESSAGE(a.status == want, path << ": " << a.body);
    return Json::parse(a.body);
  }
};

Served serve(const Run& r, const web::FabricIndex* before = nullptr) {
  Served s;
  s.pub.subnet = r.sm->subnet();
  s.pub.source = "test";
  s.index = web::FabricIndex::build(s.pub.subnet, before, {}, 5000);
  return s;
}

}  // namespace

TEST_CASE("a two-level tree: leaves tier 0, spines tier 1, one group drawn switch by switch") {
  Run r(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  const Served s = serve(r);
  const auto& ix = *s.index;
  CHECK(ix.tree());
  CHECK(ix.max_tier() == 1);
  CHECK(ix.groups().size() == 1);
  size_t leaves = 0;
  for (auto sw : r.topo().switches()) leaves += ix.tier(sw) == 0;
  CHECK(leaves == 8);
  CHECK(ix.cables().size() == r.topo().link_count());
  const Json t = s.get("topology");
  CHECK(t["mode"] == "switches");
  CHECK(t["nodes"].size() == r.topo().switches().size());
  CHECK(t["edges"].size() == 32);  // every leaf to every spine, once
}

TEST_CASE("a three-level tree of 320 switches is drawn as pods and spine planes, each opened on demand") {
  Run r(*sim::make_fat_tree(3, 16), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  const Served s = serve(r);
  const auto& ix = *s.index;
  CHECK(ix.tree());
  CHECK(ix.max_tier() == 2);
  size_t pods = 0, planes = 0, in_groups = 0;
  for (const auto& g : ix.groups()) {
    (g.name.starts_with("pod") ? pods : planes) += 1;
    in_groups += g.switches.size();
  }
  CHECK(pods == 16);
  CHECK(planes == 8);  // the 64 spines by the aggregation switch they reach first
  CHECK(in_groups == r.topo().switches().size());
  const Json top = s.get("topology");
  CHECK(top["mode"] == "groups");
  CHECK(top["nodes"].size() == ix.groups().size());
  size_t cables = 0;
  for (const auto& e : top["edges"]) cables += e["cables"].get<size_t>();
  CHECK(cables == 16 * 8 * 8);  // every pod's 8 aggregation switches to 8 spines each
  const Json pod = s.get("topology", {{"group", "0"}});
  CHECK(pod["mode"] == "switches");
  size_t switches = 0;
  for (const auto& n : pod["nodes"]) switches += n["kind"] == "switch";
  CHECK(switches == 16);  // 8 leaves, 8 aggregation switches
  s.get("topology", {{"group", "999"}}, 404);
  s.get("topology", {{"group", "x"}}, 400);
}

TEST_CASE("a torus is not a tree: one tier, breadth-first parts when large") {
  Run r(*sim::make_torus({.dims = {4, 4}, .cas_per_switch = 2}), smtest::with_engine("updn"));
  REQUIRE(r.until_idle());
  const Served s = serve(r);
  CHECK_FALSE(s.index->tree());
  CHECK(s.index->max_tier() == 0);
  CHECK(s.get("topology")["tree"] == false);
}

TEST_CASE("a cable cut between sweeps is listed as failed, with both ends' names, until it is back") {
  Run r(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  const Served first = serve(r);
  const auto sw = *r.fabric->find("S1_000");
  REQUIRE(r.fabric->link_down(sw, 5));
  REQUIRE(r.run_for(1s));
  const Served second = serve(r, first.index.get());
  REQUIRE(second.index->gone().size() == 1);
  const web::GoneCable& g = second.index->gone()[0];
  CHECK(((g.a_name == "S1_000" && g.a_port == 5) || (g.b_name == "S1_000" && g.b_port == 5)));
  CHECK(g.last_seen_ms == 5000);
  const Json failed = second.get("links", {{"state", "failed"}});
  REQUIRE(failed["total"] == 1);
  CHECK(failed["links"][0]["state"] == "failed");
  CHECK(second.get("summary")["counts"]["failed_cables"] == 1);
  size_t dashed = 0;
  const Json drawn = second.get("topology");
  for (const auto& e : drawn["edges"]) dashed += e["failed"].get<size_t>();
  CHECK(dashed == 1);
  // A sweep later, still failed (the memory carries over); once back, gone from the list.
  REQUIRE(r.sweep_again());
  const Served third = serve(r, second.index.get());
  CHECK(third.index->gone().size() == 1);
  REQUIRE(r.fabric->link_up(sw, 5));
  REQUIRE(r.run_for(1s));
  const Served fourth = serve(r, third.index.get());
  CHECK(fourth.index->gone().empty());
  CHECK(fourth.get("links", {{"state", "failed"}})["total"] == 0);
}

TEST_CASE("summary, nodes and search answer what the topology holds") {
  Run r(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  const Served s = serve(r);
  const auto& t = r.topo();
  const Json sum = s.get("summary");
  CHECK(sum["counts"]["switches"] == t.switches().size());
  CHECK(sum["counts"]["cas"] == t.cas().size());
  CHECK(sum["counts"]["links"] == t.link_count());
  CHECK(sum["sm"]["state"] == "Master");
  CHECK(sum["sm"]["up"] == true);
  const Json all = s.get("nodes", {{"limit", "10"}});
  CHECK(all["total"] == t.node_count());
  CHECK(all["nodes"].size() == 10);
  const Json page = s.get("nodes", {{"limit", "10"}, {"offset", "40"}});
  CHECK(page["nodes"].size() == t.node_count() - 40);
  CHECK(s.get("nodes", {{"type", "switch"}})["total"] == t.switches().size());
  // By GUID (with or without 0x), by LID, by a piece of the description in another case.
  const auto& leaf = t.node(*t.find(r.fabric->node(*r.fabric->find("S1_003")).guid));
  const std::string guid = web::guid_text(leaf.guid);
  CHECK(s.get("nodes", {{"q", guid}})["nodes"][0]["description"] == "S1_003");
  CHECK(s.get("nodes", {{"q", guid.substr(2)}})["nodes"][0]["description"] == "S1_003");
  const uint16_t lid = t.port(*t.find(leaf.guid), mad::PortNum(0)).lid.value();
  CHECK(s.get("nodes", {{"q", std::to_string(lid)}})["nodes"][0]["guid"] == guid);
  CHECK(s.get("nodes", {{"q", "s1_00"}})["total"] == 8);
  s.get("nodes", {{"limit", "ten"}}, 400);
  s.get("nodes", {{"type", "hub"}}, 400);
  s.get("node/0xdeadbeef", {}, 404);
  const Json n = s.get("node/" + guid);
  CHECK(n["ports"].size() == leaf.num_ports + 1u);  // port 0 too
  size_t active = 0;
  for (const auto& p : n["ports"]) active += p["state"] == "Active";
  CHECK(active == leaf.num_ports + 1u);  // as activation left them, not as the walk found them
  s.get("nosuch", {}, 404);
}

TEST_CASE("route and lft follow the programmed tables; metrics are the tables' own") {
  Run r(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  const Served s = serve(r);
  const auto& t = r.topo();
  const auto& tables = *r.subnet().tables;
  const auto a = t.cas().front(), b = t.cas().back();
  const uint16_t dst = t.port(b, mad::PortNum(1)).lid.value();
  const Json route = s.get("route", {{"from", web::guid_text(t.node(a).guid)}, {"to", std::to_string(dst)}});
  CHECK(route["reached"] == true);
  REQUIRE(route["hops"].size() == 5);  // CA, leaf, spine, leaf, CA
  CHECK(route["hops"][4]["id"] == b);
  for (size_t i = 1; i < 4; ++i) {
    const auto sw = route["hops"][i]["id"].get<fabric::NodeId>();
    CHECK(route["hops"][i]["out_port"] == tables.port(sw, mad::Lid(dst)));
    const Json e = s.get("lft", {{"node", route["hops"][i]["guid"].get<std::string>()}, {"lid", std::to_string(dst)}});
    CHECK(e["port"] == tables.port(sw, mad::Lid(dst)));
  }
  s.get("route", {{"from", "nobody"}, {"to", "1"}}, 404);
  s.get("lft", {{"node", web::guid_text(t.node(a).guid)}, {"lid", "1"}}, 404);  // a CA has no LFT
  const Json m = s.get("metrics");
  const auto want = sim::measure_routing(*r.fabric);
  CHECK(m["max_link_load"] == want.max_link_load);
  CHECK(m["deadlock_free"] == want.cdg_acyclic);
  CHECK(m["unrouted"] == 0);
}

TEST_CASE("counters colour the cables: utilisation from PortXmitData's rate, errors, isolated cables") {
  Run r(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  Served s = serve(r);
  const auto& t = r.topo();
  const auto leaf = *t.find(r.fabric->node(*r.fabric->find("S1_000")).guid);
  const auto& up = t.port(leaf, mad::PortNum(5));  // to a spine
  const double rate = web::data_bytes_per_s(up);
  REQUIRE(rate > 0);
  auto snap = std::make_shared<sm::perfmgr::Snapshot>();
  sm::perfmgr::PortSample p;
  p.local = {t.node(leaf).guid, "S1_000", 5, 0, true};
  p.has_rates = true;
  p.rates[sm::perfmgr::index(sm::perfmgr::Counter::xmit_data)] = rate / 4;  // a quarter of the link
  p.rates[sm::perfmgr::index(sm::perfmgr::Counter::symbol_errors)] = 2;
  snap->ports.push_back(p);
  sm::perfmgr::Finding f;
  f.rule = "symbol_error";
  f.at = p.local;
  f.isolated = true;
  snap->findings.push_back(f);
  s.pub.perf = snap;
  const Json isolated = s.get("links", {{"state", "isolated"}});
  REQUIRE(isolated["total"] == 1);
  const Json& l = isolated["links"][0];
  CHECK(l["utilisation"].get<double>() == doctest::Approx(0.25));
  CHECK(l["errors_per_s"].get<double>() == doctest::Approx(2));
  CHECK(l["findings"][0] == "symbol_error");
  CHECK(s.get("links", {{"sort", "util"}, {"limit", "1"}})["links"][0]["state"] == "isolated");
  const Json drawn = s.get("topology");
  size_t marked = 0;
  for (const auto& e : drawn["edges"]) marked += e["isolated"].get<size_t>();
  CHECK(marked == 1);
  CHECK(s.get("summary")["counts"]["isolated_cables"] == 1);
  CHECK(s.get("node/S1_000")["ports"][5]["utilisation"].get<double>() == doctest::Approx(0.25));
}

TEST_CASE("events: newest first, filtered by level, code and text") {
  Served s;
  auto ev = std::make_shared<std::vector<sm::store::Event>>();
  ev->push_back({1, "info", 101, "starting"});
  ev->push_back({2, "warn", 215, "a cable's rate changed"});
  ev->push_back({3, "error", 1071, "cannot listen"});
  s.pub.events = ev;
  CHECK(s.get("events")["events"][0]["code"] == "E1071");
  CHECK(s.get("events", {{"level", "warn"}})["total"] == 2);
  CHECK(s.get("events", {{"code", "I0101"}})["total"] == 1);
  CHECK(s.get("events", {{"code", "215"}})["total"] == 1);
  CHECK(s.get("events", {{"q", "CABLE"}})["total"] == 1);
  s.get("events", {{"level", "loud"}}, 400);
  // Before any sweep: the fabric's endpoints say so instead of failing.
  s.get("nodes", {}, 503);
  s.get("topology", {}, 503);
  CHECK(s.get("summary")["events"].size() == 3);
}
