// The web view's JSON API, the one the page and scripts both use: GET /api/summary, nodes,
// node, links, topology, route, lft, counters, events, metrics (the README lists their
// parameters). Pure rendering over published values: no I/O but the store's counter samples,
// through a read-only connection the caller owns and serializes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "web/fabric_index.h"
#include "web/published.h"

namespace web {

using Params = std::map<std::string, std::string, std::less<>>;

struct Answer {
  int status = 200;
  std::string body;  // JSON
};

struct Context {
  const Published& pub;
  std::shared_ptr<const FabricIndex> index;  // null: no sweep has published a subnet yet
  sm::store::Store* store = nullptr;         // read-only; null: none (counters from the snapshot)
  int64_t now_ms = 0;
};

// `path` without the leading "/api/": "summary", "node/0x0002c9...", ...
Answer answer(std::string_view path, const Params& params, const Context& ctx);

}  // namespace web
