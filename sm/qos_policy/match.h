// Which QoS level a PathRecord query gets (OpenSM's semantics): the first rule, in file order
// with the qos-ulps rules last, whose every criterion the query meets; none: the DEFAULT level.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "sm/qos_policy/policy.h"

namespace sm::qos {

// What a port group may test of a port.
struct PortFacts {
  mad::Guid guid;  // port GUID
  mad::NodeType type = mad::NodeType::ca;
  std::string_view node_desc;
  unsigned port = 0;  // the port's number on its node (0: a switch's port 0)
  bool self = false;  // the SM's own port
  std::span<const uint16_t> pkeys;  // the port's P_Keys (the membership bit ignored)
};

bool member(const PortGroup& g, const PortFacts& port);

// The query's fields; nullopt: the requester did not give it (ComponentMask bit clear).
struct Query {
  std::optional<uint64_t> service_id;
  std::optional<uint16_t> pkey;
  std::optional<uint16_t> qos_class;
  const PortFacts* source = nullptr;  // null: not known
  const PortFacts* destination = nullptr;
};

bool matches(const Policy& policy, const Rule& rule, const Query& q);
// The level of the first rule the query matches, else the DEFAULT level.
const Level& level_for(const Policy& policy, const Query& q);

}  // namespace sm::qos
