#include "web/fabric_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <deque>
#include <map>
#include <tuple>

namespace web {

namespace {

using fabric::kNoNode;
using fabric::Topology;

constexpr size_t kMaxGroups = 64;

bool is_ca_end(const fabric::Node& n) { return !n.is_switch(); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A cable's key by GUIDs from its lower end, as GoneCable::key().
auto cable_key(const Topology& t, const Cable& c) {
  return std::tuple(t.node(c.a).guid.value(), c.a_port, t.node(c.b).guid.value(), c.b_port);
}

}  // namespace

std::string guid_text(mad::Guid g) { return fmt::format("0x{:016x}", g.value()); }

std::optional<uint64_t> parse_guid(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::shared_ptr<const FabricIndex> FabricIndex::build(std::shared_ptr<const sm::Subnet> s, const FabricIndex* before,
                                                      std::span<const GoneCable> seed, int64_t now_ms) {
  auto ix = std::make_shared<FabricIndex>();
  ix->subnet_ = std::move(s);
  const Topology& t = ix->topo();
  const size_t n = t.node_count();
  ix->lower_desc_.reserve(n);
  for (const auto& node : t.nodes()) ix->lower_desc_.push_back(lower(node.description));
  ix->ca_count_.assign(n, 0);
  uint32_t top = 0;
  for (NodeId id = 0; id < n; ++id)
    for (const auto& p : t.ports(id))
      if (p.lid.value() != 0) top = std::max<uint32_t>(top, p.lid.value() + (1u << p.lmc) - 1);
  ix->lid_owner_.assign(top + 1, {kNoNode, 0});
  for (NodeId id = 0; id < n; ++id) {
    const auto& node = t.node(id);
    for (const auto& p : t.ports(id)) {
      if (p.lid.value() != 0 && (node.is_switch() ? p.num.value() == 0 : p.num.value() != 0))
        for (uint32_t l = p.lid.value(); l < p.lid.value() + (1u << p.lmc) && l <= top; ++l)
          ix->lid_owner_[l] = {id, p.num.value()};
      if (node.is_switch() && p.linked() && is_ca_end(t.node(p.peer))) ++ix->ca_count_[id];
    }
  }
  ix->index_cables(before, seed, now_ms);
  ix->assign_tiers();
  ix->assign_groups();
  return ix;
}

void FabricIndex::index_cables(const FabricIndex* before, std::span<const GoneCable> seed, int64_t now_ms) {
  const Topology& t = topo();
  for (NodeId id = 0; id < t.node_count(); ++id)
    for (const auto& p : t.ports(id))
      if (p.linked() && (id < p.peer || (id == p.peer && p.num < p.peer_port)))
        cables_.push_back({id, p.num.value(), p.peer, p.peer_port.value()});
  // cables_ is in (a, a_port) order, and NodeIds follow GUIDs: sorted by key already.
  std::vector<GoneCable> gone;
  auto present = [&](const auto& key) {
    auto it = std::lower_bound(cables_.begin(), cables_.end(), key,
                               [&](const Cable& c, const auto& k) { return cable_key(t, c) < k; });
    return it != cables_.end() && cable_key(t, *it) == key;
  };
  for (const GoneCable& g : before ? before->gone() : seed)
    if (!present(g.key())) gone.push_back(g);
  if (before) {
    const Topology& bt = before->topo();
    for (const Cable& c : before->cables())
      if (!present(cable_key(bt, c)))
        gone.push_back({bt.node(c.a).guid, c.a_port, bt.node(c.a).description, bt.node(c.b).guid, c.b_port,
                        bt.node(c.b).description, now_ms});
  }
  std::sort(gone.begin(), gone.end(), [](const GoneCable& x, const GoneCable& y) { return x.key() < y.key(); });
  gone.erase(std::unique(gone.begin(), gone.end(), [](const GoneCable& x, const GoneCable& y) { return x.key() == y.key(); }),
             gone.end());
  gone_ = std::move(gone);
}

// Leaves (switches with CAs) are tier 0, the others their distance from the nearest leaf.
void FabricIndex::assign_tiers() {
  const Topology& t = topo();
  tier_.assign(t.node_count(), -1);
  std::deque<NodeId> q;
  for (NodeId sw : t.switches())
    if (ca_count_[sw] > 0) {
      tier_[sw] = 0;
      q.push_back(sw);
    }
  if (q.empty() && !t.switches().empty()) {  // no CA at all: one tier
    for (NodeId sw : t.switches()) tier_[sw] = 0;
  }
  while (!q.empty()) {
    const NodeId sw = q.front();
    q.pop_front();
    for (const auto& p : t.ports(sw))
      if (p.linked() && t.node(p.peer).is_switch() && tier_[p.peer] < 0) {
        tier_[p.peer] = tier_[sw] + 1;
        q.push_back(p.peer);
      }
  }
  max_tier_ = 0;
  for (NodeId sw : t.switches()) {
    if (tier_[sw] < 0) tier_[sw] = 0;  // cut off from every CA
    max_tier_ = std::max(max_tier_, tier_[sw]);
  }
  tree_ = max_tier_ > 0;
  for (const Cable& c : cables_)
    if (t.node(c.a).is_switch() && t.node(c.b).is_switch() && std::abs(tier_[c.a] - tier_[c.b]) != 1) tree_ = false;
}

void FabricIndex::assign_groups() {
  const Topology& t = topo();
  group_.assign(t.node_count(), -1);
  const auto sws = t.switches();
  auto add = [&](std::string name, const std::vector<NodeId>& members) {
    Group g{std::move(name), INT32_MAX, members, 0};
    for (NodeId s : members) {
      g.tier = std::min(g.tier, tier_[s]);
      g.cas += ca_count_[s];
      group_[s] = static_cast<int>(groups_.size());
    }
    groups_.push_back(std::move(g));
  };
  // Consecutive pieces of a list, at most kMaxGroups / `share` of them.
  auto chunks = [&](const std::vector<NodeId>& list, const std::string& what, size_t most) {
    const size_t per = std::max<size_t>(1, (list.size() + most - 1) / most);
    for (size_t i = 0; i < list.size(); i += per)
      add(fmt::format("{} {}", what, i / per + 1),
          std::vector<NodeId>(list.begin() + static_cast<long>(i), list.begin() + static_cast<long>(std::min(list.size(), i + per))));
  };
  if (sws.size() <= kDrawAll) {
    add("fabric", std::vector<NodeId>(sws.begin(), sws.end()));
  } else if (tree_ && max_tier_ >= 2) {
    // Pods: what stays connected below the top tier. The top tier by the lowest switch each
    // reaches (a fat tree's spine planes), in pieces when that gives too many.
    std::vector<int> pod(t.node_count(), -1);
    int pods = 0;
    for (NodeId s : sws) {
      if (tier_[s] == max_tier_ || pod[s] >= 0) continue;
      std::vector<NodeId> members{s};
      pod[s] = pods;
      for (size_t i = 0; i < members.size(); ++i)
        for (const auto& p : t.ports(members[i]))
          if (p.linked() && t.node(p.peer).is_switch() && tier_[p.peer] < max_tier_ && pod[p.peer] < 0) {
            pod[p.peer] = pods;
            members.push_back(p.peer);
          }
      std::sort(members.begin(), members.end());
      add(fmt::format("pod {}", ++pods), members);
    }
    std::map<NodeId, std::vector<NodeId>> planes;
    for (NodeId s : sws) {
      if (tier_[s] != max_tier_) continue;
      NodeId low = kNoNode;
      for (const auto& p : t.ports(s))
        if (p.linked() && t.node(p.peer).is_switch()) low = std::min(low, p.peer);
      planes[low].push_back(s);
    }
    if (planes.size() <= kMaxGroups / 2) {
      int i = 0;
      for (auto& [low, members] : planes) add(fmt::format("spines {}", ++i), members);
    } else {
      std::vector<NodeId> spines;
      for (NodeId s : sws)
        if (tier_[s] == max_tier_) spines.push_back(s);
      chunks(spines, "spines", kMaxGroups / 2);
    }
  } else if (tree_) {
    for (int tier = 0; tier <= max_tier_; ++tier) {
      std::vector<NodeId> list;
      for (NodeId s : sws)
        if (tier_[s] == tier) list.push_back(s);
      chunks(list, tier == 0 ? "leaves" : "spines", kMaxGroups / 2);
    }
  } else {
    // Not a tree: pieces of a breadth-first order, so that neighbours share a piece.
    std::vector<NodeId> order;
    std::vector<bool> seen(t.node_count(), false);
    for (NodeId start : sws) {
      if (seen[start]) continue;
      seen[start] = true;
      order.push_back(start);
      for (size_t i = order.size() - 1; i < order.size(); ++i)
        for (const auto& p : t.ports(order[i]))
          if (p.linked() && t.node(p.peer).is_switch() && !seen[p.peer]) {
            seen[p.peer] = true;
            order.push_back(p.peer);
          }
    }
    chunks(order, "part", kMaxGroups);
  }
  for (NodeId ca : t.cas())
    for (const auto& p : t.ports(ca))
      if (p.linked() && t.node(p.peer).is_switch()) {
        group_[ca] = group_[p.peer];
        break;
      }
}

std::optional<std::pair<NodeId, uint8_t>> FabricIndex::by_lid(uint32_t lid) const {
  if (lid >= lid_owner_.size() || lid_owner_[lid].first == kNoNode) return std::nullopt;
  return lid_owner_[lid];
}

std::optional<NodeId> FabricIndex::resolve(std::string_view what) const {
  if (what.empty()) return std::nullopt;
  if (auto g = parse_guid(what); g && (what.starts_with("0x") || what.size() == 16)) {
    if (auto n = topo().find(mad::Guid(*g))) return n;
    if (auto n = topo().find_port(mad::Guid(*g))) return n;
  }
  uint32_t lid = 0;
  if (const auto [end, ec] = std::from_chars(what.data(), what.data() + what.size(), lid);
      ec == std::errc() && end == what.data() + what.size())
    if (auto o = by_lid(lid)) return o->first;
  for (NodeId id = 0; id < topo().node_count(); ++id)
    if (topo().node(id).description == what) return id;
  return std::nullopt;
}

const fabric::RoutingFigures* FabricIndex::routing_figures() const {
  const auto& tables = subnet_->tables;
  if (!tables) return nullptr;
  std::call_once(figures_once_, [&] {
    // The walk saw the ports before activation: the states the SM last read or set count.
    const Topology& t = topo();
    std::vector<fabric::Node> nodes(t.nodes().begin(), t.nodes().end());
    std::vector<fabric::Port> ports;
    for (NodeId id = 0; id < t.node_count(); ++id) {
      const sm::NodeRec* rec = subnet_->node(id);
      nodes[id].first_port = static_cast<uint32_t>(ports.size());
      for (fabric::Port p : t.ports(id)) {
        const uint8_t n = p.num.value();
        if (rec && n < rec->ports.size() && rec->ports[n].have_info &&
            rec->ports[n].info.port_state != mad::PortState::no_change)
          p.state = rec->ports[n].info.port_state;
        ports.push_back(p);
      }
    }
    const mad::Guid sm_guid = t.sm_node() == kNoNode ? mad::Guid() : t.node(t.sm_node()).guid;
    const Topology live = fabric::TopologyBuilder::from_sorted(std::move(nodes), std::move(ports), sm_guid, t.sm_port());
    std::vector<std::span<const uint8_t>> lfts(live.node_count());
    for (NodeId sw : live.switches())
      if (tables->has_table(sw)) lfts[sw] = tables->lft(sw);
    figures_ = fabric::measure_routing(live, lfts);
  });
  return &*figures_;
}

std::vector<NodeId> FabricIndex::search(std::string_view q, size_t max) const {
  std::vector<NodeId> out;
  if (q.empty() || max == 0) return out;
  if (auto exact = resolve(q)) out.push_back(*exact);
  const std::string needle = lower(q);
  for (NodeId id = 0; id < lower_desc_.size() && out.size() < max; ++id)
    if (lower_desc_[id].find(needle) != std::string::npos && (out.empty() || out.front() != id)) out.push_back(id);
  return out;
}

}  // namespace web
