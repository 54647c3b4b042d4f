// Reads a QoS policy file in a subset of OpenSM's qos-policy.conf syntax (README "QoS policy"):
//
//   port-groups
//     port-group
//       name: Storage
//       port-guid: 0x0002c90300000001, 0x0002c90300000010-0x0002c9030000001f
//       port-name: stor1 HCA-1/P1
//       node-type: CA, SELF
//       partition: storage
//     end-port-group
//   end-port-groups
//   qos-levels
//     qos-level
//       name: DEFAULT
//       sl: 0
//     end-qos-level
//   end-qos-levels
//   qos-match-rules
//     qos-match-rule
//       destination: Storage
//       service-id: 0x10000-0x1ffff
//       qos-level-name: DEFAULT
//     end-qos-match-rule
//   end-qos-match-rules
//   qos-ulps
//     default : 0
//     any, service-id 0x6234 : 6
//   end-qos-ulps
//
// One keyword a line, '#' comments. Stricter than OpenSM: an unknown keyword, a bad value, a
// name referred to but not defined, or a missing DEFAULT level is an error naming the file and
// line ("qos-policy.conf:12: ..."), never a warning; qos-setup is skipped as OpenSM does.
#pragma once

#include <string>
#include <string_view>

#include "mad/error.h"
#include "sm/partitions/partitions.h"
#include "sm/qos_policy/policy.h"

namespace sm::qos {

mad::Result<Policy> parse_policy(std::string_view text, std::string_view file_name);
mad::Result<Policy> load_policy(const std::string& path);

// Gives the groups that name partitions the P_Keys of those partitions; an unknown name is an
// error naming the file and the line of the group's entry.
mad::Result<void> resolve_partitions(Policy& policy, const PartitionSet& partitions, std::string_view file_name);

}  // namespace sm::qos
