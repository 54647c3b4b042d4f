// Partitions: which ports belong to which P_Key, as full or limited members (IBA 10.9), read
// from a partitions file in a documented subset of OpenSM's partitions.conf syntax:
//
//   # comment
//   Default=0x7fff, ipoib, mtu=4, rate=3 : ALL=full ;
//   storage=0x0002, ipoib, defmember=limited : 0x0002c90300001234=full, 0x0002c90300001235 ;
//
// name=PKey, then flags (ipoib; mtu, rate, sl, scope, qkey of its IPoIB broadcast group;
// defmember=full|limited), a colon, members (a port GUID, ALL, ALL_CAS, ALL_SWITCHES, SELF),
// each optionally =full|limited|both (without one: defmember, else limited, as OpenSM), and a
// semicolon. A port named twice in one partition takes the last membership given. Statements
// may span lines; '#' starts a comment. Default (0x7FFF) always exists: when the file does not
// name it, it is added first as `Default=0x7fff, ipoib : ALL=full`. Q_Key is also accepted for
// qkey, as OpenSM spells it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/types.h"

namespace sm {

// both: the port holds the P_Key twice, as full and as limited member (OpenSM's =both).
enum class Membership : uint8_t { none = 0, limited = 1, full = 2, both = 3 };

struct PartitionMember {
  enum class Who : uint8_t { guid, all, all_cas, all_switches, self };
  Who who = Who::guid;
  mad::Guid port_guid;  // for Who::guid
  Membership membership = Membership::full;
  bool operator==(const PartitionMember&) const = default;
};

struct Partition {
  std::string name;
  uint16_t pkey = 0x7FFF;  // 15 bits, without the membership bit
  bool ipoib = false;      // has an IPoIB broadcast group ff12:401b:<pkey>::ffff:ffff
  // The broadcast group's parameters (IBA codes, as MCMemberRecord carries them).
  uint8_t mtu = 4;         // 2048
  uint8_t rate = 3;        // 10 Gb/s
  uint8_t sl = 0;
  uint8_t scope = 2;       // link-local
  uint32_t qkey = 0x0B1B;  // IPoIB's
  std::vector<PartitionMember> members;
  bool operator==(const Partition&) const = default;
};

struct PartitionSet {
  std::vector<Partition> partitions;  // Default first, then in file order; P_Keys unique
  // The default set: Default=0x7fff, ipoib : ALL=full.
  static PartitionSet defaults();
  bool operator==(const PartitionSet&) const = default;
};

// Parses a partitions file's text. Errors name the line: "partitions.conf:12: ...".
mad::Result<PartitionSet> parse_partitions(std::string_view text, std::string_view file_name);
mad::Result<PartitionSet> load_partitions(const std::string& path);

}  // namespace sm
