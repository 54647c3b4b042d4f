// What the SA answers from: an index of the subnet a sweep that configured it published
// (sm/subnet.h), built once per such sweep (never a fabric walk per query). Node and PortInfo
// records for every end port (CA ports, switch port 0), lookups by LID and by port GUID, and
// PathRecords computed by walking the programmed LFTs from source to destination (MTU and rate
// are the smallest on the way). Records are kept encoded, so a query is a filter over bytes;
// the ones keyed by LID are reached directly. SwitchInfo, Link and GUIDInfo records come from
// the same subnet, LFTRecords from the tables it programmed (index_records.cpp), P_KeyTable
// records from its P_Key tables (pkey_records.cpp). The index keeps the subnet it was built
// from (immutable), so its paths walk exactly those tables.
#pragma once

#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "sm/qos_policy/match.h"
#include "sm/subnet.h"

namespace sm::sa {

struct Endport {
  NodeId node;
  PortNum port;  // CA port, or 0 for a switch
  Lid lid;       // base LID
  Guid guid;     // port GUID
  uint8_t lmc = 0;  // the port answers LIDs lid .. lid + 2^lmc - 1
  uint16_t lid_count() const { return static_cast<uint16_t>(1u << lmc); }
};

struct PathInfo {
  uint8_t mtu = 0;   // IBA MTU code, the smallest of every link on the way
  uint8_t rate = 0;  // IBA rate code, the slowest link
  unsigned hops = 0; // switch-to-switch and CA-to-switch links crossed
};

class Index {
 public:
  Index() = default;
  // The index of a subnet that a sweep configured (subnet->configured()). `packet_life`: the
  // SwitchInfo LifeTimeValue programmed (PacketLifeTime grows from it with the hops).
  static Index of(std::shared_ptr<const Subnet> subnet, uint8_t packet_life);

  bool empty() const { return endports_.empty(); }
  const std::vector<Endport>& endports() const { return endports_; }
  // Encoded records of one kind, and which of them a LID owns.
  struct Records {
    size_t size = 0;  // bytes per record (the attribute's size)
    std::vector<uint8_t> bytes;
    std::unordered_map<uint16_t, std::vector<uint32_t>> by_lid;
    size_t count() const { return size ? bytes.size() / size : 0; }
    std::span<const uint8_t> at(size_t i) const { return {bytes.data() + i * size, size}; }
    void add(Lid lid, std::span<const uint8_t> rec);
  };
  const Records& node_records() const { return node_records_; }
  const Records& port_records() const { return port_records_; }
  const Records& sm_info_records() const { return sm_info_records_; }
  const Records& switch_info_records() const { return switch_info_records_; }
  const Records& link_records() const { return link_records_; }        // by FromLID
  const Records& guid_info_records() const { return guid_info_records_; }
  // LFTRecords are made on demand from the programmed tables (every block of every switch
  // kept encoded would be 2,000 switches x 768 blocks x 72 bytes on the largest subnet).
  struct LftSwitch {
    Lid lid;
    NodeId node;
  };
  const std::vector<LftSwitch>& lft_switches() const { return lft_switches_; }  // by LID
  const LftSwitch* lft_switch(Lid lid) const;
  uint16_t lft_blocks() const;  // blocks per switch: 0 .. max LID / 64
  mad::LftRecord lft_record(const LftSwitch& sw, uint16_t block) const;
  const Records& pkey_records() const { return pkey_records_; }
  // The end port's P_Keys as sm/partitions/pkey_match.h matches them. A port whose table is
  // not known (the SM never read or wrote it) holds the default partition as a full member,
  // as every port does before an SM programs it.
  std::span<const uint16_t> pkeys(const Endport& e) const;
  // The end port owning `lid`: its base LID or any LID of its LMC range.
  const Endport* by_lid(Lid lid) const;
  const Endport* by_guid(Guid port_guid) const;
  // The path the LFTs give from `src` to `dst` (nullopt: not routed, a loop, or a dead link).
  // `dlid`: which of `dst`'s LIDs (its LMC range; each may be routed its own way).
  std::optional<PathInfo> path(const Endport& src, const Endport& dst) const { return path(src, dst, dst.lid); }
  std::optional<PathInfo> path(const Endport& src, const Endport& dst, Lid dlid) const;
  // The switches a packet from `src` to `dst`'s LID `dlid` crosses, in order (empty: no path).
  std::vector<NodeId> switches_on(const Endport& src, Lid dlid) const;
  uint8_t packet_life() const { return packet_life_; }
  // What a QoS policy's port groups test of an end port (sm/qos_policy/match.h).
  qos::PortFacts facts(const Endport& e) const;
  // The routing engine gave SLs of its own (VL layers): they, not a QoS policy's, answer.
  bool engine_sls() const { return tables_ && tables_->has_sls(); }
  // The SL of packets from `src` to `dst`: the routing's SL for the switch they enter the
  // fabric at (a CA's: the switch its port is cabled to; a switch's: itself) and `dst`'s
  // LID; 0 for tables without SLs (routing/tables.h).
  uint8_t sl(const Endport& src, const Endport& dst) const { return sl(src, dst.lid); }
  uint8_t sl(const Endport& src, Lid dlid) const;
  // The SL multicast rides with VL layers (sm/subnet.h); none: the group's own.
  std::optional<uint8_t> multicast_sl() const { return subnet_ ? subnet_->multicast_sl : std::nullopt; }

 private:
  // P_KeyTableRecords: every block of every end port's and switch port's P_Key table this SM
  // knows (sm/sa/pkey_records.cpp), and each end port's P_Keys from them.
  void add_pkey_tables();
  void add_pkey_records(Lid lid, PortNum port, const std::vector<uint16_t>& table, std::vector<uint8_t>& buf);
  std::shared_ptr<const Subnet> subnet_;
  const Topology* topo_ = nullptr;                  // the subnet's, kept alive by subnet_
  const routing::RoutingTables* tables_ = nullptr;  // likewise
  std::vector<Endport> endports_;
  std::unordered_map<uint16_t, size_t> by_lid_;
  std::unordered_map<Guid, size_t> by_guid_;
  Records node_records_, port_records_, sm_info_records_, pkey_records_;
  Records switch_info_records_, link_records_, guid_info_records_;
  std::vector<std::optional<std::vector<uint16_t>>> endport_pkeys_;  // by endport; nullopt: unknown
  std::vector<LftSwitch> lft_switches_;
  // SwitchInfo, Link, GUIDInfo records and the LFT switch list (index_records.cpp).
  void build_fabric_records();
  uint8_t packet_life_ = 18;
};

}  // namespace sm::sa
