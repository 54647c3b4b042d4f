#include "web/api.h"

#include <exception>

#include "web/endpoints.h"

namespace web {

Answer answer(std::string_view path, const Params& params, const Context& ctx) {
  // nlohmann throws on what it cannot represent; no exception leaves the API.
  try {
    if (path == "summary") return summary(params, ctx);
    if (path == "nodes") return nodes(params, ctx);
    if (path.starts_with("node/")) return node(path.substr(5), params, ctx);
    if (path == "links") return links(params, ctx);
    if (path == "topology") return topology(params, ctx);
    if (path == "route") return route(params, ctx);
    if (path == "lft") return lft(params, ctx);
    if (path == "counters") return counters(params, ctx);
    if (path == "events") return events(params, ctx);
    if (path == "metrics") return routing_metrics(params, ctx);
    return error(404, "no such API: summary, nodes, node/ID, links, topology, route, lft, counters, events, metrics");
  } catch (const std::exception& e) {
    return error(500, e.what());
  }
}

}  // namespace web
