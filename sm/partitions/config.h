// The partitions file, in a documented subset of OpenSM's partitions.conf syntax:
//
//   # comment
//   Name=0x8001, ipoib, mtu=5, rate=7, sl=0, scope=2, Q_Key=0x0b1b, defmember=full :
//       0x0002c90300a1b2c3=full, 0x0002c90300a1b2c4, ALL_SWITCHES=limited ;
//
// Definition: a name (optional), `=P_Key` (required, low 15 bits used), then flags: ipoib,
// indx0, defmember=full|limited|both, and the IPoIB broadcast group's rate=, mtu=, sl=,
// scope=, Q_Key=, TClass=, FlowLabel=. Members: port GUIDs (CA ports; a switch by its node
// GUID, port 0) or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF (the SM's port), each with
// an optional =full|limited|both (default: the defmember flag, else limited). `both` counts
// as full. Definitions with the same P_Key are merged. Not supported (refused with the line):
// mgid= groups, P_Keys left for the SM to generate, unknown flags or membership words.
//
// Without a file: Default=0x7fff, ipoib : ALL=full ; With a file that has no rule for 0x7fff,
// OpenSM's rule is added: Default=0x7fff : ALL=limited, SELF=full ;
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"
#include "mad/types.h"

namespace sm::partitions {

inline constexpr uint16_t kDefaultPKey = 0x7FFF;

enum class Membership : uint8_t { limited, full };

struct MemberSpec {
  enum class Kind : uint8_t { guid, all, all_cas, all_switches, all_routers, self };
  Kind kind = Kind::guid;
  mad::Guid guid;  // Kind::guid: a port GUID (a switch: its node GUID)
  Membership membership = Membership::limited;
  bool operator==(const MemberSpec&) const = default;
};

// The IPoIB broadcast group of an `ipoib` partition (OpenSM's defaults).
struct GroupParams {
  uint8_t rate = 3;            // 10 Gb/s
  uint8_t mtu = 4;             // 2048
  uint8_t sl = 0;
  uint8_t scope = 2;           // link-local
  uint32_t qkey = 0x0B1B;
  uint8_t tclass = 0;
  uint32_t flow_label = 0;
  bool operator==(const GroupParams&) const = default;
};

struct Partition {
  std::string name;
  uint16_t pkey = 0;  // 15 bits: the membership bit is per port
  bool ipoib = false;
  bool index0 = false;
  GroupParams group;
  std::vector<MemberSpec> members;
  int line = 0;  // where it was (first) defined; 0 = built in
  bool operator==(const Partition&) const = default;
};

struct Config {
  std::vector<Partition> partitions;  // by P_Key, merged
  std::string source;                 // file name, or "built-in"
  bool operator==(const Config&) const = default;
  const Partition* find(uint16_t pkey) const;
};

// Parses the text of a partitions file; errors name `file:line` and what is wrong.
mad::Result<Config> parse(std::string_view text, std::string_view file);
// Reads and parses a file (a missing or unreadable file is an error: the caller decides).
mad::Result<Config> load(const std::string& path);
// What applies without a partitions file.
Config built_in();

}  // namespace sm::partitions
