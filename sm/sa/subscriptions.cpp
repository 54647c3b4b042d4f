#include "sm/sa/subscriptions.h"

#include <set>

namespace sm::sa {

namespace {

using mad::InformInfo;
using mad::InformInfoRecord;

constexpr size_t kStoredSize = InformInfoRecord::kSize + 2;  // the record, then the LID

bool wild_or(uint32_t want, uint32_t have, uint32_t wildcard) { return want == wildcard || want == have; }

}  // namespace

size_t Subscriptions::claims(uint16_t attr_id) const {
  if (attr_id == mad::sa_attr::inform_info) return InformInfo::kSize;
  if (attr_id == mad::sa_attr::inform_info_record) return InformInfoRecord::kSize;
  return 0;
}

Subscriptions::Key Subscriptions::key_of(const mad::Gid& subscriber, const InformInfo& info) {
  InformInfo i = info;
  i.subscribe = false;
  i.resp_time = 0;
  Key k(16 + InformInfo::kSize);
  subscriber.encode(std::span(k).first(16));
  i.encode(std::span(k).subspan(16));
  return k;
}

std::vector<uint8_t> Subscriptions::encode(const Subscription& s) {
  InformInfoRecord r;
  r.subscriber_gid = s.subscriber;
  r.enumeration = s.enumeration;
  r.info = s.info;
  r.info.subscribe = true;
  std::vector<uint8_t> b(InformInfoRecord::kSize);
  r.encode(b);
  return b;
}

void Subscriptions::changed(const Key& k, const Subscription* s) {
  if (!on_change) return;
  store::SaObject o{kKind, k, {}, 0};
  if (s) {
    o.record = encode(*s);
    o.record.push_back(static_cast<uint8_t>(s->lid.value() >> 8));
    o.record.push_back(static_cast<uint8_t>(s->lid.value()));
  }
  on_change(std::move(o));
}

Records Subscriptions::handle(const Request& req, const Index& ix) {
  const mad::SaMad& m = req.mad;
  if (m.header.attr_id == mad::sa_attr::inform_info) {
    // InformInfo is only ever Set (IBA Table 207); there is nothing to Get.
    if (m.header.method != mad::sa_method::set) return refused(mad::status::unsupported_method_attr);
    return set(req, ix);
  }
  if (m.header.method != mad::sa_method::get && m.header.method != mad::sa_method::get_table)
    return refused(mad::status::unsupported_method_attr);
  if (mad::unknown_components(m.comp_mask, InformInfoRecord::components().size()))
    return refused(mad::sa_status::req_invalid);
  return records(m);
}

Records Subscriptions::set(const Request& req, const Index& ix) {
  auto info = InformInfo::decode(std::span(req.mad.data).first(InformInfo::kSize));
  if (!info) return refused(mad::sa_status::req_invalid);
  const Endport* who = ix.by_lid(req.from.lid);
  if (!who) return refused(mad::sa_status::req_invalid);  // Reports would have nowhere to go
  if (info->lid_begin.value() != 0xFFFF && info->lid_begin.value() > info->lid_end.value())
    return refused(mad::sa_status::req_invalid);
  if (info->qpn == 0) return refused(mad::sa_status::req_invalid);  // Reports are GMPs, never QP0
  const mad::Gid subscriber(prefix_, who->guid.value());
  const Key k = key_of(subscriber, *info);
  auto it = subs_.find(k);
  if (!info->subscribe) {
    if (it == subs_.end()) return refused(mad::sa_status::req_invalid);  // nothing to cancel
    changed(k, nullptr);
    subs_.erase(it);
  } else if (it != subs_.end()) {
    it->second.info.resp_time = info->resp_time;
    it->second.lid = who->lid;
    changed(k, &it->second);
  } else {
    if (subs_.size() >= kMax) return refused(mad::sa_status::no_resources);
    std::set<uint16_t> used;
    for (const auto& [key, s] : subs_)
      if (s.subscriber == subscriber) used.insert(s.enumeration);
    uint16_t e = 0;
    while (used.count(e)) ++e;
    Subscription s{subscriber, who->lid, e, *info};
    s.info.subscribe = true;
    auto [pos, _] = subs_.emplace(k, s);
    changed(k, &pos->second);
  }
  std::vector<uint8_t> echo(InformInfo::kSize);
  info->encode(echo);
  return Records{0, {std::move(echo)}};
}

Records Subscriptions::records(const mad::SaMad& m) const {
  Records out;
  for (const auto& [k, s] : subs_) {
    auto rec = encode(s);
    if (mad::components_match(m.data, rec, m.comp_mask, InformInfoRecord::components()))
      out.records.push_back(std::move(rec));
  }
  return out;
}

std::vector<const Subscription*> Subscriptions::matching(const mad::Notice& n) const {
  std::vector<const Subscription*> out;
  const mad::Gid issuer = mad::Gid::decode(n.issuer_gid);
  for (const auto& [k, s] : subs_) {
    const InformInfo& i = s.info;
    if (!i.gid.is_zero()) {
      if (i.gid != issuer) continue;
    } else if (i.lid_begin.value() != 0xFFFF &&
               (n.issuer_lid.value() < i.lid_begin.value() || n.issuer_lid.value() > i.lid_end.value())) {
      continue;
    }
    if (i.is_generic != n.is_generic) continue;
    if (!wild_or(i.type, n.type, 0xFFFF)) continue;
    if (!wild_or(i.trap_or_device, n.trap_or_device_id, 0xFFFF)) continue;
    if (!wild_or(i.producer_or_vendor, n.producer_or_vendor, 0xFFFFFF)) continue;
    out.push_back(&s);
  }
  return out;
}

size_t Subscriptions::drop_subscriber(const mad::Gid& port) {
  size_t n = 0;
  for (auto it = subs_.begin(); it != subs_.end();) {
    if (it->second.subscriber == port) {
      changed(it->first, nullptr);
      it = subs_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

size_t Subscriptions::load(const std::vector<store::SaObject>& objects) {
  size_t n = 0;
  subs_.clear();
  for (const store::SaObject& o : objects) {
    if (o.kind != kKind || o.record.size() != kStoredSize) continue;
    auto r = InformInfoRecord::decode(std::span(o.record).first(InformInfoRecord::kSize));
    if (!r) continue;
    Subscription s{r->subscriber_gid,
                   mad::Lid(static_cast<uint16_t>(o.record[kStoredSize - 2] << 8 | o.record[kStoredSize - 1])),
                   r->enumeration, r->info};
    subs_.insert_or_assign(key_of(s.subscriber, s.info), s);
    ++n;
  }
  return n;
}

}  // namespace sm::sa
