#include "sm/multicast/mcmember.h"

#include "mad/sa_fields.h"
#include "mad/sa_path_record.h"
#include "sm/partitions/pkey_match.h"

namespace sm::multicast {

namespace {

using M = mad::McMemberRecord;
constexpr uint8_t kSendOnly = mad::join_state::send_only_non | mad::join_state::send_only_full;
constexpr uint8_t kMtuMax = 5;  // 4096

sa::Records fail(uint16_t status) { return sa::Records{status, {}}; }

sa::Records one(const mad::McMemberRecord& r) {
  sa::Records out;
  out.records.emplace_back(M::kSize);
  r.encode(out.records.back());
  return out;
}

// Whether a group value satisfies a requester's selector (0 greater than, 1 less than,
// 2 exactly, 3 best: anything).
bool satisfies(uint8_t selector, unsigned group, unsigned wanted) {
  switch (selector) {
    case mad::selector::greater_than: return group > wanted;
    case mad::selector::less_than: return group < wanted;
    case mad::selector::exactly: return group == wanted;
    default: return true;
  }
}

// The value a new group takes from a requested MTU and selector (0: none fits).
uint8_t pick_mtu(uint8_t sel, uint8_t mtu) {
  if (mtu < 1 || mtu > kMtuMax) return sel == mad::selector::best ? 4 : 0;
  switch (sel) {
    case mad::selector::greater_than: return mtu < kMtuMax ? static_cast<uint8_t>(mtu + 1) : 0;
    case mad::selector::less_than: return mtu > 1 ? static_cast<uint8_t>(mtu - 1) : 0;
    case mad::selector::exactly: return mtu;
    default: return 4;
  }
}

uint8_t pick_rate(uint8_t sel, uint8_t rate) {
  if (!mad::rate::valid(rate)) return sel == mad::selector::best ? mad::rate::r10 : 0;
  switch (sel) {
    case mad::selector::greater_than: {
      uint8_t best = 0;
      for (uint8_t c = 2; c <= 63; ++c)
        if (mad::rate::tenths_gbps(c) > mad::rate::tenths_gbps(rate) &&
            (best == 0 || mad::rate::tenths_gbps(c) < mad::rate::tenths_gbps(best)))
          best = c;
      return best;
    }
    case mad::selector::less_than: return mad::rate::next_lower(rate);
    case mad::selector::exactly: return rate;
    default: return mad::rate::r10;
  }
}

// Every component the requester gave agrees with the group. With VL layers (`fixed_sl`) the
// SA chooses the SL: the requester's is not compared.
bool agrees(const Group& g, const M& q, uint64_t mask, std::optional<uint8_t> fixed_sl) {
  const GroupParams& p = g.params;
  if ((mask & M::c_qkey) && q.qkey != p.qkey) return false;
  if ((mask & M::c_mlid) && q.mlid != g.mlid) return false;
  if ((mask & M::c_pkey) && q.pkey != p.pkey) return false;
  if ((mask & M::c_tclass) && q.tclass != p.tclass) return false;
  if ((mask & M::c_sl) && !fixed_sl && q.sl != p.sl) return false;
  if ((mask & M::c_flow_label) && q.flow_label != p.flow_label) return false;
  if ((mask & M::c_hop_limit) && q.hop_limit != p.hop_limit) return false;
  if ((mask & M::c_scope) && q.scope != p.scope) return false;
  auto sel = [&](uint64_t sel_bit, uint8_t s) { return (mask & sel_bit) ? s : mad::selector::exactly; };
  if ((mask & M::c_mtu) && !satisfies(sel(M::c_mtu_selector, q.mtu_selector), p.mtu, q.mtu)) return false;
  if ((mask & M::c_rate) && !satisfies(sel(M::c_rate_selector, q.rate_selector), mad::rate::tenths_gbps(p.rate),
                                       mad::rate::tenths_gbps(q.rate)))
    return false;
  if ((mask & M::c_pkt_life) && !satisfies(sel(M::c_pkt_life_selector, q.pkt_life_selector), p.pkt_life, q.pkt_life))
    return false;
  return true;
}

}  // namespace

size_t McMemberHandler::claims(uint16_t attr_id) const { return attr_id == M::kAttrId ? M::kSize : 0; }

mad::McMemberRecord McMemberHandler::record_of(const Group& g, const mad::Gid& port, uint8_t join_state,
                                               std::optional<uint8_t> sl) {
  M r;
  const GroupParams& p = g.params;
  r.mgid = g.mgid;
  r.port_gid = port;
  r.qkey = p.qkey;
  r.mlid = g.mlid;
  r.mtu_selector = r.rate_selector = r.pkt_life_selector = mad::selector::exactly;
  r.mtu = p.mtu;
  r.rate = p.rate;
  r.pkt_life = p.pkt_life;
  r.tclass = p.tclass;
  r.pkey = p.pkey;
  r.sl = sl.value_or(p.sl);
  r.flow_label = p.flow_label;
  r.hop_limit = p.hop_limit;
  r.scope = p.scope;
  r.join_state = join_state;
  return r;
}

sa::Records McMemberHandler::handle(const sa::Request& req, const sa::Index& ix) {
  const uint64_t mask = req.mad.comp_mask;
  if (mad::unknown_components(mask, M::components().size())) return fail(mad::sa_status::req_invalid);
  auto q = M::decode(req.mad.data);
  if (!q) return fail(mad::sa_status::req_invalid);
  switch (req.mad.header.method) {
    case mad::sa_method::get:
    case mad::sa_method::get_table: return query(*q, req.mad.data, mask, ix, ix.by_lid(req.from.lid));
    case mad::sa_method::set: return join(*q, mask, ix, ix.by_lid(req.from.lid));
    case mad::sa_method::del: return leave(*q, mask, ix);
    default: return fail(mad::status::unsupported_method_attr);
  }
}

sa::Records McMemberHandler::query(const M& q, std::span<const uint8_t> raw, uint64_t mask, const sa::Index& ix,
                                   const sa::Endport* requester) const {
  sa::Records out;
  const auto fields = M::components();
  std::vector<uint8_t> rec(M::kSize);
  auto consider = [&](const M& r) {
    r.encode(rec);
    if (mad::components_match(raw, rec, mask, fields)) out.records.push_back(rec);
  };
  auto visit = [&](const Group& g) {
    if (requester && !holds_pkey(ix.pkeys(*requester), g.params.pkey)) return;  // not its partition
    if (mask & M::c_port_gid) {
      auto it = g.members.find(q.port_gid);
      if (it != g.members.end()) consider(record_of(g, it->first, it->second, ix.multicast_sl()));
    } else {
      consider(record_of(g, mad::Gid(), 0, ix.multicast_sl()));  // the group, no member: JoinState 0 (IBA, OpenSM)
    }
  };
  if (mask & M::c_mgid) {
    if (const Group* g = groups_.find(q.mgid)) visit(*g);
  } else {
    for (const auto& [mgid, g] : groups_.groups()) visit(g);
  }
  return out;
}

sa::Records McMemberHandler::join(const M& q, uint64_t mask, const sa::Index& ix, const sa::Endport* requester) {
  if (!(mask & M::c_port_gid) || !(mask & M::c_join_state)) return fail(mad::sa_status::insufficient_components);
  if (q.join_state == 0 || q.join_state > 0xF) return fail(mad::sa_status::req_invalid);
  const sa::Endport* port = q.port_gid.prefix() == cfg_.subnet_prefix ? ix.by_guid(q.port_gid.guid()) : nullptr;
  if (!port) return fail(mad::sa_status::invalid_gid);
  // The joining port must be in the group's partition (full or limited), as OpenSM requires.
  auto in_partition = [&](uint16_t pkey) { return holds_pkey(ix.pkeys(*port), pkey); };
  // A port joining for another (a proxy) must share a partition with it.
  if (requester && requester != port && !common_pkey(ix.pkeys(*requester), ix.pkeys(*port)))
    return fail(mad::sa_status::req_invalid);
  const bool zero_mgid = !(mask & M::c_mgid) || q.mgid.is_zero();
  if (!zero_mgid) {
    if (Group* g = groups_.find(q.mgid)) {
      if (!agrees(*g, q, mask, ix.multicast_sl()) || !in_partition(g->params.pkey)) return fail(mad::sa_status::req_invalid);
      auto it = g->members.find(q.port_gid);
      const uint8_t js = static_cast<uint8_t>((it == g->members.end() ? 0 : it->second) | q.join_state);
      groups_.set_member(q.mgid, q.port_gid, js);
      return one(record_of(*g, q.port_gid, js, ix.multicast_sl()));
    }
    // A new MGID must be multicast with no reserved flag bits.
    if (!q.mgid.is_multicast() || (q.mgid.mc_flags() & 0xE) != 0) return fail(mad::sa_status::req_invalid);
  }
  // Create: the mandatory components (IBA 15.2.5.17 o15-0.2.3), a full member.
  constexpr uint64_t kCreate = M::c_qkey | M::c_pkey | M::c_sl | M::c_flow_label | M::c_tclass;
  if ((mask & kCreate) != kCreate) return fail(mad::sa_status::insufficient_components);
  if (!(q.join_state & mad::join_state::full) || (q.join_state & kSendOnly))
    return fail(mad::sa_status::req_invalid);
  if ((q.pkey & 0x7FFF) == 0 || !in_partition(q.pkey)) return fail(mad::sa_status::req_invalid);  // an MLID given is the SA's to choose
  GroupParams p;
  p.qkey = q.qkey;
  p.pkey = q.pkey;
  p.sl = q.sl;
  p.flow_label = q.flow_label;
  p.tclass = q.tclass;
  p.pkt_life = cfg_.pkt_life;
  auto sel = [&](uint64_t sel_bit, uint8_t s) { return (mask & sel_bit) ? s : mad::selector::exactly; };
  p.mtu = (mask & M::c_mtu) ? pick_mtu(sel(M::c_mtu_selector, q.mtu_selector), q.mtu) : 4;
  p.rate = (mask & M::c_rate) ? pick_rate(sel(M::c_rate_selector, q.rate_selector), q.rate) : mad::rate::r10;
  if (p.mtu == 0 || p.rate == 0) return fail(mad::sa_status::req_invalid);
  if ((mask & M::c_pkt_life) && sel(M::c_pkt_life_selector, q.pkt_life_selector) == mad::selector::exactly)
    p.pkt_life = q.pkt_life;
  if (zero_mgid) {
    p.scope = (mask & M::c_scope) ? q.scope : 2;
  } else {
    p.scope = q.mgid.mc_scope();
    if ((mask & M::c_scope) && q.scope != p.scope) return fail(mad::sa_status::req_invalid);
  }
  p.hop_limit = (mask & M::c_hop_limit) ? q.hop_limit : (p.scope == 2 ? 0 : 0xFF);
  const mad::Gid mgid = zero_mgid ? groups_.unused_mgid(p.scope, cfg_.subnet_prefix) : q.mgid;
  auto g = groups_.create(mgid, p, false);
  if (!g) return fail(mad::sa_status::no_resources);
  groups_.set_member(mgid, q.port_gid, q.join_state);
  return one(record_of(**g, q.port_gid, q.join_state, ix.multicast_sl()));
}

sa::Records McMemberHandler::leave(const M& q, uint64_t mask, const sa::Index& ix) {
  // A port that left the subnet may still leave its groups: `ix` only gives the SL.
  if (!(mask & M::c_mgid) || !(mask & M::c_port_gid) || !(mask & M::c_join_state))
    return fail(mad::sa_status::insufficient_components);
  Group* g = groups_.find(q.mgid);
  if (!g) return fail(mad::sa_status::req_invalid);
  auto it = g->members.find(q.port_gid);
  if (it == g->members.end() || (it->second & q.join_state) == 0 || q.join_state > 0xF)
    return fail(mad::sa_status::req_invalid);
  const M answer = record_of(*g, q.port_gid, q.join_state, ix.multicast_sl());
  groups_.set_member(q.mgid, q.port_gid, static_cast<uint8_t>(it->second & ~q.join_state));
  if (!g->kept && !g->has_full_member()) groups_.erase(q.mgid);
  return one(answer);
}

}  // namespace sm::multicast
