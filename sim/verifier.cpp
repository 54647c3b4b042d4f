#include "sim/verifier.h"

#include <fmt/format.h>

#include <algorithm>

namespace sim {

namespace {

struct CaPort {
  NodeIdx node;
  uint8_t port;
  NodeIdx leaf;  // the switch (or CA, back to back) at the other end
};

// Per-destination walk state, stamped with the destination index so nothing is cleared
// between destinations.
struct Walk {
  std::vector<uint32_t> stamp;
  std::vector<int16_t> hops;  // >= 0: links to the destination; kFail / kLoop / kBusy
  static constexpr int16_t kFail = -1, kLoop = -2, kBusy = -3;
};

bool lid_forwardable(const SimNode& sw, uint16_t lid, uint8_t& out) {
  const SimSwitch& s = *sw.sw;
  if (lid > s.lft_top || lid >= s.lft.size()) return false;
  out = s.lft[lid];
  return out >= 1 && out <= sw.num_ports;
}

}  // namespace

VerifyReport verify_routing(const SimFabric& fabric, const VerifyOptions& opts) {
  VerifyReport r;
  const auto nodes = fabric.nodes();
  std::vector<CaPort> cas;
  std::vector<uint32_t> sources_at(nodes.size(), 0);  // CA ports hanging off each node
  std::vector<uint32_t> lid_owners(static_cast<size_t>(mad::Lid::kMaxUnicast) + 1, 0);
  for (NodeIdx i = 0; i < nodes.size(); ++i) {
    const SimNode& n = nodes[i];
    if (!n.present) continue;
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      const SimPort& sp = n.ports[p];
      if (sp.link_up() && i < sp.peer &&
          (sp.state != mad::PortState::active ||
           nodes[sp.peer].ports[sp.peer_port].state != mad::PortState::active))
        r.ports_not_active += 2;
      if (n.is_switch() || !sp.link_up()) continue;
      cas.push_back(CaPort{i, p, sp.peer});
      ++sources_at[sp.peer];
      if (sp.lid != 0)
        for (uint32_t l = sp.lid; l < sp.lid + (1u << sp.lmc) && l < lid_owners.size(); ++l)
          ++lid_owners[l];
    }
    if (n.is_switch() && n.ports[0].lid != 0 && n.ports[0].lid < lid_owners.size())
      ++lid_owners[n.ports[0].lid];
  }
  for (uint32_t c : lid_owners) r.duplicate_lids += c > 1 ? 1 : 0;
  r.ca_ports = cas.size();
  struct Leaf {
    NodeIdx node;
    uint64_t sources;
  };
  std::vector<Leaf> leaves;
  std::vector<CaPort> direct;  // CA ports cabled to another CA
  for (NodeIdx i = 0; i < nodes.size(); ++i)
    if (sources_at[i] && nodes[i].is_switch()) leaves.push_back(Leaf{i, sources_at[i]});
  for (const CaPort& c : cas)
    if (!nodes[c.leaf].is_switch()) direct.push_back(c);
  r.pairs = cas.size() * (cas.size() ? cas.size() - 1 : 0);

  auto sample = [&](std::string s) {
    if (r.samples.size() < opts.max_samples) r.samples.push_back(std::move(s));
  };

  Walk w;
  w.stamp.assign(nodes.size(), UINT32_MAX);
  w.hops.assign(nodes.size(), 0);
  std::vector<NodeIdx> stack;
  long double hop_sum = 0;

  for (uint32_t d = 0; d < cas.size(); ++d) {
    const CaPort& dst = cas[d];
    const SimPort& dp = nodes[dst.node].ports[dst.port];
    if (dp.lid == 0) {
      ++r.no_lid;
      r.unrouted += cas.size() - 1;
      sample(fmt::format("\"{}\"[{}] has no LID", nodes[dst.node].name, dst.port));
      continue;
    }
    const uint16_t lid = dp.lid;
    // Resolves the walk from switch s toward `lid`, memoising every switch passed.
    auto resolve = [&](NodeIdx s) -> int16_t {
      NodeIdx cur = s;
      int16_t result = Walk::kFail;
      stack.clear();
      while (true) {
        if (w.stamp[cur] == d) {
          result = w.hops[cur] == Walk::kBusy ? Walk::kLoop : w.hops[cur];
          break;
        }
        const SimNode& n = nodes[cur];
        w.stamp[cur] = d;
        w.hops[cur] = Walk::kBusy;
        stack.push_back(cur);
        uint8_t out = 0;
        if (!n.present || !lid_forwardable(n, lid, out)) { result = Walk::kFail; break; }
        const SimPort& sp = n.ports[out];
        if (!sp.link_up() || sp.state != mad::PortState::active ||
            nodes[sp.peer].ports[sp.peer_port].state != mad::PortState::active) {
          result = Walk::kFail;
          break;
        }
        const SimNode& next = nodes[sp.peer];
        if (!next.is_switch()) {
          const SimPort& np = next.ports[sp.peer_port];
          const bool owns = np.lid != 0 && lid >= np.lid && lid < np.lid + (1u << np.lmc);
          result = owns ? 0 : Walk::kFail;
          break;
        }
        cur = sp.peer;
      }
      // Unwind: each switch on the stack is one link further than the one after it.
      for (size_t k = stack.size(); k-- > 0;) {
        if (result >= 0) ++result;
        w.hops[stack[k]] = result;
      }
      return w.hops[s];
    };

    // Sources are counted per leaf: every CA port on a leaf shares the leaf's walk.
    for (const Leaf& leaf : leaves) {
      uint64_t count = leaf.sources;
      if (leaf.node == dst.leaf) --count;  // not to itself
      if (count == 0) continue;
      int16_t h = w.stamp[leaf.node] == d ? w.hops[leaf.node] : resolve(leaf.node);
      if (h >= 0) {
        const uint32_t links = static_cast<uint32_t>(h) + 1;
        r.routed += count;
        hop_sum += static_cast<long double>(links) * static_cast<long double>(count);
        r.max_hops = std::max(r.max_hops, links);
        if (r.hop_histogram.size() <= links) r.hop_histogram.resize(links + 1, 0);
        r.hop_histogram[links] += count;
      } else {
        (h == Walk::kLoop ? r.loops : r.unrouted) += count;
        sample(fmt::format("{} CA port(s) behind {} -> {} (LID {}): {}", count,
                           nodes[leaf.node].name, nodes[dst.node].name, lid,
                           h == Walk::kLoop ? "loop" : "dropped"));
      }
    }
    // CAs cabled back to back reach only each other.
    for (const CaPort& src : direct) {
      if (src.node == dst.node && src.port == dst.port) continue;
      if (src.leaf == dst.node && nodes[src.node].ports[src.port].peer_port == dst.port) {
        ++r.routed;
        hop_sum += 1;
        r.max_hops = std::max(r.max_hops, 1u);
        if (r.hop_histogram.size() <= 1) r.hop_histogram.resize(2, 0);
        ++r.hop_histogram[1];
      } else {
        ++r.unrouted;
      }
    }
  }
  r.mean_hops = r.routed ? static_cast<double>(hop_sum / static_cast<long double>(r.routed)) : 0.0;
  return r;
}

}  // namespace sim
