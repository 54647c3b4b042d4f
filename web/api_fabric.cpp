// /api/summary, /api/nodes and /api/node/ID: the subnet at a glance, the nodes (paged,
// searched), and one node with its ports, peers, counters and findings.
#include <fmt/format.h>

#include "mad/sm_info.h"
#include "web/api_parts.h"
#include "web/endpoints.h"

namespace web {

namespace {

Json sweep_json(const sm::SweepReport& s) {
  return Json{{"number", s.number},
              {"kind", s.heavy ? "heavy" : "incremental"},
              {"trigger", s.trigger},
              {"up", s.up},
              {"failure", s.failure},
              {"engine", s.engine},
              {"total_ms", s.total.wall_ms},
              {"discovery_ms", s.discovery.wall_ms},
              {"routing_ms", s.routing.wall_ms},
              {"programming_ms", s.programming.wall_ms},
              {"smps", s.smps_sent},
              {"lft_blocks", s.program.lft_blocks_written},
              {"port_sets", s.program.port_sets}};
}

Json finding_json(const sm::perfmgr::Finding& f) {
  auto end = [](const sm::perfmgr::PortEnd& e) {
    return Json{{"guid", guid_text(e.node)}, {"description", e.description}, {"port", e.port}, {"lid", e.lid}};
  };
  return Json{{"rule", f.rule},
              {"severity", f.severity == sm::perfmgr::Severity::error ? "error" : "warning"},
              {"at", end(f.at)},
              {"peer", f.peer ? end(*f.peer) : Json()},
              {"what", f.what},
              {"first_ms", f.first_ms},
              {"last_ms", f.last_ms},
              {"isolated", f.isolated}};
}

}  // namespace

Json event_json(const sm::store::Event& e) {
  const char letter = e.level == "error" ? 'E' : e.level == "warn" ? 'W' : 'I';
  return Json{{"time_ms", e.time_ms}, {"level", e.level}, {"code", fmt::format("{}{:04d}", letter, e.code)},
              {"message", e.message}};
}

Answer summary(const Params&, const Context& c) {
  Json j{{"source", c.pub.source}, {"time_ms", c.now_ms}};
  Json sm = Json::object();
  if (c.pub.subnet) {
    const sm::SmView& v = c.pub.subnet->sm;
    sm = Json{{"state", std::string(mad::sm_state_name(v.state))},
              {"priority", v.info.priority},
              {"guid", guid_text(v.port_guid)},
              {"lid", v.lid.value()},
              {"up", v.up},
              {"sweeps", v.sweeps},
              {"act_count", v.info.act_count}};
    Json peers = Json::array();
    for (const ha::Peer& p : v.peers)
      peers.push_back(Json{{"guid", guid_text(p.port)},
                           {"state", std::string(mad::sm_state_name(p.info.state))},
                           {"priority", p.info.priority},
                           {"act_count", p.info.act_count},
                           {"answered", p.answered},
                           {"sm_key_ok", p.believed}});
    sm["peers"] = std::move(peers);
    j["last_sweep"] = sweep_json(c.pub.subnet->sweep);
  } else if (c.pub.sm) {
    sm = Json{{"state", std::string(mad::sm_state_name(c.pub.sm->state))}, {"priority", c.pub.sm->priority}, {"up", c.pub.sm->up}};
  }
  if (c.pub.sm) {
    sm["heavy_sweeps"] = c.pub.sm->heavy.count;
    sm["incremental_sweeps"] = c.pub.sm->incremental.count;
  }
  j["sm"] = std::move(sm);
  if (c.index) {
    const auto& t = c.index->topo();
    size_t lids = 0;
    for (NodeId id = 0; id < t.node_count(); ++id)
      for (const auto& p : t.ports(id))
        if (p.lid.value() != 0 && (t.node(id).is_switch() ? p.num.value() == 0 : p.num.value() != 0)) lids += 1u << p.lmc;
    size_t isolated = 0;
    if (c.pub.perf)
      for (const auto& f : c.pub.perf->findings) isolated += f.isolated;
    j["counts"] = Json{{"nodes", t.node_count()},   {"switches", t.switches().size()}, {"cas", t.cas().size()},
                       {"links", c.index->cables().size()}, {"lids", lids}, {"failed_cables", c.index->gone().size()},
                       {"isolated_cables", isolated}};
    j["drawing"] = Json{{"tree", c.index->tree()}, {"tiers", c.index->max_tier() + 1}, {"groups", c.index->groups().size()}};
  }
  Json health{{"counter_sweeps", 0}, {"open", 0}, {"findings", Json::array()}, {"by_rule", Json::object()}};
  if (c.pub.perf) {
    health["counter_sweeps"] = c.pub.perf->sweeps;
    health["open"] = c.pub.perf->findings.size();
    for (size_t i = 0; i < c.pub.perf->findings.size() && i < 20; ++i)
      health["findings"].push_back(finding_json(c.pub.perf->findings[i]));
    for (const auto& [rule, n] : c.pub.perf->findings_by_rule) health["by_rule"][rule] = n;
    health["last_sweep_ms"] = c.pub.perf->sweep.duration_ms;
  }
  j["health"] = std::move(health);
  Json events = Json::array();
  if (c.pub.events) {
    const auto& e = *c.pub.events;
    for (size_t i = e.size() > 10 ? e.size() - 10 : 0; i < e.size(); ++i) events.push_back(event_json(e[i]));
  }
  j["events"] = std::move(events);
  j["loads"] = c.pub.loads ? Json(c.pub.loads->name) : Json();
  return ok(j);
}

Answer nodes(const Params& p, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const auto offset = int_param(p, "offset", 0, 0, INT32_MAX), limit = int_param(p, "limit", 200, 1, 5000);
  const auto group = int_param(p, "group", -1, -1, INT32_MAX);
  if (!offset || !limit || !group) return error(400, "offset, limit and group are numbers");
  const std::string q = str_param(p, "q"), type = str_param(p, "type");
  if (!type.empty() && type != "switch" && type != "CA" && type != "router") return error(400, "type: switch, CA or router");
  const auto& t = c.index->topo();
  std::vector<NodeId> ids;
  if (!q.empty()) {
    ids = c.index->search(q, t.node_count());
  } else {
    ids.resize(t.node_count());
    for (NodeId i = 0; i < ids.size(); ++i) ids[i] = i;
  }
  std::erase_if(ids, [&](NodeId id) {
    return (!type.empty() && type != node_type_name(t.node(id))) || (*group >= 0 && c.index->group(id) != *group);
  });
  Json list = Json::array();
  for (size_t i = static_cast<size_t>(*offset); i < ids.size() && list.size() < static_cast<size_t>(*limit); ++i)
    list.push_back(node_brief(*c.index, ids[i]));
  return ok(Json{{"total", ids.size()}, {"offset", *offset}, {"nodes", std::move(list)}});
}

Answer node(std::string_view which, const Params&, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  auto id = c.index->resolve(which);
  if (!id) return error(404, fmt::format("no node {} (a node or port GUID, a LID, or a description)", which));
  const auto& t = c.index->topo();
  const auto& n = t.node(*id);
  Json j = node_brief(*c.index, *id);
  j["system_guid"] = guid_text(n.system_guid);
  j["vendor_id"] = fmt::format("0x{:06x}", n.vendor_id);
  j["device_id"] = fmt::format("0x{:04x}", n.device_id);
  if (n.is_switch()) j["lft_top"] = n.sw.lft_top;
  Json ports = Json::array();
  for (const auto& port : t.ports(*id)) {
    if (port.num.value() == 0 && !n.is_switch()) continue;
    Json pj{{"port", port.num.value()},   {"guid", guid_text(port.guid)}, {"lid", port.lid.value()},
            {"lmc", port.lmc},            {"state", web_port_state(port_state_now(*c.index, *id, port.num.value()))},
            {"rate", port.linked() ? Json(rate_name(port)) : Json()}};
    pj["peer"] = port.linked() ? port_end(*c.index, port.peer, port.peer_port.value()) : Json();
    if (const auto* s = sample_of(c.pub, n.guid, port.num.value())) {
      Json rates = Json::object(), totals = Json::object();
      for (size_t i = 0; i < sm::perfmgr::kCounters; ++i) {
        totals[std::string(sm::perfmgr::kCounterInfo[i].name)] = s->totals[i];
        if (s->has_rates) rates[std::string(sm::perfmgr::kCounterInfo[i].name)] = s->rates[i];
      }
      pj["counters"] = Json{{"sampled_ms", s->sampled_ms}, {"totals", std::move(totals)}, {"rates", std::move(rates)}};
      if (port.linked() && s->has_rates)
        pj["utilisation"] = s->rates[sm::perfmgr::index(sm::perfmgr::Counter::xmit_data)] / data_bytes_per_s(port);
    }
    if (c.pub.loads && port.linked()) pj["load"] = c.pub.loads->value[n.first_port + port.num.value()];
    ports.push_back(std::move(pj));
  }
  j["ports"] = std::move(ports);
  Json findings = Json::array();
  if (c.pub.perf)
    for (const auto& f : c.pub.perf->findings)
      if (f.at.node == n.guid || (f.peer && f.peer->node == n.guid)) findings.push_back(finding_json(f));
  j["findings"] = std::move(findings);
  Json gone = Json::array();
  for (const auto& g : c.index->gone())
    if (g.a == n.guid || g.b == n.guid)
      gone.push_back(Json{{"a", Json{{"guid", guid_text(g.a)}, {"description", g.a_name}, {"port", g.a_port}}},
                          {"b", Json{{"guid", guid_text(g.b)}, {"description", g.b_name}, {"port", g.b_port}}},
                          {"last_seen_ms", g.last_seen_ms}});
  j["failed_cables"] = std::move(gone);
  return ok(j);
}

}  // namespace web
