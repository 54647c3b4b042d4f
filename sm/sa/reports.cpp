#include "sm/sa/reports.h"

#include "mad/sa_records.h"

namespace sm::sa {

namespace {

constexpr uint64_t kTidHigh = uint64_t{0x52505254} << 32;  // "RPRT"

// The SM's LID and port GUID, as its SMInfoRecord in the index says.
std::pair<Lid, Guid> sm_port(const Index& ix) {
  if (ix.sm_info_records().count() == 0) return {};
  auto r = mad::SmInfoRecord::decode(ix.sm_info_records().at(0));
  if (!r) return {};
  return {r->lid, r->info.guid};
}

}  // namespace

Reporter::Reporter(mad::Transport& t, Subscriptions& subs, Logger& log, ReporterConfig cfg)
    : transport_(t), subs_(subs), log_(log), cfg_(cfg) {}

mad::Notice Reporter::gid_notice(uint16_t trap, Guid port) const {
  mad::Notice n;
  n.is_generic = true;
  n.type = mad::notice_type::subnet_management;
  n.producer_or_vendor = mad::producer_type::class_manager;
  n.trap_or_device_id = trap;
  const auto [lid, guid] = index_ ? sm_port(*index_) : std::pair<Lid, Guid>{};
  n.issuer_lid = lid;  // the SM issues it, about `port` (IBA 13.4.8.2 / Table 150)
  mad::Gid(cfg_.subnet_prefix, guid.value()).encode(n.issuer_gid);
  mad::Gid(cfg_.subnet_prefix, port.value()).encode(std::span(n.data_details).subspan(6, 16));
  return n;
}

Reporter::Changes Reporter::changes(const Index* before, const Index& after) {
  Changes c;
  if (!before) return c;
  for (const Endport& e : before->endports())
    if (!after.by_guid(e.guid)) c.gone.push_back(e.guid);
  for (const Endport& e : after.endports())
    if (!before->by_guid(e.guid)) c.came.push_back(e.guid);
  return c;
}

void Reporter::on_index(const Index* before, std::shared_ptr<const Index> after) {
  if (!before || !after) {
    index_ = std::move(after);
    return;
  }
  const Changes c = changes(before, *after);
  on_index(std::move(after), c);
}

void Reporter::on_index(std::shared_ptr<const Index> after, const Changes& c) {
  index_ = std::move(after);
  const std::vector<Guid>& gone = c.gone;
  const std::vector<Guid>& came = c.came;
  // A port gone takes its subscriptions along first: nothing is reported to it.
  for (Guid g : gone)
    if (size_t n = subs_.drop_subscriber(mad::Gid(cfg_.subnet_prefix, g.value())))
      log_.info(code::subscriptions_dropped, "SA: port {} out of service: its {} subscription(s) dropped", g, n);
  for (Guid g : gone) {
    log_.info(code::trap_65_sent, "SA: port {} out of service: trap 65 to the subscribers", g);
    report(gid_notice(mad::trap::gid_out_of_service, g));
  }
  for (Guid g : came) {
    log_.info(code::trap_64_sent, "SA: port {} in service: trap 64 to the subscribers", g);
    report(gid_notice(mad::trap::gid_in_service, g));
  }
}

void Reporter::on_notice(const mad::Notice& in) {
  if (!index_) return;  // not master, or no subnet yet: no one to forward to
  mad::Notice n = in;
  // An SMP's Notice has no room for the IssuerGID: it is the issuing port's.
  if (mad::Gid::decode(n.issuer_gid).is_zero())
    if (const Endport* e = index_->by_lid(n.issuer_lid))
      mad::Gid(cfg_.subnet_prefix, e->guid.value()).encode(n.issuer_gid);
  report(n);
}

void Reporter::report(const mad::Notice& n) {
  for (const Subscription* s : subs_.matching(n)) {
    if (pending_.size() >= cfg_.max_pending) {
      ++stats_.dropped;
      log_.warn(code::reports_unanswered, "SA: {} Reports unanswered; trap {} not reported to {}", pending_.size(), n.trap_or_device_id,
                s->subscriber.guid());
      continue;
    }
    const Endport* e = index_ ? index_->by_guid(s->subscriber.guid()) : nullptr;
    mad::SaMad m;
    m.header.method = mad::sa_method::report;
    m.header.attr_id = mad::sa_attr::notice;
    const uint32_t tid = next_tid_++;
    m.header.tid = kTidHigh | tid;
    n.encode(std::span(m.data).first(mad::Notice::kSize));
    mad::Packet p;
    p.mad = mad::encode_sa_mad(m);
    p.addr.lid = e ? e->lid : s->lid;
    p.addr.qpn = s->info.qpn;
    p.addr.qkey = mad::kGsiQkey;
    if (auto r = transport_.send(p); !r) log_.debug(code::report_send_failed, "SA: Report to LID {} failed: {}", p.addr.lid, r.error().message);
    ++stats_.sent;
    pending_.emplace(tid, Pending{p, transport_.clock().now() + cfg_.resend, cfg_.retries});
  }
}

void Reporter::on_report_resp(const mad::Packet& p) {
  auto h = mad::decode_mad_header(p.mad);
  if (!h || h->method != mad::sa_method::report_resp) return;
  auto it = pending_.find(static_cast<uint32_t>(h->tid));
  if (it == pending_.end()) return;
  pending_.erase(it);
  ++stats_.acknowledged;
}

std::optional<mad::Nanos> Reporter::next_deadline() const {
  std::optional<mad::Nanos> d;
  for (const auto& [tid, pd] : pending_)
    if (!d || pd.due < *d) d = pd.due;
  return d;
}

void Reporter::on_tick() {
  const mad::Nanos now = transport_.clock().now();
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& pd = it->second;
    if (now < pd.due) {
      ++it;
      continue;
    }
    if (pd.retries_left-- <= 0) {
      ++stats_.given_up;
      log_.info(code::report_given_up, "SA: no ReportResp from LID {} after {} Reports; given up", pd.packet.addr.lid, cfg_.retries + 1);
      it = pending_.erase(it);
      continue;
    }
    (void)transport_.send(pd.packet);
    ++stats_.resent;
    pd.due = now + cfg_.resend;
    ++it;
  }
}

}  // namespace sm::sa
