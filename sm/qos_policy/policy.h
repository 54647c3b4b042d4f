// A QoS policy: what OpenSM's qos-policy.conf says (OpenSM's doc/QoS_management_in_OpenSM.txt;
// README "QoS policy"), resolved: port groups, QoS levels, match rules in file order, and the
// qos-ulps rules after them. The SA matches each PathRecord query against the rules (match.h)
// and answers the level's SL and limits. Read by parse.h; every name a rule refers to exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mad/types.h"

namespace sm::qos {

// An inclusive range of numbers; a list of them is a set ("0x1, 0x5-0x9").
struct Range {
  uint64_t lo = 0, hi = 0;
  bool contains(uint64_t v) const { return lo <= v && v <= hi; }
  bool operator==(const Range&) const = default;
};
using Ranges = std::vector<Range>;
bool in(const Ranges& set, uint64_t v);

enum class NodeKind : uint8_t { ca, sw, router, all, self };

// A port named as OpenSM's port-name does: "node description/Pport".
struct PortName {
  std::string node_desc;
  unsigned port = 0;
  bool operator==(const PortName&) const = default;
};

// The ports a group holds: any port that any of its entries names.
struct PortGroup {
  std::string name;
  std::string use;  // a description, for the log
  Ranges guids;
  std::vector<PortName> names;
  std::vector<NodeKind> kinds;
  Ranges pkeys;                         // 15 bits: ports holding one of these P_Keys
  std::vector<std::string> partitions;  // partition names, resolved to `pkeys` by resolve_partitions
  std::vector<unsigned> partition_lines;  // where each was named, for errors
  bool operator==(const PortGroup&) const = default;
};

// What a matching query gets: the SL, and limits the path must keep where the level sets them.
struct Level {
  std::string name;
  std::string use;
  uint8_t sl = 0;
  std::optional<uint8_t> mtu_limit;    // IBA MTU code, 1-5
  std::optional<uint8_t> rate_limit;   // IBA rate code
  std::optional<uint8_t> packet_life;  // PacketLifeTime, 0-63
  Ranges pkeys;                        // 15 bits; empty: any
  bool operator==(const Level&) const = default;
};

// A rule matches a query that gives every field the rule names and matches each (OpenSM: a
// query without a Service ID never matches a rule that names Service IDs). Source and
// destination: the port is in one of the groups.
struct Rule {
  std::string use;
  Ranges qos_classes;
  std::vector<size_t> sources, destinations;  // indexes into Policy::groups
  Ranges service_ids;
  Ranges pkeys;  // 15 bits
  size_t level = 0;  // index into Policy::levels
  unsigned line = 0;  // where the rule starts, for the log
  bool operator==(const Rule&) const = default;
};

struct Policy {
  std::vector<PortGroup> groups;
  std::vector<Level> levels;
  std::vector<Rule> rules;  // qos-match-rules, then the qos-ulps rules, in file order
  size_t default_level = 0;  // the level named DEFAULT (or qos-ulps' `default`)
  bool operator==(const Policy&) const = default;
};

}  // namespace sm::qos
