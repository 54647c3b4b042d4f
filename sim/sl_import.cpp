#include "sim/sl_import.h"

#include <fmt/format.h>

#include <map>

namespace sim {

mad::Result<SlImportReport> import_sls(SimFabric& f, const SlDump& d) {
  // LID -> the ingress switch of the CA port holding it (its LMC range).
  std::map<uint16_t, NodeIdx> ingress;
  for (NodeIdx i = 0; i < f.nodes().size(); ++i) {
    const SimNode& n = f.node(i);
    if (!n.present || n.is_switch()) continue;
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const SimPort& sp = n.ports[p];
      if (sp.lid == 0 || !sp.link_up() || !f.node(sp.peer).is_switch()) continue;
      for (unsigned k = 0; k < (1u << sp.lmc); ++k) ingress.emplace(static_cast<uint16_t>(sp.lid + k), sp.peer);
    }
  }
  SlImportReport r;
  r.sls.by_switch.resize(f.nodes().size());
  std::map<std::pair<NodeIdx, uint16_t>, const SlPath*> first;  // for conflicting lines
  for (const SlPath& p : d.paths) {
    const auto at = ingress.find(p.slid);
    if (at == ingress.end())
      return mad::fail(mad::Errc::not_found, fmt::format("line {}: SLID {} is held by no linked CA port", p.line, p.slid));
    auto [it, fresh] = first.emplace(std::pair(at->second, p.dlid), &p);
    if (!fresh && it->second->sl != p.sl)
      return mad::fail(mad::Errc::invalid,
                       fmt::format("line {}: SL {} from SLID {} to DLID {}, but line {} gives SL {} from SLID {} on the same "
                                   "ingress switch {}",
                                   p.line, p.sl, p.slid, p.dlid, it->second->line, it->second->sl, it->second->slid,
                                   f.node(at->second).name));
    std::vector<uint8_t>& row = r.sls.by_switch[at->second];
    if (row.size() <= p.dlid) row.resize(p.dlid + size_t{1}, 0);
    row[p.dlid] = p.sl;
    r.any_nonzero = r.any_nonzero || p.sl != 0;
    ++r.paths;
  }
  std::vector<NodeIdx> sw_of(d.sl2vl.size());
  for (size_t i = 0; i < d.sl2vl.size(); ++i) {
    const SlToVlRow& row = d.sl2vl[i];
    const auto at = f.find_guid(row.sw);
    if (!at || !f.node(*at).is_switch())
      return mad::fail(mad::Errc::not_found, fmt::format("line {}: no switch with GUID {} on this fabric", row.line, row.sw.str()));
    const SimNode& n = f.node(*at);
    if (row.in > n.num_ports || row.out == 0 || row.out > n.num_ports)
      return mad::fail(mad::Errc::invalid, fmt::format("line {}: switch {} has ports 1..{}: no table from port {} to port {}",
                                                       row.line, n.name, n.num_ports, row.in, row.out));
    sw_of[i] = *at;
  }
  for (size_t i = 0; i < d.sl2vl.size(); ++i) {
    const SlToVlRow& row = d.sl2vl[i];
    SimNode& n = f.mutable_node(sw_of[i]);
    SimPort& op = n.ports[row.out];
    if (op.sl2vl_by_in.empty()) op.sl2vl_by_in.assign(n.num_ports + 1u, op.sl2vl);  // as a Set does (sma.cpp)
    auto& table = op.sl2vl_by_in[row.in];
    for (size_t b = 0; b < table.size(); ++b)
      table[b] = static_cast<uint8_t>((row.vl[2 * b] << 4) | row.vl[2 * b + 1]);
    ++r.sl2vl_tables;
  }
  return r;
}

}  // namespace sim
