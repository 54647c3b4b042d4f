// The fabric as the traffic model sees it: directed channels (every up switch-to-switch link
// each way, and each CA's link both ways: injection and ejection) with their capacity from the
// link's width x speed, the CA ports in leaf order, and routes of flows walked through the
// switches' own LFTs (fabric/wiring.h, the routing metrics' walker). An adaptive switch takes
// one port of its AR group for the destination by the load of the flows placed before:
//  - local: the port whose own channel is least loaded;
//  - path (the default): the port whose way on to the destination is least congested, as
//    credit back-pressure shows it at the choosing switch (a full link downstream fills the
//    queues behind it): the paths through the LFT's port and a few others of the group
//    compared by their busiest channel, then by their total load; later adaptive switches on
//    the way choose the same way.
// Ties go to the LFT's port, then to a seeded hash, so placement is deterministic.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fabric/ar_table.h"
#include "fabric/topology.h"
#include "fabric/wiring.h"
#include "sim/fabric.h"

namespace sim::traffic {

using ChannelId = uint32_t;
inline constexpr ChannelId kNoChannel = UINT32_MAX;

// Data rate of a link in Gb/s from PortInfo's LinkWidthActive and LinkSpeed(Ext)Active
// (lanes x per-lane data rate); 0 when either is unknown.
double link_gbps(uint8_t width_active, uint8_t speed_active, uint8_t speed_ext_active);

struct Channel {
  uint32_t from, to;  // node references (see Net::node_name): sim NodeIdx, or the NodeId
  uint8_t from_port, to_port;
  double gbps;
};

struct CaEnd {
  uint32_t node;  // node reference
  uint8_t port;
  uint16_t lid;
  uint32_t leaf;  // its switch (wiring index)
  ChannelId up, down;  // CA -> leaf, leaf -> CA
};

class Net {
 public:
  // Over a topology and its switches' LFTs (borrowed: they must outlive the Net). `adaptive`
  // (optional, by NodeId, borrowed): the AR table of each switch that routes adaptively, null
  // for a static one. Node references are the NodeIds.
  static Net build(const fabric::Topology& topo, std::span<const std::span<const uint8_t>> lfts,
                   std::span<const fabric::ArTable* const> adaptive = {});
  // Over the simulated fabric as it is now (its present nodes, live links, LFTs and the AR
  // tables of switches with adaptive on; `adaptive_all` makes every switch that has an AR
  // table adaptive). Node references are the fabric's NodeIdx. Borrows the fabric's LFTs and
  // AR tables: change neither while the Net is in use.
  static Net of(const SimFabric& f, bool adaptive_all = false);

  std::span<const CaEnd> cas() const { return cas_; }
  std::span<const Channel> channels() const { return channels_; }
  const std::string& node_name(uint32_t ref) const { return names_[ref]; }
  size_t adaptive_switches() const { return adaptive_count_; }
  // The CA ports of a node by name (several for a multi-port CA), in port order.
  std::vector<uint32_t> find_cas(std::string_view name) const;

  // Appends the channels of the route from CA `src` to CA `dst` to `path`; false (and `path`
  // as it was) when the walk is dropped or loops. `load` (by channel, optional with static
  // switches) is what adaptive switches compare; `salt` breaks their ties deterministically.
  enum class Choice : uint8_t { path, local };
  // With Choice::path an adaptive switch weighs its LFT's port and `fanout` - 1 others of the
  // group (in an order seeded by `salt`, so each flow sees its own few), as hardware samples a
  // few queues rather than all: radix-32 trees have 256 ways up and down.
  bool route(uint32_t src, uint32_t dst, std::vector<ChannelId>& path, std::span<const double> load = {},
             uint64_t salt = 0, Choice choice = Choice::path, unsigned fanout = 4) const;
  bool has_adaptive() const { return adaptive_count_ > 0; }

 private:
  struct Hop {  // a switch port as the walk needs it
    uint32_t to = fabric::kNoWire;    // next switch, or kNoWire
    uint32_t ca = fabric::kNoWire;    // or the CA it leads to
    ChannelId channel = kNoChannel;   // the channel out of it
    bool usable = false;
  };
  static Net from_wiring(const fabric::Topology& topo, const fabric::Wiring& w,
                         std::span<const fabric::ArTable* const> adaptive, std::span<const uint32_t> ref);
  uint8_t choose(uint32_t s, uint16_t lid, std::span<const double> load, uint64_t salt) const;
  struct Search;
  void search(Search& q, uint32_t s, double worst, double sum, int depth) const;
  bool route_lookahead(uint32_t src, uint32_t dst, std::vector<ChannelId>& path, std::span<const double> load,
                       uint64_t salt, unsigned fanout) const;

  std::vector<uint32_t> hop_base_;  // switch -> index of its port 0 in hops_
  std::vector<uint8_t> port_count_;
  std::vector<Hop> hops_;
  std::vector<std::span<const uint8_t>> lft_;  // switch -> LFT
  std::vector<const fabric::ArTable*> ar_;             // switch -> AR table, null: static
  std::vector<Channel> channels_;
  std::vector<CaEnd> cas_;
  std::vector<std::string> names_;  // by node reference
  size_t adaptive_count_ = 0;
};

}  // namespace sim::traffic
