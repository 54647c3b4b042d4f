#include "mad/rmpp.h"

#include <algorithm>

namespace mad {

namespace {
constexpr size_t kClassHeaderStart = kRmppHeaderOffset + 12;  // byte 36: after MAD + RMPP headers
}

RmppSender::RmppSender(const MadBytes& header, std::vector<uint8_t> payload, size_t header_size,
                       int max_retries)
    : header_(header),
      payload_(std::move(payload)),
      header_size_(std::clamp(header_size, kClassHeaderStart, kMadSize - 1)),
      per_segment_(kMadSize - header_size_),
      max_retries_(max_retries) {
  count_ = static_cast<uint32_t>(std::max<size_t>(1, (payload_.size() + per_segment_ - 1) / per_segment_));
}

MadBytes RmppSender::segment(uint32_t n) const {
  MadBytes m{};
  std::copy_n(header_.begin(), header_size_, m.begin());
  RmppHeader h;
  h.version = rmpp::kVersion;
  h.type = rmpp::Type::data;
  h.resp_time = kRmppNoRespTime;
  h.flags = rmpp::flag_active;
  h.segment = n;
  const size_t class_header = header_size_ - kClassHeaderStart;
  const size_t from = static_cast<size_t>(n - 1) * per_segment_;
  const size_t len = from < payload_.size() ? std::min(per_segment_, payload_.size() - from) : 0;
  if (n == 1) {
    h.flags |= rmpp::flag_first;
    h.payload_or_window = static_cast<uint32_t>(count_ * class_header + payload_.size());
  }
  if (n == count_) {
    h.flags |= rmpp::flag_last;
    h.payload_or_window = static_cast<uint32_t>(n == 1 ? class_header + payload_.size() : class_header + len);
  }
  encode_rmpp_header(h, m);
  std::copy_n(payload_.begin() + static_cast<ptrdiff_t>(from), len, m.begin() + static_cast<ptrdiff_t>(header_size_));
  return m;
}

std::vector<MadBytes> RmppSender::take_ready() {
  std::vector<MadBytes> out;
  if (failed_) return out;
  const uint32_t last = std::min(window_last_, count_);
  while (sent_ < last) {
    // Every transfer is bounded: a receiver that keeps acknowledging without progress (or a
    // lossy path beyond recovery) cannot keep it resending.
    if (++sends_ > max_sends()) {
      fail(rmpp::status::too_many_retries);
      break;
    }
    out.push_back(segment(++sent_));
  }
  return out;
}

uint64_t RmppSender::max_sends() const {
  return uint64_t{count_} * 2 * (static_cast<uint64_t>(max_retries_) + 1) + 32;
}

RmppSender::Event RmppSender::fail(uint8_t status) {
  failed_ = true;
  failure_ = status;
  return Event::aborted;
}

RmppSender::Event RmppSender::on_reply(const RmppHeader& h) {
  if (failed_ || done()) return Event::ignored;
  if (h.version != rmpp::kVersion) return fail(rmpp::status::unsupported_version);
  switch (h.type) {
    case rmpp::Type::stop:
    case rmpp::Type::abort:
      failed_ = true;
      failure_ = h.status;
      return h.type == rmpp::Type::stop ? Event::stopped : Event::aborted;
    case rmpp::Type::ack:
      break;
    default:
      return fail(rmpp::status::bad_type);
  }
  if (h.segment > sent_ && h.segment > acked_) {
    // An ACK for a segment this side never sent (it may be one sent before a resend point).
    if (h.segment > count_) return fail(rmpp::status::segment_too_big);
  }
  if (h.payload_or_window < h.segment) return fail(rmpp::status::window_too_small);
  if (h.segment < acked_) return Event::ignored;  // stale
  // Progress is a segment acknowledged or a window that reaches further than before; a window
  // beyond the last segment reaches no further than the last segment.
  const bool moved = h.segment > acked_ || std::min(h.payload_or_window, count_) > window_last_;
  acked_ = std::max(acked_, h.segment);
  sent_ = std::max(sent_, acked_);
  window_last_ = std::max(window_last_, std::min(h.payload_or_window, count_));
  if (moved) retries_ = 0;
  return done() ? Event::done : Event::progress;
}

bool RmppSender::on_timeout(std::vector<MadBytes>& resend) {
  resend.clear();
  if (failed_ || done()) return !failed_;
  if (++retries_ > max_retries_) {
    fail(rmpp::status::too_many_retries);
    return false;
  }
  sent_ = acked_;  // go back to the first unacknowledged segment
  resend = take_ready();
  return true;
}

MadBytes RmppSender::abort_mad() const {
  MadBytes m{};
  std::copy_n(header_.begin(), header_size_, m.begin());
  RmppHeader h;
  h.version = rmpp::kVersion;
  h.type = rmpp::Type::abort;
  h.resp_time = kRmppNoRespTime;
  h.flags = rmpp::flag_active;
  h.status = failure_ ? failure_ : rmpp::status::unspecified;
  encode_rmpp_header(h, m);
  return m;
}

RmppReceiver::RmppReceiver(size_t header_size, uint32_t window)
    : header_size_(std::clamp(header_size, kClassHeaderStart, kMadSize - 1)), window_(std::max(window, 1u)) {}

MadBytes RmppReceiver::make_ack(const MadBytes& seg) const {
  MadBytes a{};
  std::copy_n(seg.begin(), kRmppHeaderOffset, a.begin());
  a[3] = static_cast<uint8_t>(a[3] ^ method::response_bit);  // an ACK flips the response bit
  RmppHeader h;
  h.version = rmpp::kVersion;
  h.type = rmpp::Type::ack;
  h.resp_time = kRmppNoRespTime;
  h.flags = rmpp::flag_active;
  h.segment = expected_ - 1;
  h.payload_or_window = complete_ ? expected_ - 1 : expected_ - 1 + window_;
  encode_rmpp_header(h, a);
  return a;
}

RmppReceiver::Event RmppReceiver::on_segment(const MadBytes& mad, std::optional<MadBytes>& ack) {
  ack.reset();
  const RmppHeader h = decode_rmpp_header(mad);
  if (aborted_) return Event::aborted;
  if (h.version == 0 || !h.active()) return Event::not_rmpp;
  if (h.type == rmpp::Type::stop || h.type == rmpp::Type::abort) {
    aborted_ = true;
    return Event::aborted;
  }
  if (h.type != rmpp::Type::data) return Event::not_rmpp;
  if (complete_ || h.segment < expected_) {  // a resend of something we have: say so again
    ack = make_ack(mad);
    return Event::duplicate;
  }
  if (h.segment > expected_) {  // a gap: tell the sender where to resume
    ack = make_ack(mad);
    return Event::out_of_order;
  }
  if (h.segment == 1) {
    if (!h.first()) {
      aborted_ = true;
      return Event::aborted;
    }
    first_ = mad;
    first_payload_ = h.payload_or_window;
  }
  data_.insert(data_.end(), mad.begin() + static_cast<ptrdiff_t>(header_size_), mad.end());
  ++expected_;
  if (h.last()) {
    complete_ = true;
    ack = make_ack(mad);
    return Event::complete;
  }
  // The sender may send up to the window it was last given (1 before any ACK): answer when it
  // gets there, with a new window.
  if (h.segment >= ack_at_) {
    ack = make_ack(mad);
    ack_at_ = h.segment + window_;
  }
  return Event::accepted;
}

std::vector<uint8_t> RmppReceiver::message() const {
  std::vector<uint8_t> out(first_.begin(), first_.begin() + static_cast<ptrdiff_t>(header_size_));
  size_t keep = data_.size();
  const size_t class_header = header_size_ - kClassHeaderStart;
  const size_t overhead = static_cast<size_t>(segments()) * class_header;
  if (complete_ && first_payload_ >= overhead) keep = std::min(keep, first_payload_ - overhead);
  out.insert(out.end(), data_.begin(), data_.begin() + static_cast<ptrdiff_t>(keep));
  return out;
}

}  // namespace mad
