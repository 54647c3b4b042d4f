#include "sm/sa/queries.h"

#include <algorithm>

#include "mad/sa_fields.h"
#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "mad/sa_service_records.h"
#include "sm/sa/paths.h"

namespace sm::sa {

namespace {

using mad::PathRecord;
using mad::SaMad;

using Result = Records;

Result fail(uint16_t status) { return Result{status, {}}; }

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

mad::ClassPortInfo class_port_info() {
  mad::ClassPortInfo c;
  c.base_version = 1;
  c.class_version = mad::kSaClassVersion;
  c.resp_time = 18;  // 4.096 us * 2^18 = 1.07 s, as the SM's other timeouts
  // CapabilityMask2 IsMulticastFDBTopSupported (IBA 1.3 Table 205): SwitchInfoRecords carry
  // the switch's MulticastFDBTop (saquery shows it only then).
  c.capability_mask2 = 1u << 3;
  // IsMultiPathSupported: GetMulti(MultiPathRecord) is answered (sm/sa/paths.h).
  c.capability_mask = mad::sa_cap::is_multipath_supported;
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
    out.header.attr_id = attr;  // echoed, as OpenSM's errors: only GetMulti's answers are PathRecords
    out.header.status = status;
    return a;
  };
  if (req->header.base_version != 1 || req->header.class_version != mad::kSaClassVersion)
    return error(mad::status::bad_version);
  // GetMulti: MultiPathRecord only, answered with PathRecords (IBA o15-0.2.7, as OpenSM).
  const bool multi = attr == mad::sa_attr::multipath_record;
  if (multi) out.header.attr_id = mad::sa_attr::path_record;
  if (method == mad::sa_method::get_multi && !multi) return error(mad::status::unsupported_method_attr);
  if (multi && method != mad::sa_method::get_multi)
    return error(method == mad::sa_method::get || method == mad::sa_method::get_table || method == mad::sa_method::set ||
                         method == mad::sa_method::del
                     ? mad::status::unsupported_method_attr
                     : mad::status::unsupported_method);
  const bool reads = method == mad::sa_method::get || method == mad::sa_method::get_table || multi;
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
      r = path_records(*ix, method, data, req->comp_mask, subnet_prefix, requester, qos_policy);
      break;
    case mad::sa_attr::multipath_record:
      size = PathRecord::kSize;
      r = multipath_records(*ix, *req, subnet_prefix, requester, qos_policy);
      break;
    default:
      return error(mad::status::unsupported_method_attr);
  }
  if (r.status != mad::status::ok) return error(r.status);
  out.attr_offset = attr == mad::sa_attr::class_port_info ? 0 : mad::attr_offset_for(size);
  if (method != mad::sa_method::get_table && !multi) {  // Get, Set, Delete: one record
    if (r.records.empty()) return error(mad::sa_status::no_records);
    if (r.records.size() > 1) return error(mad::sa_status::too_many_records);
    out.header.method = method == mad::sa_method::del ? mad::sa_method::del_resp : mad::sa_method::get_resp;
    std::copy(r.records[0].begin(), r.records[0].end(), out.data.begin());
    return a;
  }
  out.header.method = multi ? mad::sa_method::get_multi_resp : mad::sa_method::get_table_resp;
  a.rmpp = true;
  const size_t stride = size_t{out.attr_offset} * 8;
  a.payload.assign(r.records.size() * stride, 0);
  for (size_t i = 0; i < r.records.size(); ++i)
    std::copy(r.records[i].begin(), r.records[i].end(), a.payload.begin() + static_cast<ptrdiff_t>(i * stride));
  return a;
}

}  // namespace sm::sa
