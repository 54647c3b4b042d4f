#include "sim/traffic/net.h"

#include <algorithm>

#include "fabric/data_rate.h"
#include "sim/as_topology.h"

namespace sim::traffic {

double link_gbps(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active) {
  return fabric::data_gbps(width_active, speed_active, speed_ext_active);  // what the PerfMgr measures against
}

namespace {

// A link's capacity: the slower end's rate (both ends train to the same; a test may lower one).
// A link whose rate is not known counts as one lane of SDR rather than as nothing.
double capacity(const fabric::Port& a, const fabric::Port& b) {
  const double ra = link_gbps(a.width_active, a.speed_active, a.speed_ext_active);
  const double rb = link_gbps(b.width_active, b.speed_active, b.speed_ext_active);
  const double r = ra > 0 && rb > 0 ? std::min(ra, rb) : std::max(ra, rb);
  return r > 0 ? r : 2.0;
}

// splitmix64's finaliser: a hash for ties.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

Net Net::from_wiring(const fabric::Topology& topo, const fabric::Wiring& w,
                     std::span<const fabric::ArTable* const> adaptive, std::span<const uint32_t> ref) {
  Net n;
  const size_t S = w.node_of.size();
  n.names_.resize(ref.empty() ? topo.node_count() : *std::max_element(ref.begin(), ref.end()) + size_t{1});
  for (fabric::NodeId id = 0; id < topo.node_count(); ++id)
    n.names_[ref.empty() ? id : ref[id]] = topo.node(id).description;
  auto r = [&](fabric::NodeId id) { return ref.empty() ? id : ref[id]; };
  for (const fabric::WiredLink& l : w.links) {
    const fabric::Port& a = topo.port(l.from, l.from_port);
    n.channels_.push_back(Channel{r(l.from), r(l.to), l.from_port.value(), l.to_port.value(),
                                  capacity(a, topo.port(l.to, l.to_port))});
  }
  for (const fabric::WiredCa& c : w.cas) {
    const fabric::NodeId leaf = w.node_of[c.leaf];
    const fabric::Port& cp = topo.port(c.node, c.port);
    const double gbps = capacity(cp, topo.port(cp.peer, cp.peer_port));
    const ChannelId up = static_cast<ChannelId>(n.channels_.size());
    n.channels_.push_back(Channel{r(c.node), r(leaf), c.port.value(), cp.peer_port.value(), gbps});
    n.channels_.push_back(Channel{r(leaf), r(c.node), cp.peer_port.value(), c.port.value(), gbps});
    n.cas_.push_back(CaEnd{r(c.node), c.port.value(), c.lid.value(), c.leaf, up, up + 1});
  }
  n.hop_base_.reserve(S);
  n.hops_.reserve(w.slots.size());
  for (uint32_t s = 0; s < S; ++s) {
    n.hop_base_.push_back(static_cast<uint32_t>(n.hops_.size()));
    n.port_count_.push_back(w.port_count[s]);
    n.lft_.push_back(w.lft[s]);
    const fabric::NodeId id = w.node_of[s];
    const fabric::ArTable* ar = id < adaptive.size() ? adaptive[id] : nullptr;
    n.ar_.push_back(ar);
    n.adaptive_count_ += ar ? 1 : 0;
    for (uint32_t k = 0; k <= w.port_count[s]; ++k) {
      const fabric::Slot& sl = w.slots[w.slot_base[s] + k];
      Hop h;
      h.usable = sl.usable;
      h.to = sl.to;
      h.ca = sl.ca_index;
      h.channel = sl.link != fabric::kNoWire ? sl.link
                  : sl.ca_index != fabric::kNoWire ? n.cas_[sl.ca_index].down
                                                   : kNoChannel;
      n.hops_.push_back(h);
    }
  }
  return n;
}

Net Net::build(const fabric::Topology& topo, std::span<const std::span<const uint8_t>> lfts,
               std::span<const fabric::ArTable* const> adaptive) {
  return from_wiring(topo, fabric::wire(topo, lfts), adaptive, {});
}

Net Net::of(const SimFabric& f, bool adaptive_all) {
  const AsTopology t = as_topology(f);
  std::vector<const fabric::ArTable*> ar(t.topo.node_count(), nullptr);
  for (fabric::NodeId id : t.topo.switches()) {
    const SimSwitch& sw = *f.node(t.sim_node[id]).sw;
    if ((sw.adaptive || adaptive_all) && !sw.ar.empty()) ar[id] = &sw.ar;
  }
  Net n = from_wiring(t.topo, fabric::wire(t.topo, t.lfts), ar, t.sim_node);
  n.names_.resize(f.nodes().size());  // removed nodes too: references are the fabric's indices
  for (size_t i = 0; i < f.nodes().size(); ++i) n.names_[i] = f.node(static_cast<NodeIdx>(i)).name;
  return n;
}

std::vector<uint32_t> Net::find_cas(std::string_view name) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < cas_.size(); ++i)
    if (names_[cas_[i].node] == name) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) { return cas_[a].port < cas_[b].port; });
  return out;
}

uint8_t Net::choose(uint32_t s, uint16_t lid, std::span<const double> load, uint64_t salt) const {
  const uint8_t lft_port = lid < lft_[s].size() ? lft_[s][lid] : 0xFF;
  const fabric::ArTable* ar = ar_[s];
  if (!ar || load.empty()) return lft_port;
  const std::span<const uint8_t> group = ar->ports(lid);
  if (group.size() < 2) return lft_port;
  // The least loaded usable channel (load relative to capacity); among equals the LFT's port,
  // else the one a seeded hash of (salt, switch) picks.
  double best = 0;
  uint8_t pick = 0;
  uint64_t pick_key = 0;
  for (uint8_t p : group) {
    if (p < 1 || p > port_count_[s]) continue;
    const Hop& h = hops_[hop_base_[s] + p];
    if (!h.usable || h.channel == kNoChannel) continue;
    const double l = load[h.channel] / channels_[h.channel].gbps;
    const uint64_t key = p == lft_port ? 0 : 1 + (mix(salt ^ (uint64_t{s} << 20) ^ p) >> 1);
    if (pick == 0 || l < best - 1e-12 || (l <= best + 1e-12 && key < pick_key)) {
      best = l;
      pick = p;
      pick_key = key;
    }
  }
  return pick ? pick : lft_port;
}

struct Net::Search {
  uint32_t dst;
  uint16_t lid;
  std::span<const double> load;
  uint64_t salt;
  std::vector<ChannelId> cur, best;
  double best_worst = 0, best_sum = 0;
  bool found = false;
  size_t budget = 1u << 14;  // switches visited; then only the first alternative of each
  unsigned fanout = 4;
  std::vector<uint8_t> order;
};

// Depth-first over the alternatives, the LFT's port first and a few others from a seeded
// place in the group, keeping the first path of the least (busiest channel, total load).
void Net::search(Search& q, uint32_t s, double worst, double sum, int depth) const {
  if (depth >= 64) return;  // a loop among the alternatives: no route this way
  if (q.budget) --q.budget;
  const uint8_t lft_port = q.lid < lft_[s].size() ? lft_[s][q.lid] : 0xFF;
  const std::span<const uint8_t> group = ar_[s] ? ar_[s]->ports(q.lid) : std::span<const uint8_t>{};
  const size_t base = q.order.size();
  q.order.push_back(lft_port);
  if (group.size() >= 2) {  // then fanout - 1 others, from a seeded place in the group on
    const size_t n = group.size();
    const size_t start = mix(q.salt ^ (uint64_t{s} << 20)) % n;
    for (size_t k = 0; k < n && q.order.size() - base < std::max(1u, q.fanout); ++k) {
      const uint8_t p = group[(start + k) % n];
      if (p != lft_port) q.order.push_back(p);
    }
  }
  const size_t end = q.order.size();
  for (size_t k = base; k < end; ++k) {
    const uint8_t p = q.order[k];
    if (p < 1 || p > port_count_[s]) continue;
    const Hop& h = hops_[hop_base_[s] + p];
    if (!h.usable || h.channel == kNoChannel) continue;
    const double l = q.load[h.channel] / channels_[h.channel].gbps;
    const double w = std::max(worst, l), sm = sum + l;
    if (q.found && (w > q.best_worst + 1e-12 || (w >= q.best_worst - 1e-12 && sm >= q.best_sum - 1e-12))) continue;
    q.cur.push_back(h.channel);
    if (h.ca != fabric::kNoWire) {
      if (h.ca == q.dst) {
        q.found = true;
        q.best_worst = w;
        q.best_sum = sm;
        q.best = q.cur;
      }
    } else {
      search(q, h.to, w, sm, depth + 1);
    }
    q.cur.pop_back();
    if (q.budget == 0 && q.found) break;
  }
  q.order.resize(base);
}

bool Net::route_lookahead(uint32_t src, uint32_t dst, std::vector<ChannelId>& path, std::span<const double> load,
                          uint64_t salt, unsigned fanout) const {
  thread_local Search q;
  q.fanout = fanout;
  q.dst = dst;
  q.lid = cas_[dst].lid;
  q.load = load;
  q.salt = salt;
  q.cur.clear();
  q.found = false;
  q.budget = 1u << 14;
  const ChannelId up = cas_[src].up;
  const double l = load[up] / channels_[up].gbps;
  search(q, cas_[src].leaf, l, l, 0);
  if (!q.found) return false;
  path.push_back(up);
  path.insert(path.end(), q.best.begin(), q.best.end());
  return true;
}

bool Net::route(uint32_t src, uint32_t dst, std::vector<ChannelId>& path, std::span<const double> load,
                uint64_t salt, Choice choice, unsigned fanout) const {
  const size_t mark = path.size();
  const CaEnd& d = cas_[dst];
  if (d.lid == 0 || src == dst) return false;
  if (choice == Choice::path && !load.empty() && adaptive_count_ > 0) return route_lookahead(src, dst, path, load, salt, fanout);
  path.push_back(cas_[src].up);
  uint32_t s = cas_[src].leaf;
  for (int guard = 0; guard < 64; ++guard) {
    const uint8_t p = choose(s, d.lid, load, salt);
    if (p < 1 || p > port_count_[s]) break;
    const Hop& h = hops_[hop_base_[s] + p];
    if (!h.usable || h.channel == kNoChannel) break;
    if (h.ca != fabric::kNoWire) {
      if (h.ca != dst) break;  // another port's LID range would not own it: dropped
      path.push_back(h.channel);
      return true;
    }
    path.push_back(h.channel);
    s = h.to;
  }
  path.resize(mark);
  return false;
}

}  // namespace sim::traffic
