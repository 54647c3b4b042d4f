// Partitions: which ports belong to which P_Key, as full or limited members (IBA 10.9), and the
// multicast groups the SM keeps for them, read from a partitions file in OpenSM's
// partitions.conf syntax (OpenSM's doc/partition-config.txt; README "Partitions"):
//
//   # comment
//   Default=0x7fff, ipoib, mtu=4, rate=3 : ALL=full ;
//   storage=0x0002, ipoib, indx0, defmember=limited :
//       mgid=ff12:401b::0707, sl=1        # a group of the partition, to the end of the line
//       0x0002c90300001234=full, 0x0002c90300001235
//       ALL_ROUTERS ;
//
// As OpenSM resolves it: statements with the same P_Key are one partition (the first name
// kept, members joined in file order; each statement's flags apply to its own members and
// groups); the last entry naming a port decides its membership; the default partition always
// exists and starts as `ALL=limited, SELF=full` before what the file says about it (no IPoIB
// group unless the file says ipoib); a file with no statement is the default set, as a missing
// one. Stricter than OpenSM: what OpenSM skips with a warning (an unknown flag, a bad value, a
// group that is not multicast or whose MTU or rate differ from its IPoIB partition's) is an
// error naming the file and line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/gid.h"
#include "mad/types.h"

namespace sm {

// both: the port holds the P_Key twice, as full and as limited member, with allow_both_pkeys
// (PartitionSet); without it, as a full member only (as OpenSM).
enum class Membership : uint8_t { none = 0, limited = 1, full = 2, both = 3 };

struct PartitionMember {
  enum class Who : uint8_t { guid, all, all_cas, all_switches, all_routers, self };
  Who who = Who::guid;
  mad::Guid port_guid;  // for Who::guid
  Membership membership = Membership::full;
  bool indx0 = false;  // the statement said indx0: this P_Key at index 0 of the port's table
  uint32_t seq = 0;    // the entry's place among all the file's entries (indx0 across partitions)
  bool operator==(const PartitionMember&) const = default;
};

// A multicast group the SM creates for a partition and keeps without members: the IPoIB
// broadcast group of an ipoib statement, or an mgid= line. IBA codes, as MCMemberRecord
// carries them; the group's P_Key is the partition's, full.
struct PartitionGroup {
  mad::Gid mgid;           // final: scope nibble set, an IP group's P_Key bits filled in
  uint32_t qkey = 0x0B1B;  // IPoIB's for IP groups
  uint8_t mtu = 4;         // 2048
  uint8_t rate = 3;        // 10 Gb/s
  uint8_t sl = 0;
  uint8_t tclass = 0;
  uint32_t flow_label = 0;
  bool operator==(const PartitionGroup&) const = default;
};

struct Partition {
  std::string name;
  uint16_t pkey = 0x7FFF;  // 15 bits, without the membership bit
  bool ipoib = false;      // a statement said ipoib
  std::vector<PartitionMember> members;  // file order
  std::vector<PartitionGroup> groups;    // file order; an MGID in one partition only
  bool operator==(const Partition&) const = default;
};

struct PartitionSet {
  std::vector<Partition> partitions;  // Default first, then in file order; P_Keys unique
  // OpenSM's allow_both_pkeys: `=both` puts the P_Key in a port's table twice (full and
  // limited); without it (OpenSM's default) `=both` is the full entry only.
  bool allow_both_pkeys = false;
  // The set without a file (or with one that has no statement): Default=0x7fff, ipoib : ALL=full.
  static PartitionSet defaults();
  bool operator==(const PartitionSet&) const = default;
};

// Parses a partitions file's text. Errors name the line: "partitions.conf:12: ...".
mad::Result<PartitionSet> parse_partitions(std::string_view text, std::string_view file_name);
mad::Result<PartitionSet> load_partitions(const std::string& path);

}  // namespace sm
