#include "sim/lft_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace sim {

mad::Result<ImportReport> import_lfts(SimFabric& f, const LftDump& d) {
  // Port GUID -> (node, port): a CA's ports, a switch's port 0 (its node GUID).
  std::map<mad::Guid, std::pair<NodeIdx, uint8_t>> holder;
  for (NodeIdx i = 0; i < f.nodes().size(); ++i) {
    const SimNode& n = f.node(i);
    if (n.is_switch()) {
      holder.emplace(n.guid, std::pair(i, uint8_t{0}));
    } else {
      for (uint8_t p = 1; p < n.ports.size(); ++p) holder.emplace(n.ports[p].guid, std::pair(i, p));
    }
  }
  // Checked whole before anything is written.
  std::map<std::pair<NodeIdx, uint8_t>, std::pair<uint16_t, uint16_t>> lids;  // -> lowest, highest
  std::vector<NodeIdx> sw_of(d.switches.size());
  for (size_t s = 0; s < d.switches.size(); ++s) {
    const DumpSwitch& ds = d.switches[s];
    const auto at = f.find_guid(ds.guid);
    if (!at || !f.node(*at).is_switch())
      return mad::fail(mad::Errc::not_found, fmt::format("line {}: no switch with GUID {} on this fabric", ds.line, ds.guid.str()));
    sw_of[s] = *at;
    const SimNode& n = f.node(*at);
    for (const DumpEntry& e : ds.entries) {
      if (e.port > n.num_ports)
        return mad::fail(mad::Errc::invalid, fmt::format("line {}: switch {} has no port {} (LID {})", ds.line, n.name,
                                                         e.port, e.lid));
      if (e.holder.is_zero()) continue;
      auto h = holder.find(e.holder);
      if (h == holder.end())
        return mad::fail(mad::Errc::not_found, fmt::format("line {}: LID {} is held by port GUID {}, not on this fabric",
                                                           ds.line, e.lid, e.holder.str()));
      auto [it, fresh] = lids.emplace(h->second, std::pair(e.lid, e.lid));
      it->second.first = std::min(it->second.first, e.lid);
      it->second.second = std::max(it->second.second, e.lid);
    }
  }
  ImportReport r;
  for (NodeIdx i = 0; i < f.nodes().size(); ++i)
    for (SimPort& p : f.mutable_node(i).ports) {
      p.lid = 0;
      p.lmc = 0;
    }
  for (const auto& [at, range] : lids) {
    SimPort& p = f.mutable_node(at.first).ports[at.second];
    p.lid = range.first;
    uint8_t lmc = 0;
    while (lmc < 7 && (1u << lmc) < static_cast<unsigned>(range.second - range.first + 1)) ++lmc;
    p.lmc = lmc;
    ++r.lids;
  }
  for (NodeIdx i = 0; i < f.nodes().size(); ++i) {
    const SimNode& n = f.node(i);
    if (!n.present) continue;
    if (n.is_switch()) r.without_lid += n.ports[0].lid == 0;
    else
      for (size_t p = 1; p < n.ports.size(); ++p) r.without_lid += n.ports[p].link_up() && n.ports[p].lid == 0;
  }
  for (size_t s = 0; s < d.switches.size(); ++s) {
    SimSwitch& sw = *f.mutable_node(sw_of[s]).sw;
    uint16_t top = 0;
    for (const DumpEntry& e : d.switches[s].entries) top = std::max(top, e.lid);
    // Whole 64-LID blocks, as the hardware holds them; unlisted entries route nowhere.
    sw.lft.assign((static_cast<size_t>(top) / 64 + 1) * 64, 0xFF);
    for (const DumpEntry& e : d.switches[s].entries) sw.lft[e.lid] = e.port;
    sw.lft_top = top;
    r.entries += d.switches[s].entries.size();
    ++r.switches;
  }
  return r;
}

}  // namespace sim
