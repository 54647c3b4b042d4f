#include "routing/vl_layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "routing/cdg_order.h"
#include "routing/parallel.h"

namespace routing {

namespace {

constexpr uint32_t kNoLayerArc = UINT32_MAX;
// Beyond this many layers the count only makes the error message precise.
constexpr unsigned kLayerLimit = 64;

}  // namespace

std::vector<uint32_t> dest_rounds(const FabricView& fv) {
  const auto dests = fv.dests();
  std::vector<uint32_t> rank(dests.size(), 0), seen(fv.switch_count(), 0);
  for (size_t i = 0; i < dests.size(); ++i)
    if (dests[i].out != 0 && dests[i].path == 0) rank[i] = seen[dests[i].sw]++;
  for (size_t i = 1; i < dests.size(); ++i)
    if (dests[i].path != 0) rank[i] = rank[i - 1];  // a port's LIDs follow its base LID
  std::vector<uint32_t> order(dests.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto key = [&](uint32_t i) {
    const Dest& d = dests[i];
    return std::make_tuple(d.out == 0, d.path, rank[i], d.sw, i);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  return order;
}

mad::Result<LayerStats> assign_layers(const FabricView& fv, RoutingTables& tables, unsigned max_vls,
                                      unsigned threads, bool count) {
  const size_t n = fv.switch_count();
  // The arc behind each (switch, port), to read the LFTs as channels.
  std::vector<uint32_t> arc_of(fv.port_slots(), kNoLayerArc);
  std::vector<SwIdx> head(fv.arc_count());
  for (SwIdx s = 0; s < n; ++s)
    for (uint32_t k = 0; k < fv.arcs(s).size(); ++k) {
      arc_of[fv.port_slot(s, fv.arcs(s)[k].port)] = fv.arc_base(s) + k;
      head[fv.arc_base(s) + k] = fv.arcs(s)[k].to;
    }
  const auto next_arc = [&](SwIdx s, mad::Lid lid) {
    const uint8_t p = tables.port(fv.node_of(s), lid);
    return p == kNoRoute || p == 0 || p > fv.port_count(s) ? kNoLayerArc : arc_of[fv.port_slot(s, p)];
  };
  std::vector<SwIdx> sources;
  for (SwIdx s = 0; s < n; ++s)
    if (!fv.endpoints_at(s).empty()) sources.push_back(s);
  const std::vector<uint32_t> order = dest_rounds(fv);

  // Every route with a dependency (two hops or more) that reaches its destination's switch
  // (the others are unrouted and carry nothing), by destination in parallel.
  struct Route {
    uint32_t hops, rank;  // rank: the destination's position in `order`
    SwIdx src;
  };
  std::vector<std::vector<Route>> per_dest(order.size());
  parallel_for(order.size(), threads, [&](size_t r, unsigned) {
    const Dest& d = fv.dests()[order[r]];
    for (SwIdx s : sources) {
      uint32_t hops = 0;
      SwIdx at = s;
      for (uint32_t c = next_arc(at, d.lid); c != kNoLayerArc && hops <= n; c = next_arc(at, d.lid)) {
        at = head[c];
        ++hops;
      }
      if (at == d.sw && hops >= 2) per_dest[r].push_back(Route{hops, static_cast<uint32_t>(r), s});
    }
  });
  std::vector<Route> routes;
  for (auto& v : per_dest) routes.insert(routes.end(), v.begin(), v.end());
  per_dest = {};
  // Longest first: they close the most cycles, and every shorter route that is the tail of a
  // placed one (its dependencies a subset) then goes on that one's layer at no cost.
  std::stable_sort(routes.begin(), routes.end(), [](const Route& a, const Route& b) { return a.hops > b.hops; });

  constexpr uint8_t kFree = 0xFF;
  std::vector<uint8_t> covered(order.size() * n, kFree);  // [rank * n + switch]: a layer that holds its route
  std::vector<uint8_t> sl(routes.size(), 0);
  std::vector<std::unique_ptr<ChannelOrder>> layers;
  std::vector<uint32_t> path;
  std::vector<SwIdx> via;
  std::vector<std::pair<uint32_t, uint32_t>> added;
  std::vector<std::pair<uint32_t, unsigned>> tries;  // (new dependencies, layer)
  const auto walk = [&](const Route& r) {
    const Dest& d = fv.dests()[order[r.rank]];
    path.clear();
    via.clear();
    for (SwIdx at = r.src; at != d.sw; at = head[path.back()]) {
      via.push_back(at);
      path.push_back(next_arc(at, d.lid));
    }
  };
  // Best fit of `path` among layers [0, limit): those that hold most of its dependencies
  // first (similar routes gather, which leaves the others room); kFree when none can take it.
  const auto place = [&](size_t limit) -> unsigned {
    tries.clear();
    for (unsigned l = 0; l < limit; ++l) {
      uint32_t missing = 0;
      for (size_t k = 0; k + 1 < path.size(); ++k) missing += !layers[l]->has(path[k], path[k + 1]);
      tries.emplace_back(missing, l);
    }
    std::sort(tries.begin(), tries.end());
    for (auto [missing, l] : tries) {
      ChannelOrder& cdg = *layers[l];
      added.clear();
      bool ok = true;
      for (size_t k = 0; ok && k + 1 < path.size(); ++k) {
        bool fresh = false;
        ok = cdg.add(path[k], path[k + 1], &fresh);
        if (fresh) added.emplace_back(path[k], path[k + 1]);
      }
      if (ok) return l;
      for (auto [c, e] : added) cdg.remove(c, e);
    }
    return kFree;
  };
  for (size_t i = 0; i < routes.size(); ++i) {
    const Route& r = routes[i];
    uint8_t* cov = covered.data() + size_t{r.rank} * n;
    unsigned layer = cov[r.src];
    if (layer == kFree) {
      walk(r);
      layer = place(layers.size());
      if (layer == kFree) {
        if (!count && layers.size() == max_vls)
          return mad::fail(mad::Errc::unsupported, fmt::format("needs more than {} VLs", max_vls));
        if (layers.size() == kLayerLimit)
          return mad::fail(mad::Errc::unsupported,
                           fmt::format("needs more than {} VLs, max_vls allows {}", kLayerLimit, max_vls));
        layer = static_cast<unsigned>(layers.size());
        layers.push_back(std::make_unique<ChannelOrder>(fv));
        for (size_t k = 0; k + 1 < path.size(); ++k) layers.back()->add(path[k], path[k + 1]);
      }
      for (SwIdx x : via)
        if (cov[x] == kFree) cov[x] = static_cast<uint8_t>(layer);
    }
    sl[i] = static_cast<uint8_t>(layer);
  }
  // Then the last layer is emptied into the others where its routes fit there (dependencies
  // a route leaves behind in the last layer do no harm: it is dropped, or kept as it was).
  while (layers.size() > 1) {
    const unsigned last = static_cast<unsigned>(layers.size() - 1);
    bool emptied = true;
    for (size_t i = 0; i < routes.size() && emptied; ++i) {
      if (sl[i] != last) continue;
      walk(routes[i]);
      const unsigned to = place(last);
      if (to == kFree) emptied = false;
      else sl[i] = static_cast<uint8_t>(to);
    }
    if (!emptied) break;
    layers.pop_back();
  }
  tables.reserve_sls();
  LayerStats stats;
  for (size_t i = 0; i < routes.size(); ++i)
    tables.set_sl(fv.node_of(routes[i].src), fv.dests()[order[routes[i].rank]].lid, sl[i]);
  stats.routes = routes.size();
  stats.layers = std::max<unsigned>(1, static_cast<unsigned>(layers.size()));
  if (stats.layers > max_vls)
    return mad::fail(mad::Errc::unsupported, fmt::format("needs {} VLs, max_vls allows {}", stats.layers, max_vls));
  return stats;
}

}  // namespace routing
