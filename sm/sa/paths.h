// PathRecords (GetTable/Get PathRecord) and the PathRecords a MultiPathRecord asks for
// (GetMulti): the paths between two end ports over every pair of their LIDs. With LMC > 0 each
// LID of a port may be routed its own way (routing/fill.cpp spreads them), so a port pair has
// up to 2^lmc x 2^lmc paths, each with the SL the routing gives for its DLID. They are listed
// in OpenSM's order: first the pairs that use the i-th LID on both ends (Preference 0: the
// routes most likely to be distinct), then the others (Preference 2).
#pragma once

#include <cstddef>
#include <span>

#include "mad/sa_mad.h"
#include "sm/qos_policy/match.h"
#include "sm/sa/handler.h"
#include "sm/sa/index.h"

namespace sm::sa {

// The most records one answer may carry: a query naming neither end is refused, one naming a
// single end gets a row per port and LID pair (the largest subnet: 48k ports).
inline constexpr size_t kMaxRecords = 1u << 20;
// The most PathRecords a MultiPathRecord without NumbPath gets (OpenSM's limit).
inline constexpr size_t kMaxMultiPaths = 127;

// Whether `requester` may see end port `e`: it is that port, or shares a partition with it
// (as OpenSM answers requesters without an SM_Key). No requester known (its LID is no end
// port's), or no such port: not filtered.
bool sees(const Index& ix, const Endport* requester, const Endport* e);

// `method`: Get answers one path per port pair (IBA 1.2 erratum: NumbPath 1), GetTable as many
// as NumbPath (when in the mask) allows per port pair. `requester`: see sees(). `policy`: the
// QoS policy; its SLs unless the routing engine gives SLs (those keep its routes deadlock-free).
Records path_records(const Index& ix, uint8_t method, std::span<const uint8_t> data, uint64_t mask,
                     uint64_t prefix, const Endport* requester, const qos::Policy* policy);

// A GetMulti MultiPathRecord: PathRecords from each SGID to each DGID, at most NumbPath (127
// without it) in all. With an IndependenceSelector, each port pair's paths are picked so that
// each shares the fewest switches with the ones already picked. `req`: the whole request (its
// RMPP header: a request of several segments is refused, only one MAD is read).
Records multipath_records(const Index& ix, const mad::SaMad& req, uint64_t prefix, const Endport* requester,
                          const qos::Policy* policy);

}  // namespace sm::sa
