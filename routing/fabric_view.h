// What the engines route over, extracted once from a Topology: the switches under dense
// indices (in NodeId order, hence GUID order), the usable switch-to-switch links as a CSR
// adjacency, the CA/router ports attached to switches, and every destination LID.
// A link is usable when both ends are in state Init or better; anything else is absent.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mad/error.h"
#include "fabric/topology.h"

namespace routing {

using SwIdx = uint32_t;  // dense switch index 0..switch_count()-1, in NodeId order
inline constexpr SwIdx kNoSw = UINT32_MAX;

// One direction of a usable switch-to-switch link.
struct Arc {
  SwIdx to;
  uint8_t port;       // output port on the switch the arc leaves
  uint8_t peer_port;  // input port on `to`
};

// A CA or router port cabled to a switch over a usable link.
struct Endpoint {
  fabric::NodeId node;
  mad::PortNum port;
  SwIdx sw;         // the switch it hangs off
  uint8_t sw_port;  // that switch's port
  mad::Lid lid;     // base LID (0 = none assigned)
  uint8_t lmc;
};

// One destination LID: one of a port's 2^LMC LIDs.
struct Dest {
  mad::Lid lid;
  SwIdx sw;           // the switch that delivers it
  uint8_t out;        // that switch's port toward it (0 = the switch itself)
  uint8_t path;       // index within the port's 2^LMC LIDs (0 = base LID)
  uint8_t lmc;        // the port's LMC
  fabric::NodeId node;    // owner of the LID
  mad::PortNum node_port;
};

class FabricView {
 public:
  // Fails (Errc::conflict) when two live ports claim overlapping LID ranges.
  static mad::Result<FabricView> build(const fabric::Topology& topo);

  const fabric::Topology& topo() const { return *topo_; }
  size_t switch_count() const { return sw_node_.size(); }
  fabric::NodeId node_of(SwIdx s) const { return sw_node_[s]; }
  SwIdx index_of(fabric::NodeId n) const { return n < sw_index_.size() ? sw_index_[n] : kNoSw; }
  std::span<const Arc> arcs(SwIdx s) const {
    return {arcs_.data() + arc_begin_[s], arc_begin_[s + 1] - arc_begin_[s]};
  }
  // Index of arcs(s)[0] in the flat arc array (arc ids are stable: arc_base(s) + k).
  uint32_t arc_base(SwIdx s) const { return arc_begin_[s]; }
  size_t arc_count() const { return arcs_.size(); }
  // The switch behind port p of s, kNoSw when p is not a usable switch link.
  SwIdx peer(SwIdx s, uint8_t p) const {
    const size_t n = port_begin_[s + 1] - port_begin_[s];
    return p < n ? port_peer_[port_begin_[s] + p] : kNoSw;
  }
  // A dense index for (switch, port) pairs, for per-port arrays: 0..port_slots()-1.
  uint32_t port_slot(SwIdx s, uint8_t p) const { return port_begin_[s] + p; }
  size_t port_slots() const { return port_peer_.size(); }
  uint8_t port_count(SwIdx s) const {  // the highest port number (ports are 0..port_count)
    return static_cast<uint8_t>(port_begin_[s + 1] - port_begin_[s] - 1);
  }

  // Endpoints in (switch index, switch port) order: the "leaf order" of ftree.
  std::span<const Endpoint> endpoints() const { return endpoints_; }
  std::span<const Endpoint> endpoints_at(SwIdx s) const {
    return {endpoints_.data() + ep_begin_[s], ep_begin_[s + 1] - ep_begin_[s]};
  }
  // Every routable LID, in LID order.
  std::span<const Dest> dests() const { return dests_; }
  mad::Lid max_lid() const { return max_lid_; }

 private:
  const fabric::Topology* topo_ = nullptr;
  std::vector<fabric::NodeId> sw_node_;
  std::vector<SwIdx> sw_index_;
  std::vector<uint32_t> arc_begin_;
  std::vector<Arc> arcs_;
  std::vector<uint32_t> port_begin_;
  std::vector<SwIdx> port_peer_;
  std::vector<Endpoint> endpoints_;
  std::vector<uint32_t> ep_begin_;
  std::vector<Dest> dests_;
  mad::Lid max_lid_;
};

// Every arc's ends as flat arrays, for the engines that route over channels (arc ids): the
// switch it leaves, the one it enters, and the arc back over the same cable.
struct ArcEnds {
  std::vector<SwIdx> tail, head;
  std::vector<uint32_t> rev;
};
ArcEnds arc_ends(const FabricView& fv);

}  // namespace routing
