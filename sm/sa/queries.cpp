#include "sm/sa/queries.h"

#include <algorithm>

#include "mad/sa_fields.h"
#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "mad/sa_service_records.h"
#include "sm/partitions/pkey_match.h"

namespace sm::sa {

namespace {

using mad::PathRecord;
using mad::SaMad;

// The most PathRecords one GetTable may produce: a query naming neither end is refused, one
// naming a single end gets a row per port (the largest subnet: 48k).
constexpr size_t kMaxRecords = 1u << 20;

struct Result {
  uint16_t status = mad::status::ok;
  std::vector<std::vector<uint8_t>> records;  // each exactly the attribute's size
};

Result fail(uint16_t status) { return Result{status, {}}; }

// Whether `requester` may see end port `e`: it is that port, or shares a partition with it
// (as OpenSM answers requesters without an SM_Key). No requester known (its LID is no end
// port's), or no such port: not filtered.
bool sees(const Index& ix, const Endport* requester, const Endport* e) {
  return !requester || !e || e == requester || common_pkey(ix.pkeys(*requester), ix.pkeys(*e)).has_value();
}

// Records of a kind whose every ComponentMask field equals the query's. A mask that names
// the LID field (bit 0 in every record here) reaches the LID's records directly. With
// `requester`, only records of ports it shares a partition with (sees()).
Result filter(const Index::Records& recs, std::span<const uint8_t> query, uint64_t mask,
              std::span<const mad::FieldSpec> fields, const Index* ix = nullptr,
              const Endport* requester = nullptr) {
  if (mad::unknown_components(mask, fields.size())) return fail(mad::sa_status::req_invalid);
  Result r;
  auto consider = [&](size_t i) {
    if (!mad::components_match(query, recs.at(i), mask, fields)) return;
    if (requester &&
        !sees(*ix, requester, ix->by_lid(mad::Lid(static_cast<uint16_t>(mad::get_field(recs.at(i), fields[0]))))))
      return;
    r.records.emplace_back(recs.at(i).begin(), recs.at(i).end());
  };
  if (mask & 1) {
    auto it = recs.by_lid.find(static_cast<uint16_t>(mad::get_field(query, fields[0])));
    if (it != recs.by_lid.end())
      for (uint32_t i : it->second) consider(i);
  } else {
    for (size_t i = 0; i < recs.count(); ++i) consider(i);
  }
  return r;
}

// LFTRecords, made from the programmed tables as they are asked for; LID and block in the
// mask reach their switch and block directly.
Result lft_records(const Index& ix, std::span<const uint8_t> query, uint64_t mask) {
  const auto fields = mad::LftRecord::components();
  if (mad::unknown_components(mask, fields.size())) return fail(mad::sa_status::req_invalid);
  Result r;
  std::span<const Index::LftSwitch> sws = ix.lft_switches();
  if (mask & 1) {
    const Index::LftSwitch* s = ix.lft_switch(mad::Lid(static_cast<uint16_t>(mad::get_field(query, fields[0]))));
    sws = s ? std::span<const Index::LftSwitch>(s, 1) : std::span<const Index::LftSwitch>();
  }
  uint32_t first = 0, last = ix.lft_blocks();
  if (mask & 2) {
    first = static_cast<uint32_t>(mad::get_field(query, fields[1]));
    last = std::min<uint32_t>(last, first + 1);
  }
  std::vector<uint8_t> rec(mad::LftRecord::kSize);
  for (const Index::LftSwitch& s : sws) {
    for (uint32_t b = first; b < last; ++b) {
      std::fill(rec.begin(), rec.end(), 0);
      ix.lft_record(s, static_cast<uint16_t>(b)).encode(rec);
      if (mad::components_match(query, rec, mask, fields)) r.records.push_back(rec);
      if (r.records.size() >= kMaxRecords) return r;
    }
  }
  return r;
}

// Selector comparisons (IBA 15.2.5.16): 0 greater than, 1 less than, 2 exactly, 3 best.
bool selected(uint8_t selector, unsigned have, unsigned want) {
  switch (selector) {
    case 0: return have > want;
    case 1: return have < want;
    case 2: return have == want;
    default: return true;
  }
}

std::vector<const Endport*> ends(const Index& ix, uint64_t mask, uint64_t lid_bit, uint64_t gid_bit, mad::Lid lid,
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
void apply_level(const qos::Level& l, PathRecord& p, unsigned hops, bool take_sl) {
  if (take_sl) p.sl = l.sl;
  if (l.mtu_limit && p.mtu > *l.mtu_limit) p.mtu = *l.mtu_limit;
  if (l.rate_limit && mad::rate::tenths_gbps(p.rate) > mad::rate::tenths_gbps(*l.rate_limit)) p.rate = *l.rate_limit;
  if (l.packet_life && hops != 0) p.pkt_life = *l.packet_life;
}

// `requester`: the port the query came from, when the index knows it: it sees only paths
// between ports it shares a partition with, or is (as OpenSM answers). `policy`: the QoS
// policy; its SLs unless the routing engine gives SLs (those keep its routes free of deadlock).
Result path_records(const Index& ix, std::span<const uint8_t> data, uint64_t mask, uint64_t prefix,
                    const Endport* requester, const qos::Policy* policy) {
  if (mad::unknown_components(mask, PathRecord::components().size())) return fail(mad::sa_status::req_invalid);
  auto q = PathRecord::decode(data);
  if (!q) return fail(mad::sa_status::req_invalid);
  const bool src_given = mask & (PathRecord::c_slid | PathRecord::c_sgid);
  const bool dst_given = mask & (PathRecord::c_dlid | PathRecord::c_dgid);
  if (!src_given && !dst_given) return fail(mad::sa_status::insufficient_components);
  uint16_t status = mad::status::ok;
  const auto srcs = ends(ix, mask, PathRecord::c_slid, PathRecord::c_sgid, q->slid, q->sgid, &status);
  const auto dsts = ends(ix, mask, PathRecord::c_dlid, PathRecord::c_dgid, q->dlid, q->dgid, &status);
  if (status != mad::status::ok) return fail(status);
  const bool policy_sls = policy && !ix.engine_sls();
  qos::Query match;
  if (mask & (PathRecord::c_service_id_msb | PathRecord::c_service_id_lsb)) match.service_id = q->service_id;
  if (mask & PathRecord::c_pkey) match.pkey = q->pkey;
  if (mask & PathRecord::c_qos_class) match.qos_class = q->qos_class;
  qos::PortFacts src_facts, dst_facts;
  auto visible = [&](const Endport* e) {
    return sees(ix, requester, e);
  };
  Result r;
  for (const Endport* s : srcs) {
    if (!visible(s)) continue;
    if (policy) src_facts = ix.facts(*s);
    for (const Endport* d : dsts) {
      if (!visible(d)) continue;
      // A path exists only within a partition both ends share (sm/partitions/pkey_match.h);
      // a P_Key the requester names is answered as given, as OpenSM does.
      const auto pkey = (mask & PathRecord::c_pkey) ? shared_pkey(ix.pkeys(*s), ix.pkeys(*d), q->pkey)
                                                    : common_pkey(ix.pkeys(*s), ix.pkeys(*d));
      if (!pkey) continue;
      // The routing's SL (VL layers: the one that keeps this route's layer acyclic; else 0); a
      // requester asking for another SL gets no path (with a policy's SLs: checked below).
      const uint8_t sl = ix.sl(*s, *d);
      if (!policy_sls && (mask & PathRecord::c_sl) && q->sl != sl) continue;
      auto pi = ix.path(*s, *d);
      if (!pi) continue;
      PathRecord p;
      // What the requester chose is echoed; the path's properties are the fabric's.
      p.service_id = (mask & (PathRecord::c_service_id_msb | PathRecord::c_service_id_lsb)) ? q->service_id : 0;
      p.sgid = mad::Gid(prefix, s->guid.value());
      p.dgid = mad::Gid(prefix, d->guid.value());
      p.slid = s->lid;
      p.dlid = d->lid;
      p.raw_traffic = q->raw_traffic && (mask & PathRecord::c_raw_traffic);
      p.flow_label = (mask & PathRecord::c_flow_label) ? q->flow_label : 0;
      p.hop_limit = (mask & PathRecord::c_hop_limit) ? q->hop_limit : 0;
      p.tclass = (mask & PathRecord::c_tclass) ? q->tclass : 0;
      p.reversible = true;  // LFT routes are symmetric enough for any reply: every pair is routed
      p.pkey = (mask & PathRecord::c_pkey) ? q->pkey : *pkey;
      p.sl = sl;
      p.mtu_selector = p.rate_selector = p.pkt_life_selector = 2;
      p.mtu = pi->mtu;
      p.rate = pi->rate;
      p.pkt_life = pi->hops == 0 ? 0 : ix.packet_life();  // to itself: nothing crossed
      if (policy) {
        dst_facts = ix.facts(*d);
        match.source = &src_facts;
        match.destination = &dst_facts;
        apply_level(qos::level_for(*policy, match), p, pi->hops, policy_sls);
        if (policy_sls && (mask & PathRecord::c_sl) && q->sl != p.sl) continue;
      }
      if ((mask & PathRecord::c_mtu) &&
          !selected((mask & PathRecord::c_mtu_selector) ? q->mtu_selector : 2, p.mtu, q->mtu))
        continue;
      if ((mask & PathRecord::c_rate) &&
          !selected((mask & PathRecord::c_rate_selector) ? q->rate_selector : 2, mad::rate::tenths_gbps(p.rate),
                    mad::rate::tenths_gbps(q->rate)))
        continue;
      if ((mask & PathRecord::c_pkt_life) &&
          !selected((mask & PathRecord::c_pkt_life_selector) ? q->pkt_life_selector : 2, p.pkt_life, q->pkt_life))
        continue;
      if ((mask & PathRecord::c_reversible) && q->reversible && !p.reversible) continue;
      std::vector<uint8_t> rec(PathRecord::kSize);
      p.encode(rec);
      r.records.push_back(std::move(rec));
      if (r.records.size() >= kMaxRecords) return r;
    }
  }
  return r;
}

mad::ClassPortInfo class_port_info() {
  mad::ClassPortInfo c;
  c.base_version = 1;
  c.class_version = mad::kSaClassVersion;
  c.resp_time = 18;  // 4.096 us * 2^18 = 1.07 s, as the SM's other timeouts
  // CapabilityMask2 IsMulticastFDBTopSupported (IBA 1.3 Table 205): SwitchInfoRecords carry
  // the switch's MulticastFDBTop (saquery shows it only then).
  c.capability_mask2 = 1u << 3;
  return c;
}

}  // namespace

Answer answer_query(const Index* ix, std::span<Handler* const> handlers, const mad::MadBytes& request,
                    const mad::MadAddress& from, uint64_t subnet_prefix, const qos::Policy* qos_policy) {
  Answer a;
  auto req = mad::decode_sa_mad(request);
  if (!req || mad::method::is_response(req->header.method)) return a;  // nothing to answer
  a.respond = true;
  SaMad& out = a.response;
  out.header = req->header;
  out.header.status = mad::status::ok;
  out.header.class_specific = 0;
  out.comp_mask = req->comp_mask;
  const uint8_t method = req->header.method;
  const uint16_t attr = req->header.attr_id;
  auto error = [&](uint16_t status) {
    out.header.method = static_cast<uint8_t>(method == mad::sa_method::get_table ? mad::sa_method::get_table_resp
                                                                                  : (method | 0x80));
    out.header.status = status;
    return a;
  };
  if (req->header.base_version != 1 || req->header.class_version != mad::kSaClassVersion)
    return error(mad::status::bad_version);
  const bool reads = method == mad::sa_method::get || method == mad::sa_method::get_table;
  if (!reads && method != mad::sa_method::set && method != mad::sa_method::del)
    return error(mad::status::unsupported_method);
  if (!ix) return error(mad::status::busy);

  const std::span<const uint8_t> data(req->data);
  const Endport* requester = ix->by_lid(from.lid);
  Result r;
  size_t size = 0;
  Handler* handler = nullptr;
  for (Handler* h : handlers)
    if (size_t s = h->claims(attr)) {
      handler = h;
      size = s;
      break;
    }
  if (!handler && !reads) return error(mad::status::unsupported_method_attr);
  if (handler) {
    Records got = handler->handle(Request{*req, from}, *ix);
    r.status = got.status;
    r.records = std::move(got.records);
  } else switch (attr) {
    case mad::sa_attr::class_port_info: {
      if (method != mad::sa_method::get) return error(mad::status::unsupported_method_attr);
      size = mad::ClassPortInfo::kSize;
      std::vector<uint8_t> rec(size);
      class_port_info().encode(rec);
      r.records.push_back(std::move(rec));
      break;
    }
    case mad::sa_attr::node_record:
      size = mad::NodeRecord::kSize;
      r = filter(ix->node_records(), data, req->comp_mask, mad::NodeRecord::components(), ix, requester);
      break;
    case mad::sa_attr::port_info_record:
      size = mad::PortInfoRecord::kSize;
      r = filter(ix->port_records(), data, req->comp_mask, mad::PortInfoRecord::components(), ix, requester);
      break;
    case mad::sa_attr::sm_info_record:
      size = mad::SmInfoRecord::kSize;
      r = filter(ix->sm_info_records(), data, req->comp_mask, mad::SmInfoRecord::components());
      break;
    case mad::sa_attr::switch_info_record:
      size = mad::SwitchInfoRecord::kSize;
      r = filter(ix->switch_info_records(), data, req->comp_mask, mad::SwitchInfoRecord::components());
      break;
    case mad::sa_attr::link_record:
      size = mad::LinkRecord::kSize;
      r = filter(ix->link_records(), data, req->comp_mask, mad::LinkRecord::components());
      break;
    case mad::sa_attr::guid_info_record:
      size = mad::GuidInfoRecord::kSize;
      r = filter(ix->guid_info_records(), data, req->comp_mask, mad::GuidInfoRecord::components());
      break;
    case mad::sa_attr::lft_record:
      size = mad::LftRecord::kSize;
      r = lft_records(*ix, data, req->comp_mask);
      break;
    case mad::sa_attr::pkey_table_record:
      size = mad::PKeyTableRecord::kSize;
      r = filter(ix->pkey_records(), data, req->comp_mask, mad::PKeyTableRecord::components(), ix, requester);
      break;
    case mad::sa_attr::path_record:
      size = PathRecord::kSize;
      r = path_records(*ix, data, req->comp_mask, subnet_prefix, requester, qos_policy);
      break;
    default:
      return error(mad::status::unsupported_method_attr);
  }
  if (r.status != mad::status::ok) return error(r.status);
  out.attr_offset = attr == mad::sa_attr::class_port_info ? 0 : mad::attr_offset_for(size);
  if (method != mad::sa_method::get_table) {  // Get, Set, Delete: one record
    if (r.records.empty()) return error(mad::sa_status::no_records);
    if (r.records.size() > 1) return error(mad::sa_status::too_many_records);
    out.header.method = method == mad::sa_method::del ? mad::sa_method::del_resp : mad::sa_method::get_resp;
    std::copy(r.records[0].begin(), r.records[0].end(), out.data.begin());
    return a;
  }
  out.header.method = mad::sa_method::get_table_resp;
  a.rmpp = true;
  const size_t stride = size_t{out.attr_offset} * 8;
  a.payload.assign(r.records.size() * stride, 0);
  for (size_t i = 0; i < r.records.size(); ++i)
    std::copy(r.records[i].begin(), r.records[i].end(), a.payload.begin() + static_cast<ptrdiff_t>(i * stride));
  return a;
}

}  // namespace sm::sa
