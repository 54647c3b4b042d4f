// /api/links (every cable, paged and filtered, with its state, rate, utilisation and errors)
// and /api/topology (what to draw: switches one by one on a small fabric, groups of them on a
// large one, a group's own switches on drill-down; cables between them aggregated).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "web/api_parts.h"
#include "web/endpoints.h"

namespace web {

namespace {

struct CableFigures {
  double util = -1;    // the busier direction's share of the data rate; -1: not measured
  double errors = 0;   // error counts per second, both ends
  double load = -1;    // Published::loads, the larger direction; -1: none
  bool isolated = false;
  std::vector<std::string> rules;  // health findings on either end
};

class Measures {
 public:
  explicit Measures(const Context& c) : c_(c) {
    if (!c.pub.perf) return;
    for (const auto& f : c.pub.perf->findings) {
      flagged_[{f.at.node, f.at.port}].push_back(&f);
      if (f.peer) flagged_[{f.peer->node, f.peer->port}].push_back(&f);
    }
  }
  CableFigures of(const Cable& cb) const {
    const auto& t = c_.index->topo();
    CableFigures f;
    for (auto [id, port] : {std::pair(cb.a, cb.a_port), std::pair(cb.b, cb.b_port)}) {
      const auto& n = t.node(id);
      if (const auto* s = sample_of(c_.pub, n.guid, port); s && s->has_rates) {
        const double u = s->rates[sm::perfmgr::index(sm::perfmgr::Counter::xmit_data)] /
                         data_bytes_per_s(t.port(id, mad::PortNum(port)));
        f.util = std::max(f.util, u);
        f.errors += error_rate(*s);
      }
      if (c_.pub.loads) f.load = std::max(f.load, c_.pub.loads->value[n.first_port + port]);
      if (auto it = flagged_.find({n.guid, port}); it != flagged_.end())
        for (const auto* fd : it->second) {
          f.isolated |= fd->isolated;
          if (std::find(f.rules.begin(), f.rules.end(), fd->rule) == f.rules.end()) f.rules.push_back(fd->rule);
        }
    }
    return f;
  }

 private:
  const Context& c_;
  std::map<std::pair<mad::Guid, uint8_t>, std::vector<const sm::perfmgr::Finding*>> flagged_;
};

Json gone_end(const FabricIndex& ix, mad::Guid g, const std::string& name, uint8_t port) {
  if (auto id = ix.topo().find(g)) return port_end(ix, *id, port);
  return Json{{"guid", guid_text(g)}, {"description", name}, {"port", port}, {"lid", 0}, {"type", nullptr}};
}

}  // namespace

Answer links(const Params& p, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const auto offset = int_param(p, "offset", 0, 0, INT32_MAX), limit = int_param(p, "limit", 200, 1, 5000);
  const auto group = int_param(p, "group", -1, -1, INT32_MAX);
  if (!offset || !limit || !group) return error(400, "offset, limit and group are numbers");
  const std::string state = str_param(p, "state").empty() ? "all" : str_param(p, "state");
  static const std::set<std::string> kStates = {"all", "up", "failed", "isolated", "flagged"};
  if (!kStates.contains(state)) return error(400, "state: all, up, failed, isolated or flagged");
  const std::string sort = str_param(p, "sort");
  if (!sort.empty() && sort != "util" && sort != "errors" && sort != "load") return error(400, "sort: util, errors or load");
  const std::string q = str_param(p, "q");
  const FabricIndex& ix = *c.index;
  std::set<NodeId> wanted;
  if (!q.empty())
    for (NodeId id : ix.search(q, ix.topo().node_count())) wanted.insert(id);
  auto matches = [&](NodeId a, NodeId b) {
    if (*group >= 0 && ix.group(a) != *group && ix.group(b) != *group) return false;
    return q.empty() || wanted.contains(a) || wanted.contains(b);
  };
  const Measures m(c);
  // What matches, by index (a current cable, or gone ones after them) with its sort key; only
  // the page asked for becomes JSON.
  struct Row {
    size_t at;
    double key;
  };
  const size_t current = ix.cables().size();
  std::vector<Row> rows;
  const bool need_figures = state == "isolated" || state == "flagged" || !sort.empty();
  if (state != "failed")
    for (size_t i = 0; i < current; ++i) {
      const Cable& cb = ix.cables()[i];
      if (!matches(cb.a, cb.b)) continue;
      double key = 0;
      if (need_figures) {
        const CableFigures f = m.of(cb);
        if ((state == "isolated" && !f.isolated) || (state == "flagged" && f.rules.empty())) continue;
        key = sort == "util" ? f.util : sort == "errors" ? f.errors : sort == "load" ? f.load : 0;
      }
      rows.push_back({i, key});
    }
  if (state == "all" || state == "failed")
    for (size_t i = 0; i < ix.gone().size(); ++i) {
      const GoneCable& g = ix.gone()[i];
      const auto a = ix.topo().find(g.a), b = ix.topo().find(g.b);
      if ((*group >= 0 || !q.empty()) && !(a && b && matches(*a, *b))) continue;
      rows.push_back({current + i, sort.empty() ? 0.0 : -1.0});
    }
  if (!sort.empty())
    std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.key > y.key; });
  Json list = Json::array();
  for (size_t r = static_cast<size_t>(*offset); r < rows.size() && list.size() < static_cast<size_t>(*limit); ++r) {
    if (rows[r].at >= current) {
      const GoneCable& g = ix.gone()[rows[r].at - current];
      list.push_back(Json{{"a", gone_end(ix, g.a, g.a_name, g.a_port)},
                          {"b", gone_end(ix, g.b, g.b_name, g.b_port)},
                          {"state", "failed"},
                          {"last_seen_ms", g.last_seen_ms > 0 ? Json(g.last_seen_ms) : Json()}});
      continue;
    }
    const Cable& cb = ix.cables()[rows[r].at];
    const CableFigures f = m.of(cb);
    const auto& pa = ix.topo().port(cb.a, mad::PortNum(cb.a_port));
    list.push_back(Json{{"a", port_end(ix, cb.a, cb.a_port)},
                        {"b", port_end(ix, cb.b, cb.b_port)},
                        {"state", f.isolated ? "isolated" : "up"},
                        {"rate", rate_name(pa)},
                        {"port_state", web_port_state(port_state_now(ix, cb.a, cb.a_port))},
                        {"utilisation", f.util >= 0 ? Json(f.util) : Json()},
                        {"errors_per_s", f.errors},
                        {"load", f.load >= 0 ? Json(f.load) : Json()},
                        {"findings", f.rules}});
  }
  return ok(Json{{"total", rows.size()}, {"offset", *offset}, {"links", std::move(list)}});
}

Answer topology(const Params& p, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const FabricIndex& ix = *c.index;
  const auto group = int_param(p, "group", -1, -1, INT32_MAX);
  if (!group) return error(400, "group is a number");
  if (*group >= static_cast<int64_t>(ix.groups().size())) return error(404, fmt::format("no group {}", *group));
  const bool by_switch = ix.groups().size() == 1 || *group >= 0;
  // What a switch is drawn as: itself (key = its NodeId) or its group (key = -1 - group).
  auto key_of = [&](NodeId sw) -> int64_t {
    if (by_switch && (*group < 0 || ix.group(sw) == *group)) return sw;
    return -1 - ix.group(sw);
  };
  const auto& t = ix.topo();
  Json nodes = Json::array();
  std::set<int64_t> drawn;
  auto draw_group = [&](int g) {
    if (!drawn.insert(-1 - g).second) return;
    const Group& gr = ix.groups()[static_cast<size_t>(g)];
    nodes.push_back(Json{{"key", -1 - g}, {"kind", "group"}, {"group", g}, {"label", gr.name}, {"tier", gr.tier},
                         {"switches", gr.switches.size()}, {"cas", gr.cas}});
  };
  for (NodeId sw : t.switches()) {
    const int64_t k = key_of(sw);
    if (k >= 0) {
      Json n = node_brief(ix, sw);
      n["key"] = k;
      n["kind"] = "switch";
      n["label"] = t.node(sw).description;
      nodes.push_back(std::move(n));
      drawn.insert(k);
    } else if (*group < 0) {
      draw_group(ix.group(sw));
    }
  }
  struct Agg {
    size_t cables = 0, failed = 0, isolated = 0, flagged = 0;
    double util = -1, errors = 0, load = -1;
  };
  std::map<std::pair<int64_t, int64_t>, Agg> edges;
  const Measures m(c);
  for (const Cable& cb : ix.cables()) {
    if (!t.node(cb.a).is_switch() || !t.node(cb.b).is_switch()) continue;
    int64_t ka = key_of(cb.a), kb = key_of(cb.b);
    if (ka == kb) continue;  // inside one group
    if (*group >= 0) {       // drill-down: this group's switches, and the groups they reach
      if (ka < 0 && kb < 0) continue;
      if (ka < 0) draw_group(ix.group(cb.a));
      if (kb < 0) draw_group(ix.group(cb.b));
    }
    const CableFigures f = m.of(cb);
    Agg& a = edges[std::minmax(ka, kb)];
    ++a.cables;
    a.isolated += f.isolated;
    a.flagged += !f.rules.empty();
    a.util = std::max(a.util, f.util);
    a.errors += f.errors;
    a.load = std::max(a.load, f.load);
  }
  for (const GoneCable& g : ix.gone()) {
    const auto a = t.find(g.a), b = t.find(g.b);
    if (!a || !b || !t.node(*a).is_switch() || !t.node(*b).is_switch()) continue;
    const int64_t ka = key_of(*a), kb = key_of(*b);
    if (ka == kb || !drawn.contains(ka) || !drawn.contains(kb)) continue;
    ++edges[std::minmax(ka, kb)].failed;
  }
  Json list = Json::array();
  for (const auto& [k, a] : edges)
    list.push_back(Json{{"a", k.first}, {"b", k.second}, {"cables", a.cables}, {"failed", a.failed},
                        {"isolated", a.isolated}, {"flagged", a.flagged},
                        {"utilisation", a.util >= 0 ? Json(a.util) : Json()}, {"errors_per_s", a.errors},
                        {"load", a.load >= 0 ? Json(a.load) : Json()}});
  Json j{{"mode", by_switch ? "switches" : "groups"}, {"group", *group >= 0 ? Json(*group) : Json()},
         {"group_name", *group >= 0 ? Json(ix.groups()[static_cast<size_t>(*group)].name) : Json()},
         {"tree", ix.tree()}, {"tiers", ix.max_tier() + 1}, {"nodes", std::move(nodes)}, {"edges", std::move(list)},
         {"loads", c.pub.loads ? Json{{"name", c.pub.loads->name}, {"max", c.pub.loads->max}} : Json()}};
  return ok(j);
}

}  // namespace web
