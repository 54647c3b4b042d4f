#include "sm/sa/services.h"

#include <algorithm>

#include "sm/partitions/pkey_match.h"

namespace sm::sa {

namespace {

using mad::ServiceRecord;
constexpr uint64_t kKeyMask = ServiceRecord::c_id | ServiceRecord::c_gid;

std::vector<uint8_t> encode(const ServiceRecord& r) {
  std::vector<uint8_t> b(ServiceRecord::kSize);
  r.encode(b);
  return b;
}

}  // namespace

int64_t Clocks::to_wall(mad::Nanos t) const {
  return wall_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(t - mono.now()).count();
}

mad::Nanos Clocks::from_wall(int64_t ms) const { return mono.now() + std::chrono::milliseconds(ms - wall_ms()); }

size_t Services::claims(uint16_t attr_id) const {
  return attr_id == mad::sa_attr::service_record ? ServiceRecord::kSize : 0;
}

Services::Key Services::key_of(const ServiceRecord& r) {
  const auto b = encode(r);
  Key k{};
  std::copy(b.begin(), b.begin() + 26, k.begin());  // ID 0-7, GID 8-23, P_Key 24-25
  return k;
}

void Services::changed(const Key& k, const Entry* e) {
  if (!on_change) return;
  store::SaObject o{kKind, {k.begin(), k.end()}, {}, 0};
  if (e) {
    o.record = encode(e->rec);
    if (e->expires) o.expires_ms = std::max<int64_t>(1, clocks_.to_wall(*e->expires));
  }
  on_change(std::move(o));
}

void Services::expire() {
  const mad::Nanos now = clocks_.mono.now();
  for (auto it = records_.begin(); it != records_.end();) {
    if (it->second.expires && *it->second.expires <= now) {
      changed(it->first, nullptr);
      it = records_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<mad::Nanos> Services::next_expiry() const {
  std::optional<mad::Nanos> d;
  for (const auto& [k, e] : records_)
    if (e.expires && (!d || *e.expires < *d)) d = e.expires;
  return d;
}

std::vector<uint8_t> Services::encode_live(const Entry& e) const {
  ServiceRecord r = e.rec;
  if (e.expires) {  // what is left, rounded up: a record still here has at least a second
    const auto left = std::chrono::ceil<std::chrono::seconds>(*e.expires - clocks_.mono.now()).count();
    r.lease = static_cast<uint32_t>(std::clamp<int64_t>(left, 0, ServiceRecord::kInfiniteLease - 1));
  }
  return encode(r);
}

Records Services::handle(const Request& req, const Index& ix) {
  expire();
  const mad::SaMad& m = req.mad;
  if (mad::unknown_components(m.comp_mask, ServiceRecord::components().size()))
    return refused(mad::sa_status::req_invalid);
  const Endport* who = ix.by_lid(req.from.lid);
  switch (m.header.method) {
    case mad::sa_method::set: return set(m, ix, who);
    case mad::sa_method::del: return del(m);
    case mad::sa_method::get:
    case mad::sa_method::get_table: return get(m, ix, who);
    default: return refused(mad::status::unsupported_method_attr);
  }
}

Records Services::set(const mad::SaMad& m, const Index& ix, const Endport* who) {
  // The record's identity must be named; the P_Key defaults to the default partition's.
  if ((m.comp_mask & kKeyMask) != kKeyMask) return refused(mad::sa_status::insufficient_components);
  auto rec = ServiceRecord::decode(m.data);
  if (!rec) return refused(mad::sa_status::req_invalid);
  if (!(m.comp_mask & ServiceRecord::c_pkey)) rec->pkey = 0xFFFF;
  if (!(m.comp_mask & ServiceRecord::c_lease)) rec->lease = ServiceRecord::kInfiniteLease;
  if (rec->gid.is_zero() || rec->gid.is_multicast()) return refused(mad::sa_status::req_invalid);
  if (!ix.by_guid(mad::Guid(rec->gid.interface_id()))) return refused(mad::sa_status::invalid_gid);
  if (who && !holds_pkey(ix.pkeys(*who), rec->pkey)) return refused(mad::sa_status::req_invalid);  // not its partition
  const Key k = key_of(*rec);
  if (!records_.count(k) && records_.size() >= kMaxRecords) return refused(mad::sa_status::no_resources);
  Entry e{*rec, std::nullopt};
  if (rec->lease != ServiceRecord::kInfiniteLease) e.expires = clocks_.mono.now() + std::chrono::seconds(rec->lease);
  records_.insert_or_assign(k, e);
  changed(k, &e);
  return Records{0, {encode(*rec)}};
}

Records Services::del(const mad::SaMad& m) {
  if ((m.comp_mask & kKeyMask) != kKeyMask) return refused(mad::sa_status::insufficient_components);
  auto rec = ServiceRecord::decode(m.data);
  if (!rec) return refused(mad::sa_status::req_invalid);
  if (!(m.comp_mask & ServiceRecord::c_pkey)) rec->pkey = 0xFFFF;
  auto it = records_.find(key_of(*rec));
  if (it == records_.end()) return Records{};  // NO_RECORDS
  Records out{0, {encode_live(it->second)}};
  changed(it->first, nullptr);
  records_.erase(it);
  return out;
}

Records Services::get(const mad::SaMad& m, const Index& ix, const Endport* who) {
  Records out;
  const auto fields = ServiceRecord::components();
  for (const auto& [k, e] : records_) {
    if (who && !holds_pkey(ix.pkeys(*who), e.rec.pkey)) continue;  // a partition it is not in
    auto rec = encode_live(e);
    // The lease is compared as granted, not as what is left of it.
    auto granted = encode(e.rec);
    if (mad::components_match(m.data, granted, m.comp_mask, fields)) out.records.push_back(std::move(rec));
  }
  return out;
}

size_t Services::load(const std::vector<store::SaObject>& objects) {
  size_t n = 0;
  records_.clear();
  const int64_t now = clocks_.wall_ms();
  for (const store::SaObject& o : objects) {
    if (o.kind != kKind) continue;
    auto rec = ServiceRecord::decode(o.record);
    if (o.record.size() != ServiceRecord::kSize || !rec || (o.expires_ms != 0 && o.expires_ms <= now)) {
      if (on_change) on_change(store::SaObject{kKind, o.key, {}, 0});  // ran out while no SM kept it
      continue;
    }
    Entry e{*rec, std::nullopt};
    if (o.expires_ms != 0) e.expires = clocks_.from_wall(o.expires_ms);
    records_.insert_or_assign(key_of(*rec), e);
    ++n;
  }
  return n;
}

}  // namespace sm::sa
