#include "sm/sa/server.h"

#include <algorithm>

#include "mad/sa_service_records.h"
#include "sm/sa/queries.h"

namespace sm::sa {

using mad::SaMad;

Server::Server(mad::Transport& t, Logger& log, ServerConfig cfg) : transport_(t), log_(log), cfg_(cfg) {}

void Server::on_mad(const mad::Packet& p) {
  // RMPP ACK/STOP/ABORT for an answer in flight: handled at once, never queued.
  const mad::RmppHeader rh = mad::decode_rmpp_header(p.mad);
  if (rh.version != 0 && rh.active() && rh.type != mad::rmpp::Type::data && rh.type != mad::rmpp::Type::none) {
    auto h = mad::decode_mad_header(p.mad);
    if (!h) return;
    auto it = transfers_.find({p.addr.lid.value(), h->tid});
    if (it == transfers_.end()) return;
    Transfer& tr = it->second;
    const auto ev = tr.sender.on_reply(rh);
    if (ev == mad::RmppSender::Event::done || ev == mad::RmppSender::Event::stopped ||
        ev == mad::RmppSender::Event::aborted) {
      if (tr.sender.failed()) {
        ++stats_.rmpp_failed;
        send_all(tr.to, {tr.sender.abort_mad()});
      }
      transfers_.erase(it);
      return;
    }
    auto more = tr.sender.take_ready();
    stats_.rmpp_segments += more.size();
    send_all(tr.to, more);
    tr.deadline = transport_.clock().now() + cfg_.rmpp_timeout;
    return;
  }
  if (mad::method::is_response(p.mad[3])) return;
  ++stats_.requests;
  auto& q = queues_[p.addr.lid.value()];
  if (q.size() >= cfg_.queue_per_source || queued_ >= cfg_.queue_total) {
    ++stats_.dropped;
    return;
  }
  q.push_back(p);
  ++queued_;
}

std::optional<mad::Nanos> Server::next_deadline() const {
  std::optional<mad::Nanos> d;
  if (index_ && queued_ > 0) d = transport_.clock().now();
  for (const auto& [key, tr] : transfers_)
    if (!d || tr.deadline < *d) d = tr.deadline;
  return d;
}

void Server::on_tick() {
  const mad::Nanos now = transport_.clock().now();
  for (auto it = transfers_.begin(); it != transfers_.end();) {
    Transfer& tr = it->second;
    if (now < tr.deadline) {
      ++it;
      continue;
    }
    std::vector<mad::MadBytes> resend;
    if (!tr.sender.on_timeout(resend)) {
      ++stats_.rmpp_failed;
      send_all(tr.to, {tr.sender.abort_mad()});
      it = transfers_.erase(it);
      continue;
    }
    stats_.rmpp_segments += resend.size();
    send_all(tr.to, resend);
    tr.deadline = now + cfg_.rmpp_timeout;
    ++it;
  }
  if (!index_) return;
  // Sources in turn, one request each per round, up to per_tick.
  size_t budget = cfg_.per_tick;
  while (budget > 0 && queued_ > 0) {
    auto it = queues_.lower_bound(next_source_);
    if (it == queues_.end()) it = queues_.begin();
    mad::Packet p = std::move(it->second.front());
    it->second.pop_front();
    --queued_;
    next_source_ = static_cast<uint16_t>(it->first + 1);
    if (it->second.empty()) queues_.erase(it);
    serve(p);
    --budget;
  }
}

void Server::send_all(const mad::MadAddress& to, const std::vector<mad::MadBytes>& mads, size_t length) {
  for (const mad::MadBytes& m : mads) {
    mad::Packet out;
    out.mad = m;
    out.length = static_cast<uint16_t>(std::min(length, mad::kMadSize));
    out.addr = to;
    out.addr.qkey = mad::kGsiQkey;
    if (auto r = transport_.send(out); !r) log_.debug(code::sa_send_failed, "SA: send to LID {} failed: {}", to.lid, r.error().message);
  }
}

void Server::serve(const mad::Packet& p) {
  Answer a = answer_query(index_.get(), handlers_, p.mad, p.addr, cfg_.subnet_prefix, qos_policy_.get());
  if (!a.respond) return;
  if (a.response.header.status != mad::status::ok) ++stats_.errors;
  ++stats_.answered;
  ++stats_.answered_by_attr[a.response.header.attr_id];
  if (log_.enabled(Level::debug))
    log_.debug(code::sa_answer, "SA: {} {} from LID {} (mask 0x{:x}): status 0x{:04x}, {} bytes of records",
               mad::sa_method::name(p.mad[3]), mad::sa_attr::name(a.response.header.attr_id), p.addr.lid,
               a.response.comp_mask, a.response.header.status, a.rmpp ? a.payload.size() : mad::kSaDataSize);
  if (!a.rmpp) {
    send_all(p.addr, {mad::encode_sa_mad(a.response)});
    return;
  }
  // GetTable: the records go out by RMPP, even when one MAD holds them all.
  if (transport_.sends_rmpp()) {  // the kernel segments and takes the ACKs
    a.response.rmpp = mad::RmppHeader{.version = mad::rmpp::kVersion, .type = mad::rmpp::Type::data,
                                      .resp_time = mad::kRmppNoRespTime, .flags = mad::rmpp::flag_active};
    const mad::MadBytes head = mad::encode_sa_mad(a.response);
    std::vector<uint8_t> whole(head.begin(), head.begin() + mad::kSaHeaderSize);
    whole.insert(whole.end(), a.payload.begin(), a.payload.end());
    ++stats_.rmpp_transfers;
    if (auto r = transport_.send_rmpp(p.addr, whole); !r)
      log_.debug(code::sa_rmpp_send_failed, "SA: send to LID {} failed: {}", p.addr.lid, r.error().message);
    return;
  }
  const size_t payload_size = a.payload.size();
  mad::RmppSender sender(mad::encode_sa_mad(a.response), std::move(a.payload), mad::kSaHeaderSize,
                         cfg_.rmpp_retries);
  auto first = sender.take_ready();
  stats_.rmpp_segments += first.size();
  if (sender.segment_count() <= 1) {  // its ACK changes nothing
    // At its real length: under ibsim (no RMPP anywhere) the client counts the records from
    // the length it receives, and 256 bytes would add empty records after the real ones.
    send_all(p.addr, first, mad::kSaHeaderSize + payload_size);
    return;
  }
  send_all(p.addr, first);
  ++stats_.rmpp_transfers;
  transfers_.insert_or_assign(TransferKey{p.addr.lid.value(), a.response.header.tid},
                              Transfer{p.addr, std::move(sender), transport_.clock().now() + cfg_.rmpp_timeout});
}

std::vector<mad::MadBytes> Server::answer(const mad::Packet& request) {
  Answer a = answer_query(index_.get(), handlers_, request.mad, request.addr, cfg_.subnet_prefix, qos_policy_.get());
  if (!a.respond) return {};
  if (!a.rmpp) return {mad::encode_sa_mad(a.response)};
  mad::RmppSender sender(mad::encode_sa_mad(a.response), std::move(a.payload), mad::kSaHeaderSize,
                         cfg_.rmpp_retries);
  std::vector<mad::MadBytes> out;
  for (uint32_t n = 1; n <= sender.segment_count(); ++n) out.push_back(sender.segment(n));
  return out;
}

}  // namespace sm::sa
