#include "fabric/vl_cdg.h"

#include <algorithm>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "fabric/wiring.h"

namespace fabric {

namespace {

// The graph is acyclic iff a depth-first search meets no back edge.
struct VlBackEdge : boost::default_dfs_visitor {
  bool* found;
  explicit VlBackEdge(bool* f) : found(f) {}
  template <class E, class G>
  void back_edge(E, const G&) { *found = true; }
};

bool acyclic(size_t nodes, const std::vector<std::pair<uint32_t, uint32_t>>& sorted_edges) {
  using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
  Graph g(boost::edges_are_sorted, sorted_edges.begin(), sorted_edges.end(), nodes);
  bool cycle = false;
  boost::depth_first_search(g, boost::visitor(VlBackEdge(&cycle)));
  return !cycle;
}

// Walk results of a state (link, SL, VL) for one LID.
constexpr uint8_t kOpen = 0, kWalking = 1, kArrives = 2, kDrops = 3, kFails = 4;

}  // namespace

VlCdgReport measure_vl_cdg(const Topology& topo, std::span<const std::span<const uint8_t>> lfts, const VlRules& rules) {
  VlCdgReport r;
  const Wiring w = wire(topo, lfts);
  const size_t L = w.links.size();
  // Channel (link, VL) = link * 16 + VL; a walk's state adds the SL: channel * 16 + SL.
  std::vector<uint8_t> state(L * 256, kOpen);
  std::vector<uint32_t> touched, stack;
  std::vector<uint64_t> edges;  // from << 32 | to, deduplicated now and then
  std::vector<uint8_t> used(L * 16, 0);
  auto compact = [&] {
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  };
  // Where a packet of `sl` goes after arriving at switch `s` by `in`: the next state, or a result.
  struct Step {
    uint8_t result = kOpen;
    uint32_t next = 0;  // state when result is kOpen
  };
  auto step = [&](uint32_t s, uint8_t in, uint8_t sl, uint16_t lid) -> Step {
    const uint8_t p = w.out(s, lid);
    const Slot* slot = w.slot(s, p);
    if (!slot || !slot->usable) return {kFails, 0};
    if (slot->to == kNoWire) return {Wiring::owns(*slot, lid) ? kArrives : kFails, 0};
    const NodeId node = w.node_of[s];
    const uint8_t vl = rules.vl(node, PortNum(in), PortNum(p), sl);
    const unsigned op = rules.operational_vls ? rules.operational_vls(node, PortNum(p)) : 15u;
    if (vl >= 15 || vl >= op) return {kDrops, 0};
    return {kOpen, ((slot->link * 16u + vl) * 16u) + sl};
  };
  for (const WiredCa& d : w.cas) {
    if (d.lid.value() == 0) continue;
    for (uint32_t k = 0; k < (1u << d.lmc) && d.lid.value() + k <= Lid::kMaxUnicast; ++k) {
      const uint16_t lid = static_cast<uint16_t>(d.lid.value() + k);
      for (uint32_t t : touched) state[t] = kOpen;
      touched.clear();
      for (const WiredCa& c : w.cas) {
        if (&c == &d) continue;
        const uint8_t sl = rules.sl(w.node_of[c.leaf], lid);
        const uint8_t in = static_cast<uint8_t>(c.slot - w.slot_base[c.leaf]);
        Step st = step(c.leaf, in, sl, lid);
        stack.clear();
        uint8_t res = st.result;
        while (res == kOpen) {
          const uint32_t cur = st.next;
          if (state[cur] != kOpen) {
            res = state[cur] == kWalking ? kFails : state[cur];
            break;
          }
          state[cur] = kWalking;
          touched.push_back(cur);
          stack.push_back(cur);
          const uint32_t channel = cur / 16, link = channel / 16;
          used[channel] = 1;
          st = step(w.link_to[link], w.links[link].to_port.value(), sl, lid);
          if (st.result == kOpen) edges.push_back((uint64_t{channel} << 32) | (st.next / 16));
          res = st.result;
          if (res == kOpen) continue;
        }
        if (res == kDrops) ++r.dropped;
        for (uint32_t s : stack) state[s] = res;
      }
      if (edges.size() > (1u << 22)) compact();
    }
  }
  compact();
  std::vector<std::pair<uint32_t, uint32_t>> all;
  all.reserve(edges.size());
  for (uint64_t e : edges) all.emplace_back(static_cast<uint32_t>(e >> 32), static_cast<uint32_t>(e));
  r.edges = all.size();
  r.acyclic = acyclic(L * 16, all);
  for (unsigned vl = 0; vl < 16; ++vl) {
    VlChannelFigures f;
    f.vl = static_cast<uint8_t>(vl);
    for (size_t l = 0; l < L; ++l) f.channels += used[l * 16 + vl];
    if (f.channels == 0) continue;
    std::vector<std::pair<uint32_t, uint32_t>> own;
    for (const auto& [a, b] : all)
      if (a % 16 == vl && b % 16 == vl) own.emplace_back(a, b);
    f.edges = own.size();
    f.acyclic = acyclic(L * 16, own);
    r.vls.push_back(f);
  }
  for (const auto& [a, b] : all) r.cross_vl_edges += a % 16 != b % 16;
  return r;
}

}  // namespace fabric
