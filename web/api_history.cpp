// /api/counters (one port's counters over time, from the store's samples, and its rates now)
// and /api/events (the recent events, filtered).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "web/api_parts.h"
#include "web/endpoints.h"

namespace web {

namespace {
constexpr size_t kMaxSamples = 2000;
using sm::perfmgr::Counter;

bool contains_nocase(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}
}  // namespace

Answer counters(const Params& p, const Context& c) {
  if (!c.index) return error(503, "no sweep has published the subnet yet");
  const FabricIndex& ix = *c.index;
  const auto id = ix.resolve(str_param(p, "node"));
  if (!id) return error(404, fmt::format("node: no node {}", str_param(p, "node")));
  const auto port = int_param(p, "port", -1, -1, 255), hours = int_param(p, "hours", 1, 1, 24 * 31);
  const auto& n = ix.topo().node(*id);
  if (!port || *port < 0 || *port > n.num_ports) return error(400, fmt::format("port: 0..{}", n.num_ports));
  if (!hours) return error(400, "hours is a number");
  const uint8_t pn = static_cast<uint8_t>(*port);
  Json j{{"node", node_brief(ix, *id)}, {"port", pn}};
  const auto* now = sample_of(c.pub, n.guid, pn);
  if (now) {
    Json rates = Json::object();
    if (now->has_rates)
      for (size_t i = 0; i < sm::perfmgr::kCounters; ++i) rates[std::string(sm::perfmgr::kCounterInfo[i].name)] = now->rates[i];
    j["rates"] = std::move(rates);
    j["sampled_ms"] = now->sampled_ms;
  } else {
    j["rates"] = nullptr;
  }
  // The series between consecutive samples: data rates in bytes per second and error
  // counts per interval. A total that went down (a cleared or reset port) starts anew.
  Json t = Json::array(), xmit = Json::array(), rcv = Json::array(), errors = Json::array(), wait = Json::array();
  size_t samples = 0;
  if (c.store) {
    auto s = c.store->load_samples(n.guid, pn, c.now_ms - *hours * 3600 * 1000, kMaxSamples);
    if (!s) return error(500, fmt::format("store: {}", s.error().message));
    samples = s->size();
    for (size_t i = 1; i < s->size(); ++i) {
      const auto &a = (*s)[i - 1], &b = (*s)[i];
      const double dt = static_cast<double>(b.time_ms - a.time_ms) / 1000.0;
      if (dt <= 0) continue;
      auto delta = [&](Counter k) {
        const uint64_t x = a.totals[sm::perfmgr::index(k)], y = b.totals[sm::perfmgr::index(k)];
        return y >= x ? static_cast<double>(y - x) : 0.0;
      };
      double err = 0;
      for (size_t k = 0; k < sm::perfmgr::kCounters; ++k)
        if (sm::perfmgr::kCounterInfo[k].error) err += delta(static_cast<Counter>(k));
      t.push_back(b.time_ms);
      xmit.push_back(delta(Counter::xmit_data) / dt);
      rcv.push_back(delta(Counter::rcv_data) / dt);
      errors.push_back(err);
      wait.push_back(delta(Counter::xmit_wait) / dt);
    }
  }
  j["stored_samples"] = samples;
  j["series"] = Json{{"time_ms", std::move(t)}, {"xmit_bytes_per_s", std::move(xmit)}, {"rcv_bytes_per_s", std::move(rcv)},
                     {"errors", std::move(errors)}, {"xmit_wait_per_s", std::move(wait)}};
  j["history"] = c.store ? "store" : "none (no store: only the latest rates)";
  return ok(j);
}

Answer events(const Params& p, const Context& c) {
  const auto limit = int_param(p, "limit", 200, 1, 5000);
  if (!limit) return error(400, "limit is a number");
  const std::string level = str_param(p, "level"), code = str_param(p, "code"), q = str_param(p, "q");
  if (!level.empty() && level != "error" && level != "warn" && level != "info")
    return error(400, "level: error, warn or info (that level and worse)");
  const int worst = level == "error" ? 0 : level == "warn" ? 1 : 2;
  auto rank = [](const std::string& l) { return l == "error" ? 0 : l == "warn" ? 1 : 2; };
  Json list = Json::array();
  size_t matched = 0;
  if (c.pub.events) {
    const auto& all = *c.pub.events;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {  // newest first
      if (rank(it->level) > worst) continue;
      if (!code.empty() && fmt::format("{:04d}", it->code) != code && fmt::format("{}", it->code) != code &&
          event_json(*it)["code"] != code)
        continue;
      if (!q.empty() && !contains_nocase(it->message, q)) continue;
      if (++matched <= static_cast<size_t>(*limit)) list.push_back(event_json(*it));
    }
  }
  return ok(Json{{"total", matched}, {"events", std::move(list)}});
}

}  // namespace web
