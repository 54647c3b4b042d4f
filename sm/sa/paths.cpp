#include "sm/sa/paths.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "mad/sa_multipath_record.h"
#include "mad/sa_path_record.h"
#include "sm/partitions/pkey_match.h"

namespace sm::sa {

namespace {

using mad::MultiPathRecord;
using mad::PathRecord;

constexpr uint64_t kLinkLocalPrefix = 0xFE80000000000000ULL;

// Selector comparisons (IBA 15.2.5.16): 0 greater than, 1 less than, 2 exactly, 3 best.
bool path_selected(uint8_t selector, unsigned have, unsigned want) {
  switch (selector) {
    case 0: return have > want;
    case 1: return have < want;
    case 2: return have == want;
    default: return true;
  }
}

std::vector<const Endport*> path_ends(const Index& ix, uint64_t mask, uint64_t lid_bit, uint64_t gid_bit, mad::Lid lid,
                                      const mad::Gid& gid, uint16_t* status) {
  std::vector<const Endport*> out;
  if (mask & lid_bit) {
    if (const Endport* e = ix.by_lid(lid)) out.push_back(e);
  } else if (mask & gid_bit) {
    const Endport* e = ix.by_guid(gid.guid());
    if (!e) *status = mad::sa_status::invalid_gid;
    else out.push_back(e);
  } else {
    for (const Endport& e : ix.endports()) out.push_back(&e);
  }
  return out;
}

// A QoS level on a path: its SL (unless the routing engine's stands), the MTU and rate at
// most its limits, its PacketLifeTime (OpenSM's; a path to itself keeps 0).
void apply_qos_level(const qos::Level& l, PathRecord& p, unsigned hops, bool take_sl) {
  if (take_sl) p.sl = l.sl;
  if (l.mtu_limit && p.mtu > *l.mtu_limit) p.mtu = *l.mtu_limit;
  if (l.rate_limit && mad::rate::tenths_gbps(p.rate) > mad::rate::tenths_gbps(*l.rate_limit)) p.rate = *l.rate_limit;
  if (l.packet_life && hops != 0) p.pkt_life = *l.packet_life;
}

struct LidPair {
  mad::Lid slid, dlid;
  uint8_t preference;
};

// Every (SLID, DLID) of two LID ranges in OpenSM's order (osm_sa_path_record.c): the i-th
// LID to the i-th LID first (Preference 0), then the other pairs source-major (Preference 2).
std::vector<LidPair> lid_pairs(uint16_t s0, uint16_t ns, uint16_t d0, uint16_t nd) {
  std::vector<LidPair> out;
  out.reserve(size_t{ns} * nd);
  for (uint16_t i = 0; i < std::min(ns, nd); ++i)
    out.push_back({mad::Lid(static_cast<uint16_t>(s0 + i)), mad::Lid(static_cast<uint16_t>(d0 + i)), 0});
  for (uint16_t i = 0; i < ns; ++i)
    for (uint16_t j = 0; j < nd; ++j)
      if (i != j) out.push_back({mad::Lid(static_cast<uint16_t>(s0 + i)), mad::Lid(static_cast<uint16_t>(d0 + j)), 2});
  return out;
}

// A PathRecord query as both PathRecord and MultiPathRecord reach it: the template record and
// its mask in PathRecord's ComponentMask bits.
struct PathQuery {
  PathRecord q;
  uint64_t mask = 0;
  const Endport* requester = nullptr;
  const qos::Policy* policy = nullptr;
  uint64_t prefix = 0;
};

class PairPaths {
 public:
  PairPaths(const Index& ix, const PathQuery& pq) : ix_(ix), pq_(pq) {
    const uint64_t m = pq.mask;
    policy_sls_ = pq.policy && !ix.engine_sls();
    if (m & (PathRecord::c_service_id_msb | PathRecord::c_service_id_lsb)) match_.service_id = pq.q.service_id;
    if (m & PathRecord::c_pkey) match_.pkey = pq.q.pkey;
    if (m & PathRecord::c_qos_class) match_.qos_class = pq.q.qos_class;
  }

  // Whether a path may exist between the two at all (partitions, what the requester sees),
  // and with which P_Key; sets up what the per-LID records share.
  bool begin(const Endport& s, const Endport& d) {
    if (!sees(ix_, pq_.requester, &s) || !sees(ix_, pq_.requester, &d)) return false;
    // A path exists only within a partition both ends share (sm/partitions/pkey_match.h);
    // a P_Key the requester names is answered as given, as OpenSM does.
    pkey_ = (pq_.mask & PathRecord::c_pkey) ? shared_pkey(ix_.pkeys(s), ix_.pkeys(d), pq_.q.pkey)
                                            : common_pkey(ix_.pkeys(s), ix_.pkeys(d));
    if (!pkey_) return false;
    s_ = &s;
    d_ = &d;
    if (pq_.policy) {
      src_facts_ = ix_.facts(s);
      dst_facts_ = ix_.facts(d);
      match_.source = &src_facts_;
      match_.destination = &dst_facts_;
    }
    return true;
  }

  // The LID pairs a query may get for the current pair, in order: a SLID or DLID the query
  // names narrows that end's range to it.
  std::vector<LidPair> candidates() const {
    uint16_t s0 = s_->lid.value(), ns = s_->lid_count(), d0 = d_->lid.value(), nd = d_->lid_count();
    if (pq_.mask & PathRecord::c_slid) s0 = pq_.q.slid.value(), ns = 1;
    if (pq_.mask & PathRecord::c_dlid) d0 = pq_.q.dlid.value(), nd = 1;
    return lid_pairs(s0, ns, d0, nd);
  }

  // The record of one LID pair, unless the query's constraints exclude it.
  std::optional<PathRecord> record(const LidPair& lp) const {
    const Endport& s = *s_;
    const Endport& d = *d_;
    const uint64_t mask = pq_.mask;
    const PathRecord& q = pq_.q;
    // The routing's SL for this DLID (each LID of a port may be on its own VL layer); a
    // requester asking for another SL gets no path (with a policy's SLs: checked below).
    const uint8_t sl = ix_.sl(s, lp.dlid);
    if (!policy_sls_ && (mask & PathRecord::c_sl) && q.sl != sl) return std::nullopt;
    auto pi = ix_.path(s, d, lp.dlid);
    if (!pi) return std::nullopt;
    PathRecord p;
    // What the requester chose is echoed; the path's properties are the fabric's.
    p.service_id = (mask & (PathRecord::c_service_id_msb | PathRecord::c_service_id_lsb)) ? q.service_id : 0;
    p.sgid = mad::Gid(pq_.prefix, s.guid.value());
    p.dgid = mad::Gid(pq_.prefix, d.guid.value());
    p.slid = lp.slid;
    p.dlid = lp.dlid;
    p.raw_traffic = q.raw_traffic && (mask & PathRecord::c_raw_traffic);
    p.flow_label = (mask & PathRecord::c_flow_label) ? q.flow_label : 0;
    p.hop_limit = (mask & PathRecord::c_hop_limit) ? q.hop_limit : 0;
    p.tclass = (mask & PathRecord::c_tclass) ? q.tclass : 0;
    // Reversible when the way back (to this SLID) is routed too, as OpenSM checks.
    p.reversible = ix_.path(d, s, lp.slid).has_value();
    p.pkey = (mask & PathRecord::c_pkey) ? q.pkey : *pkey_;
    p.sl = sl;
    p.mtu_selector = p.rate_selector = p.pkt_life_selector = 2;
    p.mtu = pi->mtu;
    p.rate = pi->rate;
    p.pkt_life = pi->hops == 0 ? 0 : ix_.packet_life();  // to itself: nothing crossed
    p.preference = lp.preference;
    if (pq_.policy) {
      apply_qos_level(qos::level_for(*pq_.policy, match_), p, pi->hops, policy_sls_);
      if (policy_sls_ && (mask & PathRecord::c_sl) && q.sl != p.sl) return std::nullopt;
    }
    if ((mask & PathRecord::c_mtu) &&
        !path_selected((mask & PathRecord::c_mtu_selector) ? q.mtu_selector : 2, p.mtu, q.mtu))
      return std::nullopt;
    if ((mask & PathRecord::c_rate) &&
        !path_selected((mask & PathRecord::c_rate_selector) ? q.rate_selector : 2, mad::rate::tenths_gbps(p.rate),
                       mad::rate::tenths_gbps(q.rate)))
      return std::nullopt;
    if ((mask & PathRecord::c_pkt_life) &&
        !path_selected((mask & PathRecord::c_pkt_life_selector) ? q.pkt_life_selector : 2, p.pkt_life, q.pkt_life))
      return std::nullopt;
    if ((mask & PathRecord::c_reversible) && q.reversible && !p.reversible) return std::nullopt;
    return p;
  }

  const Endport& source() const { return *s_; }

 private:
  const Index& ix_;
  const PathQuery& pq_;
  bool policy_sls_ = false;
  qos::Query match_;
  qos::PortFacts src_facts_, dst_facts_;
  std::optional<uint16_t> pkey_;
  const Endport* s_ = nullptr;
  const Endport* d_ = nullptr;
};

void emit(Records& r, const PathRecord& p) {
  std::vector<uint8_t> rec(PathRecord::kSize);
  p.encode(rec);
  r.records.push_back(std::move(rec));
}

// Up to `limit` records of the current pair in OpenSM's order.
size_t pair_in_order(const PairPaths& pp, size_t limit, Records& r) {
  size_t n = 0;
  for (const LidPair& lp : pp.candidates()) {
    if (n >= limit) break;
    if (auto p = pp.record(lp)) {
      emit(r, *p);
      ++n;
    }
  }
  return n;
}

// Up to `limit` records of the current pair, each the one whose switches overlap least with
// those of the paths picked before it (ties: OpenSM's order). Intermediate switches only: the
// ones every path of a CA must cross (its own leaf) say nothing.
size_t pair_independent(const Index& ix, const PairPaths& pp, size_t limit, Records& r) {
  struct Cand {
    PathRecord p;
    std::vector<NodeId> sws;
    bool taken = false;
  };
  std::vector<Cand> cands;
  for (const LidPair& lp : pp.candidates())
    if (auto p = pp.record(lp)) {
      std::vector<NodeId> sws = ix.switches_on(pp.source(), lp.dlid);
      if (sws.size() > 2) sws = std::vector<NodeId>(sws.begin() + 1, sws.end() - 1);
      else sws.clear();
      cands.push_back(Cand{*p, std::move(sws)});
    }
  std::unordered_set<NodeId> used;
  size_t n = 0;
  while (n < limit && n < cands.size()) {
    Cand* best = nullptr;
    size_t best_overlap = SIZE_MAX;
    for (Cand& c : cands) {
      if (c.taken) continue;
      size_t overlap = 0;
      for (NodeId sw : c.sws) overlap += used.count(sw);
      if (overlap < best_overlap) best = &c, best_overlap = overlap;
    }
    best->taken = true;
    used.insert(best->sws.begin(), best->sws.end());
    emit(r, best->p);
    ++n;
  }
  return n;
}

}  // namespace

bool sees(const Index& ix, const Endport* requester, const Endport* e) {
  return !requester || !e || e == requester || common_pkey(ix.pkeys(*requester), ix.pkeys(*e)).has_value();
}

Records path_records(const Index& ix, uint8_t method, std::span<const uint8_t> data, uint64_t mask,
                     uint64_t prefix, const Endport* requester, const qos::Policy* policy) {
  if (mad::unknown_components(mask, PathRecord::components().size())) return refused(mad::sa_status::req_invalid);
  auto q = PathRecord::decode(data);
  if (!q) return refused(mad::sa_status::req_invalid);
  const bool src_given = mask & (PathRecord::c_slid | PathRecord::c_sgid);
  const bool dst_given = mask & (PathRecord::c_dlid | PathRecord::c_dgid);
  if (!src_given && !dst_given) return refused(mad::sa_status::insufficient_components);
  uint16_t status = mad::status::ok;
  const auto srcs = path_ends(ix, mask, PathRecord::c_slid, PathRecord::c_sgid, q->slid, q->sgid, &status);
  const auto dsts = path_ends(ix, mask, PathRecord::c_dlid, PathRecord::c_dgid, q->dlid, q->dgid, &status);
  if (status != mad::status::ok) return refused(status);
  // Paths per port pair (OpenSM): Get one (IBA 1.2 erratum), else NumbPath when given.
  const size_t per_pair = method == mad::sa_method::get ? 1
                          : (mask & PathRecord::c_numb_path) ? size_t{q->numb_path}
                                                              : SIZE_MAX;
  const PathQuery pq{*q, mask, requester, policy, prefix};
  PairPaths pp(ix, pq);
  Records r;
  for (const Endport* s : srcs)
    for (const Endport* d : dsts) {
      if (!pp.begin(*s, *d)) continue;
      pair_in_order(pp, std::min(per_pair, kMaxRecords - r.records.size()), r);
      if (r.records.size() >= kMaxRecords) return r;
    }
  return r;
}

Records multipath_records(const Index& ix, const mad::SaMad& req, uint64_t prefix, const Endport* requester,
                          const qos::Policy* policy) {
  using M = MultiPathRecord;
  const uint64_t mask = req.comp_mask;
  // A request of several RMPP segments (more GIDs than one MAD holds) is not reassembled.
  if (req.rmpp.active() && (req.rmpp.type != mad::rmpp::Type::data || !req.rmpp.first() || !req.rmpp.last()))
    return refused(mad::sa_status::req_invalid);
  if (mad::unknown_components(mask, M::components().size())) return refused(mad::sa_status::req_invalid);
  if (!(mask & M::c_sgid_count) || !(mask & M::c_dgid_count)) return refused(mad::sa_status::insufficient_components);
  const uint64_t sid_bits = M::c_service_id_msb | M::c_service_id_lsb;
  if ((mask & sid_bits) != 0 && (mask & sid_bits) != sid_bits) return refused(mad::sa_status::insufficient_components);
  auto m = M::decode(req.data);
  if (!m) return refused(mad::sa_status::req_invalid);  // counts beyond the MAD
  if (m->sgids.empty() || m->dgids.empty()) return refused(mad::sa_status::req_invalid);
  if ((mask & M::c_rate_selector) && (mask & M::c_rate) && !mad::rate::valid(m->rate))
    return refused(mad::sa_status::req_invalid);
  if ((mask & M::c_mtu_selector) && (mask & M::c_mtu) && (m->mtu < 1 || m->mtu > 5))
    return refused(mad::sa_status::req_invalid);
  // GIDs: of this subnet (or link-local), known ports; a multicast SGID is no source.
  auto port_of = [&](const mad::Gid& g, bool source) -> const Endport* {
    if (g.prefix() != kLinkLocalPrefix && (g.prefix() != prefix || (source && g.is_multicast()))) return nullptr;
    return ix.by_guid(g.guid());
  };
  std::vector<const Endport*> srcs, dsts;
  for (const mad::Gid& g : m->sgids) {
    const Endport* e = port_of(g, true);
    if (!e) return refused(mad::sa_status::invalid_gid);
    srcs.push_back(e);
  }
  for (const mad::Gid& g : m->dgids) {
    const Endport* e = port_of(g, false);
    if (!e) return refused(mad::sa_status::invalid_gid);
    dsts.push_back(e);
  }
  // The query in PathRecord terms (the ends are the GID sets, not a SLID or DLID).
  PathQuery pq{.requester = requester, .policy = policy, .prefix = prefix};
  PathRecord& q = pq.q;
  q.raw_traffic = m->raw_traffic;
  q.flow_label = m->flow_label;
  q.hop_limit = m->hop_limit;
  q.tclass = m->tclass;
  q.reversible = m->reversible;
  q.numb_path = m->numb_path;
  q.pkey = m->pkey;
  q.qos_class = m->qos_class;
  q.sl = m->sl;
  q.mtu_selector = m->mtu_selector, q.mtu = m->mtu;
  q.rate_selector = m->rate_selector, q.rate = m->rate;
  q.pkt_life_selector = m->pkt_life_selector, q.pkt_life = m->pkt_life;
  q.service_id = m->service_id;
  constexpr std::pair<uint64_t, uint64_t> kBits[] = {
      {M::c_raw_traffic, PathRecord::c_raw_traffic}, {M::c_flow_label, PathRecord::c_flow_label},
      {M::c_hop_limit, PathRecord::c_hop_limit}, {M::c_tclass, PathRecord::c_tclass},
      {M::c_reversible, PathRecord::c_reversible}, {M::c_pkey, PathRecord::c_pkey},
      {M::c_qos_class, PathRecord::c_qos_class}, {M::c_sl, PathRecord::c_sl},
      {M::c_mtu_selector, PathRecord::c_mtu_selector}, {M::c_mtu, PathRecord::c_mtu},
      {M::c_rate_selector, PathRecord::c_rate_selector}, {M::c_rate, PathRecord::c_rate},
      {M::c_pkt_life_selector, PathRecord::c_pkt_life_selector}, {M::c_pkt_life, PathRecord::c_pkt_life},
      {M::c_service_id_msb, PathRecord::c_service_id_msb}, {M::c_service_id_lsb, PathRecord::c_service_id_lsb},
  };
  for (auto [from, to] : kBits)
    if (mask & from) pq.mask |= to;
  const size_t max_paths = (mask & M::c_numb_path) ? size_t{m->numb_path} : kMaxMultiPaths;
  const bool independent = (mask & M::c_independence) && m->independence != 0;
  PairPaths pp(ix, pq);
  Records r;
  for (const Endport* s : srcs)
    for (const Endport* d : dsts) {
      if (r.records.size() >= max_paths) return r;
      if (!pp.begin(*s, *d)) continue;
      const size_t left = max_paths - r.records.size();
      if (independent) pair_independent(ix, pp, left, r);
      else pair_in_order(pp, left, r);
    }
  return r;
}

}  // namespace sm::sa
