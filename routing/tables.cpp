#include "routing/tables.h"

#include <algorithm>

#include <fmt/format.h>

#include <map>

#include "routing/parallel.h"

namespace routing {

RoutingTables::RoutingTables(const fabric::Topology& topo, mad::Lid max_lid, unsigned threads)
    : max_lid_(max_lid), lft_(topo.node_count()) {
  const auto switches = topo.switches();
  parallel_for(switches.size(), threads, [&](size_t i, unsigned) {
    lft_[switches[i]].assign(static_cast<size_t>(max_lid.value()) + 1, kNoRoute);
  }, 64);
}

std::span<const uint8_t> RoutingTables::alternatives(fabric::NodeId sw, mad::Lid dst) const {
  if (sw >= alt_group_.size() || alt_group_[sw].empty()) return {};
  const size_t l = dst.value();
  if (l >= alt_group_[sw].size()) return {};
  const auto& off = alt_group_off_[sw];
  const size_t g = alt_group_[sw][l];
  if (g + 1 >= off.size()) return {};
  return {alt_group_ports_[sw].data() + off[g], off[g + 1] - off[g]};
}

void RoutingTables::reserve_alternatives() {
  alt_group_.assign(lft_.size(), {});
  alt_group_off_.assign(lft_.size(), {});
  alt_group_ports_.assign(lft_.size(), {});
}

void RoutingTables::set_alternative_groups(fabric::NodeId sw,
                                           const std::vector<std::vector<uint8_t>>& groups,
                                           std::vector<uint16_t> group_of_lid) {
  auto& off = alt_group_off_[sw];
  auto& ports = alt_group_ports_[sw];
  off.assign(1, 0);
  ports.clear();
  for (const auto& g : groups) {
    ports.insert(ports.end(), g.begin(), g.end());
    off.push_back(static_cast<uint32_t>(ports.size()));
  }
  alt_group_[sw] = std::move(group_of_lid);
}

fabric::ArTable RoutingTables::ar_table(fabric::NodeId sw) const {
  fabric::ArTable t;
  if (sw >= alt_group_.size() || alt_group_[sw].empty()) return t;
  const auto& off = alt_group_off_[sw];
  for (size_t g = 0; g + 1 < off.size(); ++g)
    t.groups.emplace_back(alt_group_ports_[sw].begin() + off[g], alt_group_ports_[sw].begin() + off[g + 1]);
  t.group_of_lid = alt_group_[sw];
  return t;
}

void RoutingTables::set_alternatives(const std::vector<std::vector<std::vector<uint8_t>>>& ports) {
  reserve_alternatives();
  for (size_t sw = 0; sw < ports.size() && sw < lft_.size(); ++sw) {
    if (ports[sw].empty()) continue;
    // Keyed by the bytes as a string: g++ 12 warns falsely on comparing vectors of bytes.
    std::map<std::string, uint16_t> ids{{std::string(), 0}};
    std::vector<std::vector<uint8_t>> groups{{}};
    std::vector<uint16_t> of(ports[sw].size(), 0);
    for (size_t l = 0; l < ports[sw].size(); ++l) {
      std::string key(ports[sw][l].begin(), ports[sw][l].end());
      auto [it, fresh] = ids.emplace(std::move(key), static_cast<uint16_t>(groups.size()));
      if (fresh) groups.push_back(ports[sw][l]);
      of[l] = it->second;
    }
    set_alternative_groups(static_cast<fabric::NodeId>(sw), groups, std::move(of));
  }
}

void RoutingDiagnostics::note_first(std::string line) {
  std::vector<std::string> out;
  out.reserve(notes.size() + 1);
  out.push_back(std::move(line));
  for (std::string& n : notes) out.push_back(std::move(n));
  notes = std::move(out);
}

std::string describe(const fabric::Topology& topo, const UnroutedPair& p) {
  const fabric::Node& from = topo.node(p.from);
  const fabric::Node& to = topo.node(p.to);
  return fmt::format("switch '{}' ({}) has no route to '{}' ({}) port {} (LID {})",
                     from.description, from.guid, to.description, to.guid, p.to_port, p.lid);
}

void RoutingTables::reserve_sls() {
  sl_.assign(lft_.size(), {});
  for (size_t sw = 0; sw < lft_.size(); ++sw)
    if (!lft_[sw].empty()) sl_[sw].assign(lft_[sw].size(), 0);
}

unsigned RoutingTables::vls_used() const {
  uint8_t top = 0;
  for (const auto& row : sl_)
    for (uint8_t s : row) top = std::max(top, s);
  return top + 1u;
}

}  // namespace routing
