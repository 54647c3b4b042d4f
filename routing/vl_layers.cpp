#include "routing/vl_layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "routing/cdg_order.h"

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

mad::Result<LayerStats> assign_layers(const FabricView& fv, RoutingTables& tables, unsigned max_vls) {
  const size_t n = fv.switch_count();
  // The arc behind each (switch, port), to read the LFTs as channels.
  std::vector<uint32_t> arc_of(fv.port_slots(), kNoLayerArc);
  std::vector<SwIdx> head(fv.arc_count());
  for (SwIdx s = 0; s < n; ++s)
    for (uint32_t k = 0; k < fv.arcs(s).size(); ++k) {
      arc_of[fv.port_slot(s, fv.arcs(s)[k].port)] = fv.arc_base(s) + k;
      head[fv.arc_base(s) + k] = fv.arcs(s)[k].to;
    }
  std::vector<SwIdx> sources;
  for (SwIdx s = 0; s < n; ++s)
    if (!fv.endpoints_at(s).empty()) sources.push_back(s);

  std::vector<std::unique_ptr<ChannelOrder>> layers;
  tables.reserve_sls();
  LayerStats stats;
  std::vector<uint32_t> chan(n);
  std::vector<std::pair<uint32_t, SwIdx>> by_length;  // (hops, source)
  std::vector<uint32_t> path;
  std::vector<std::pair<uint32_t, uint32_t>> added;
  for (uint32_t i : dest_rounds(fv)) {
    const Dest& d = fv.dests()[i];
    for (SwIdx s = 0; s < n; ++s) {
      const uint8_t p = tables.port(fv.node_of(s), d.lid);
      chan[s] = p == kNoRoute || p == 0 || p > fv.port_count(s) ? kNoLayerArc : arc_of[fv.port_slot(s, p)];
    }
    // Routes that reach d's switch (the others are unrouted, and carry nothing), longest first.
    by_length.clear();
    for (SwIdx s : sources) {
      uint32_t hops = 0;
      SwIdx at = s;
      while (chan[at] != kNoLayerArc && hops <= n) {
        at = head[chan[at]];
        ++hops;
      }
      if (at == d.sw && hops >= 2) by_length.emplace_back(hops, s);  // one hop: no dependency
    }
    std::sort(by_length.begin(), by_length.end(),
              [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    for (auto [hops, s] : by_length) {
      path.clear();
      for (SwIdx at = s; chan[at] != kNoLayerArc; at = head[chan[at]]) path.push_back(chan[at]);
      unsigned layer = 0;
      for (;; ++layer) {
        if (layer == layers.size()) {
          if (layers.size() == kLayerLimit)
            return mad::fail(mad::Errc::unsupported,
                             fmt::format("needs more than {} VLs, max_vls allows {}", kLayerLimit, max_vls));
          layers.push_back(std::make_unique<ChannelOrder>(fv));
        }
        ChannelOrder& cdg = *layers[layer];
        added.clear();
        bool ok = true;
        for (size_t k = 0; k + 1 < path.size(); ++k) {
          bool fresh = false;
          if (!cdg.add(path[k], path[k + 1], &fresh)) {
            ok = false;
            break;
          }
          if (fresh) added.emplace_back(path[k], path[k + 1]);
        }
        if (ok) break;
        for (auto [c, e] : added) cdg.remove(c, e);
      }
      tables.set_sl(fv.node_of(s), d.lid, static_cast<uint8_t>(std::min(layer, 255u)));
      ++stats.routes;
    }
  }
  stats.layers = std::max<unsigned>(1, static_cast<unsigned>(layers.size()));
  if (stats.layers > max_vls)
    return mad::fail(mad::Errc::unsupported, fmt::format("needs {} VLs, max_vls allows {}", stats.layers, max_vls));
  return stats;
}

}  // namespace routing
