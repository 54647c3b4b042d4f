// The multicast groups of the subnet (IBA 15.2.5.17): MGID -> MLID, the parameters every
// member shares, and the members (port GID -> JoinState bits). MLIDs come from 0xC000 up,
// the lowest free one, so the same set of groups created in the same order gets the same
// MLIDs; a group restored from the store keeps the MLID it had (restarts, takeovers).
// Pure data: the SA handler (mcmember.h) decides what may change, the tree and MFT code
// (tree.h, mft.h) read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "mad/error.h"
#include "mad/gid.h"
#include "mad/types.h"

namespace sm::multicast {

inline constexpr uint16_t kMlidFirst = 0xC000;
inline constexpr uint16_t kMlidLast = 0xFFFE;

// What every member of a group shares; IBA codes as MCMemberRecord carries them.
struct GroupParams {
  uint32_t qkey = 0;
  uint16_t pkey = 0xFFFF;  // with the membership bit
  uint8_t mtu = 4;         // IBA MTU code
  uint8_t rate = 3;        // IBA rate code
  uint8_t sl = 0;
  uint32_t flow_label = 0;
  uint8_t tclass = 0;
  uint8_t scope = 2;
  uint8_t hop_limit = 0;
  uint8_t pkt_life = 18;
  bool operator==(const GroupParams&) const = default;
};

struct Group {
  mad::Gid mgid;
  mad::Lid mlid;
  GroupParams params;
  bool kept = false;  // an IPoIB broadcast group of a partition: the SM keeps it without members
  std::map<mad::Gid, uint8_t> members;  // port GID -> mad::join_state bits
  bool has_full_member() const;
  bool operator==(const Group&) const = default;
};

class Registry {
 public:
  const std::map<mad::Gid, Group>& groups() const { return groups_; }
  const Group* find(const mad::Gid& mgid) const;
  Group* find(const mad::Gid& mgid);
  const Group* by_mlid(mad::Lid mlid) const;
  // A new group with the lowest free MLID. Fails when the MGID exists or no MLID is free.
  mad::Result<Group*> create(const mad::Gid& mgid, const GroupParams& params, bool kept);
  // A group as the store kept it, MLID included. Fails (and changes nothing) when its MGID or
  // MLID is taken or the MLID is not a multicast LID.
  mad::Result<void> restore(Group g);
  void erase(const mad::Gid& mgid);
  // Every group gone (not noted as changed: a restore replaces them).
  void clear();
  // Whether the SM keeps `mgid` without members (an IPoIB broadcast group of a partition).
  void set_kept(const mad::Gid& mgid, bool kept);
  // Sets `port`'s JoinState in `mgid` (0 removes the member). The group must exist.
  void set_member(const mad::Gid& mgid, const mad::Gid& port, uint8_t join_state);
  // An MGID no group has, for a create with MGID 0 (IBA 15.2.5.17.1: the SA assigns it):
  // ff1S:a01b, the subnet prefix, then the lowest free 32-bit number (deterministic).
  mad::Gid unused_mgid(uint8_t scope, uint64_t subnet_prefix) const;

  // Bumped by every change (MFTs and the store follow it).
  uint64_t version() const { return version_; }
  // The MGIDs changed since the last call (created, joined, left, deleted), for the store.
  std::vector<mad::Gid> take_changed();

 private:
  void touch(const mad::Gid& mgid);
  std::map<mad::Gid, Group> groups_;
  std::map<uint16_t, mad::Gid> by_mlid_;
  std::set<mad::Gid> changed_;
  uint64_t version_ = 0;
};

// The store's encoding of a group (parameters, MLID, members), versioned; decode checks
// every length and field.
std::vector<uint8_t> encode_group(const Group& g);
mad::Result<Group> decode_group(std::span<const uint8_t> bytes);
std::vector<uint8_t> mgid_key(const mad::Gid& mgid);  // the store key: 16 bytes

}  // namespace sm::multicast
