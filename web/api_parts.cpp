#include "web/api_parts.h"

#include <algorithm>
#include <charconv>

#include "mad/port_info.h"

namespace web {

Answer ok(const Json& j) { return {200, j.dump(-1, ' ', false, Json::error_handler_t::replace)}; }

Answer error(int status, std::string_view message) {
  return {status, Json{{"error", message}}.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

std::optional<int64_t> int_param(const Params& p, std::string_view key, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = p.find(key);
  if (it == p.end() || it->second.empty()) return std::clamp(fallback, lo, hi);
  int64_t v = 0;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return std::clamp(v, lo, hi);
}

std::string str_param(const Params& p, std::string_view key) {
  auto it = p.find(key);
  return it == p.end() ? std::string() : it->second;
}

const char* node_type_name(const fabric::Node& n) {
  return n.type == mad::NodeType::sw ? "switch" : n.type == mad::NodeType::router ? "router" : "CA";
}

const char* web_port_state(mad::PortState s) {
  switch (s) {
    case mad::PortState::down: return "Down";
    case mad::PortState::init: return "Init";
    case mad::PortState::armed: return "Armed";
    case mad::PortState::active: return "Active";
    default: return "?";
  }
}

namespace {
uint16_t lid_of(const fabric::Topology& t, NodeId id, uint8_t port) {
  const auto& n = t.node(id);
  return (n.is_switch() ? t.port(id, mad::PortNum(0)) : t.port(id, mad::PortNum(port))).lid.value();
}
}  // namespace

mad::PortState port_state_now(const FabricIndex& ix, NodeId id, uint8_t port) {
  const mad::PortState walked = ix.topo().port(id, mad::PortNum(port)).state;
  const sm::NodeRec* rec = ix.subnet().node(id);
  if (!rec || port >= rec->ports.size() || !rec->ports[port].have_info) return walked;
  const mad::PortState now = rec->ports[port].info.port_state;
  return now == mad::PortState::no_change ? walked : now;
}

Json node_brief(const FabricIndex& ix, NodeId id) {
  const auto& t = ix.topo();
  const auto& n = t.node(id);
  uint16_t lid = 0;
  if (n.is_switch()) {
    lid = t.port(id, mad::PortNum(0)).lid.value();
  } else {
    for (const auto& p : t.ports(id))
      if (p.num.value() != 0 && p.lid.value() != 0) {
        lid = p.lid.value();
        break;
      }
  }
  Json j{{"id", id}, {"guid", guid_text(n.guid)}, {"type", node_type_name(n)}, {"description", n.description},
         {"lid", lid}, {"ports", n.num_ports}};
  if (n.is_switch()) {
    j["tier"] = ix.tier(id);
    j["cas"] = ix.cas_of(id);
  }
  j["group"] = ix.group(id);
  return j;
}

Json port_end(const FabricIndex& ix, NodeId id, uint8_t port) {
  const auto& t = ix.topo();
  const auto& n = t.node(id);
  return Json{{"id", id}, {"guid", guid_text(n.guid)}, {"description", n.description}, {"port", port},
              {"lid", lid_of(t, id, port)}, {"type", node_type_name(n)}};
}

std::string rate_name(const fabric::Port& p) {
  return mad::link_rate_name(p.width_active, p.speed_active, p.speed_ext_active);
}

const sm::perfmgr::PortSample* sample_of(const Published& pub, mad::Guid node, uint8_t port) {
  if (!pub.perf) return nullptr;
  const auto& v = pub.perf->ports;
  auto it = std::lower_bound(v.begin(), v.end(), std::pair(node, port), [](const sm::perfmgr::PortSample& s, const auto& k) {
    return std::pair(s.local.node, s.local.port) < k;
  });
  return it != v.end() && it->local.node == node && it->local.port == port ? &*it : nullptr;
}

double error_rate(const sm::perfmgr::PortSample& s) {
  double r = 0;
  for (size_t i = 0; i < sm::perfmgr::kCounters; ++i)
    if (sm::perfmgr::kCounterInfo[i].error) r += s.rates[i];
  return r;
}

}  // namespace web
