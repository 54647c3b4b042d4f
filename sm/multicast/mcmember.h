// MCMemberRecord (SA attribute 0x0038, IBA 1.3 vol 1 15.2.5.17) over the group registry:
//   Set     create (MGID 0: the SA assigns one, ff1S:a01b:<subnet prefix>:<n>) or join;
//   Delete  leave (the JoinState bits given are removed; a group with no full member left
//           is deleted, except the partitions' IPoIB broadcast groups, which the SM keeps);
//   Get, GetTable  with a ComponentMask: without PortGID one record per group (port GID 0,
//           as OpenSM answers a requester without an SM_Key, e.g. `saquery -g`), with it
//           the member's own record.
// Creating needs Q_Key, P_Key, SL, FlowLabel, TClass, JoinState (with the full bit) and
// PortGID; MTU and rate, when given with their selectors, pick the group's value. Joining
// needs PortGID and JoinState, and every other component given must agree with the group.
// The joining port must hold the group's P_Key (either membership), and a requester joining
// another port must share a partition with it, else REQ_INVALID.
// Errors are IBA statuses: INSUFFICIENT_COMPONENTS, REQ_INVALID, INVALID_GID,
// NO_RESOURCES (no MLID left); nothing changes on an error.
#pragma once

#include <optional>

#include "sm/multicast/groups.h"
#include "sm/sa/handler.h"

namespace sm::multicast {

struct McMemberConfig {
  uint64_t subnet_prefix = mad::kDefaultGidPrefix;
  uint8_t pkt_life = 18;  // PacketLifeTime of new groups (the subnet timeout, as OpenSM)
};

class McMemberHandler : public sa::Handler {
 public:
  McMemberHandler(Registry& groups, McMemberConfig cfg) : groups_(groups), cfg_(cfg) {}
  size_t claims(uint16_t attr_id) const override;
  sa::Records handle(const sa::Request& req, const sa::Index& ix) override;

  // The record a group answers with: its parameters, `port` and `join_state`; `sl`, when
  // given, replaces the group's (VL layers keep multicast on a VL of its own: sm/subnet.h).
  static mad::McMemberRecord record_of(const Group& g, const mad::Gid& port, uint8_t join_state,
                                       std::optional<uint8_t> sl = std::nullopt);

 private:
  // `requester` (when the index knows it) sees only groups of partitions it is in.
  sa::Records query(const mad::McMemberRecord& q, std::span<const uint8_t> raw, uint64_t mask,
                    const sa::Index& ix, const sa::Endport* requester) const;
  // `requester`: the port the request came from, when the index knows it.
  sa::Records join(const mad::McMemberRecord& q, uint64_t mask, const sa::Index& ix, const sa::Endport* requester);
  sa::Records leave(const mad::McMemberRecord& q, uint64_t mask, const sa::Index& ix);

  Registry& groups_;
  McMemberConfig cfg_;
};

}  // namespace sm::multicast
