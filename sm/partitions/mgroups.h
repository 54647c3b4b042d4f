// The multicast groups a partitions file asks for, as OpenSM creates them: the IPoIB broadcast
// group of an ipoib statement and the groups of mgid= lines, with their flags (mtu, rate, sl,
// scope, Q_Key, TClass, FlowLabel). Pure functions for the parser (partitions.cpp); errors are
// the text after "file:line: partition 'x': ".
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "sm/partitions/partitions.h"

namespace sm {

// A statement's (or an mgid= line's) group flags. qkey 0: not given.
struct GroupFlags {
  uint8_t mtu = 4;
  uint8_t rate = 3;
  uint8_t sl = 0;
  uint8_t tclass = 0;
  uint32_t qkey = 0;
  uint32_t flow_label = 0;
  uint16_t scopes = 0;  // bit s: a group at scope s; none given: link-local (2)
};

// Applies `name=value` when `name` is a group flag (any case; Q_Key also qkey): true, or an
// error for a bad value; false when `name` is not a group flag.
std::expected<bool, std::string> apply_group_flag(GroupFlags& flags, std::string_view name, std::string_view value);

// What an mgid= line inherits from its statement's flags: all but TClass, as OpenSM.
GroupFlags inherited_flags(const GroupFlags& statement);

// The IPoIB broadcast group ff12:401b:<P_Key|0x8000>::ffff:ffff. It is link-local whatever
// scope= says: OpenSM (3.3) creates it so, and IPoIB clients look for it there.
PartitionGroup broadcast_group(uint16_t pkey, const GroupFlags& statement);

struct MgidGroups {
  mad::Gid written;  // the MGID as written, an IP group's P_Key bits filled in
  std::vector<PartitionGroup> groups;  // one per scope
};

// The groups of `mgid=<gid>` in partition `pkey`: the GID must be multicast; an IP group
// (signature 0x401b or 0x601b) must carry the partition's P_Key or 0 in bits 32-47 (then filled
// in), and the MTU and rate of its statement; it gets Q_Key 0x0B1B when none is given. Each
// scope of `line` (default 2) gives a group with that scope nibble.
std::expected<MgidGroups, std::string> mgid_groups(std::string_view gid, uint16_t pkey, const GroupFlags& statement,
                                                   const GroupFlags& line);

}  // namespace sm
