// /api/route (the path between two ports as the programmed tables forward it), /api/lft (one
// switch's entry for a LID) and /api/metrics (the routing metrics of the current tables).
#include <fmt/format.h>

#include <charconv>

#include "web/api_parts.h"
#include "web/endpoints.h"

namespace web {

namespace {

constexpr size_t kMaxHops = 64;

// A destination as a LID: a number, or a node (its first LID).
std::optional<uint32_t> dest_lid(const FabricIndex& ix, const std::string& s) {
  uint32_t lid = 0;
  if (const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), lid);
      ec == std::errc() && end == s.data() + s.size())
    return ix.by_lid(lid) ? std::optional(lid) : std::nullopt;
  auto id = ix.resolve(s);
  if (!id) return std::nullopt;
  const auto& t = ix.topo();
  if (t.node(*id).is_switch()) return t.port(*id, mad::PortNum(0)).lid.value();
  for (const auto& p : t.ports(*id))
    if (p.num.value() != 0 && p.lid.value() != 0) return p.lid.value();
  return std::nullopt;
}

}  // namespace

Answer route(const Params& p, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const FabricIndex& ix = *c.index;
  const auto& tables = ix.subnet().tables;
  if (!tables) return error(503, "this SM has programmed no tables (it is not master)");
  const std::string from = str_param(p, "from"), to = str_param(p, "to");
  const auto src = ix.resolve(from);
  if (!src) return error(404, fmt::format("from: no node {}", from));
  const auto dst = dest_lid(ix, to);
  if (!dst) return error(404, fmt::format("to: no port with LID or node {}", to));
  const auto& t = ix.topo();
  Json hops = Json::array();
  NodeId at = *src;
  int in_port = -1;
  std::string reason;
  bool reached = false;
  if (!t.node(at).is_switch()) {  // a CA sends through its first live port
    for (const auto& port : t.ports(at))
      if (port.num.value() != 0 && port.linked()) {
        Json h = node_brief(ix, at);
        h["out_port"] = port.num.value();
        hops.push_back(std::move(h));
        if (ix.by_lid(*dst) && ix.by_lid(*dst)->first == at) {
          reached = true;
          break;
        }
        in_port = port.peer_port.value();
        at = port.peer;
        break;
      }
    if (in_port < 0 && !reached) reason = "the source has no live port";
  }
  while (!reached && reason.empty()) {
    if (hops.size() > kMaxHops) {
      reason = "a loop (more than 64 hops)";
      break;
    }
    Json h = node_brief(ix, at);
    h["in_port"] = in_port >= 0 ? Json(in_port) : Json();
    if (!t.node(at).is_switch()) {
      hops.push_back(std::move(h));
      reached = ix.by_lid(*dst) && ix.by_lid(*dst)->first == at;
      if (!reached) reason = "arrived at a CA that does not hold the LID";
      break;
    }
    if (!tables->has_table(at) || *dst > tables->max_lid().value()) {
      hops.push_back(std::move(h));
      reason = "no table for this LID";
      break;
    }
    const uint8_t out = tables->port(at, mad::Lid(static_cast<uint16_t>(*dst)));
    h["out_port"] = out;
    hops.push_back(std::move(h));
    if (out == 0) {
      reached = true;
      break;
    }
    if (out == 255 || out > t.node(at).num_ports || !t.port(at, mad::PortNum(out)).linked()) {
      reason = out == 255 ? "no route (entry 255)" : fmt::format("port {} leads nowhere", out);
      break;
    }
    const auto& port = t.port(at, mad::PortNum(out));
    in_port = port.peer_port.value();
    at = port.peer;
  }
  return ok(Json{{"from", node_brief(ix, *src)}, {"to_lid", *dst}, {"reached", reached},
                 {"reason", reason.empty() ? Json() : Json(reason)}, {"hops", std::move(hops)}});
}

Answer lft(const Params& p, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const FabricIndex& ix = *c.index;
  const auto& tables = ix.subnet().tables;
  if (!tables) return error(503, "this SM has programmed no tables (it is not master)");
  const auto sw = ix.resolve(str_param(p, "node"));
  if (!sw || !ix.topo().node(*sw).is_switch()) return error(404, fmt::format("node: no switch {}", str_param(p, "node")));
  const auto lid = int_param(p, "lid", 0, 0, mad::Lid::kMaxUnicast);
  if (!lid || *lid == 0) return error(400, "lid: a unicast LID");
  Json j{{"switch", node_brief(ix, *sw)}, {"lid", *lid}};
  const auto owner = ix.by_lid(static_cast<uint32_t>(*lid));
  j["holder"] = owner ? port_end(ix, owner->first, owner->second) : Json();
  if (!tables->has_table(*sw) || *lid > tables->max_lid().value()) {
    j["port"] = nullptr;
    return ok(j);
  }
  const mad::Lid l(static_cast<uint16_t>(*lid));
  const uint8_t out = tables->port(*sw, l);
  j["port"] = out == 255 ? Json() : Json(out);
  const auto& t = ix.topo();
  if (out != 0 && out != 255 && out <= t.node(*sw).num_ports && t.port(*sw, mad::PortNum(out)).linked()) {
    const auto& port = t.port(*sw, mad::PortNum(out));
    j["next"] = port_end(ix, port.peer, port.peer_port.value());
  }
  if (tables->has_alternatives()) {
    Json alts = Json::array();
    for (uint8_t a : tables->alternatives(*sw, l)) alts.push_back(a);
    j["alternatives"] = std::move(alts);
  }
  return ok(j);
}

Answer routing_metrics(const Params&, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const auto* f = c.index->routing_figures();
  if (!f) return error(503, "this SM has programmed no tables (it is not master)");
  return ok(Json{{"engine", c.index->subnet().sweep.engine},
                 {"ca_ports", f->ca_ports},
                 {"pairs", f->pairs},
                 {"unrouted", f->unrouted},
                 {"max_link_load", f->max_link_load},
                 {"mean_link_load", f->mean_link_load},
                 {"switch_links", f->switch_links},
                 {"stretch_mean", f->stretch_mean},
                 {"stretch_max", f->stretch_max},
                 {"shift_congestion", f->shift_congestion},
                 {"shift_congestion_max", f->shift_congestion_max},
                 {"shifts", f->shifts},
                 {"shifts_sampled", f->shifts_sampled},
                 {"deadlock_free", f->cdg_acyclic},
                 {"cdg_edges", f->cdg_edges}});
}

}  // namespace web
