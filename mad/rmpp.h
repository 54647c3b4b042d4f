// Reliable Multi-Packet Protocol (IBA 1.3 vol 1 13.6): how a GetTable answer longer than one MAD
// travels. Both ends are pure state machines here (no I/O, no clock): the SA drives a sender
// per answer, tests and the bench drive a receiver. Every segment repeats the MAD header and
// the class header (SA: bytes 36-55, SM_Key .. ComponentMask) and carries the next slice of the
// class data (SA: 200 bytes of records).
//
// Sender (13.6.3.1, the sender's view): segments 1..N; the window starts at segment 1 and each
// ACK (SegmentNumber = last received in order, NewWindowLast = last it may send) moves it. A
// silence resends what is unacknowledged in the window; too many silences in a row give up,
// and so does a transfer that has sent 2 x (retries + 1) times its segments. PayloadLength
// (first and last segment) counts the class header of every segment, as the Linux kernel does:
// first = N * class_header + data, last = class_header + data in the last segment.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mad/sa_mad.h"

namespace mad {

inline constexpr uint8_t kRmppNoRespTime = 0x1F;

class RmppSender {
 public:
  // `header`: bytes 0..header_size-1 are the MAD header and class header every segment repeats
  // (its RMPP bytes are overwritten). `payload`: the class data to cut into segments.
  RmppSender(const MadBytes& header, std::vector<uint8_t> payload, size_t header_size = kSaHeaderSize,
             int max_retries = 4);

  uint32_t segment_count() const { return count_; }
  // The segments the window allows that have not been sent since the last resend point.
  std::vector<MadBytes> take_ready();

  enum class Event { progress, done, stopped, aborted, ignored };
  // An ACK, STOP or ABORT from the receiver. An ACK that makes no sense (window below its own
  // segment, a segment never sent) aborts the transfer: abort_mad() says why.
  Event on_reply(const RmppHeader& h);
  // Nothing heard for a while: fills `resend` with the unacknowledged segments of the window;
  // false once out of retries (the transfer is over: send abort_mad()).
  bool on_timeout(std::vector<MadBytes>& resend);

  bool done() const { return acked_ >= count_; }
  bool failed() const { return failed_; }
  uint8_t failure() const { return failure_; }
  // An ABORT with the failure status, for the receiver.
  MadBytes abort_mad() const;
  // Segment n (1-based) as sent.
  MadBytes segment(uint32_t n) const;

 private:
  Event fail(uint8_t status);
  uint64_t max_sends() const;
  MadBytes header_;
  std::vector<uint8_t> payload_;
  size_t header_size_;
  size_t per_segment_;
  uint32_t count_ = 1;
  uint32_t acked_ = 0;        // last segment acknowledged in order
  uint32_t sent_ = 0;         // last segment handed out since the last resend point
  uint32_t window_last_ = 1;  // last segment the receiver allows
  int retries_ = 0;
  int max_retries_;
  uint64_t sends_ = 0;  // segments handed out, resends included
  bool failed_ = false;
  uint8_t failure_ = 0;
};

class RmppReceiver {
 public:
  explicit RmppReceiver(size_t header_size = kSaHeaderSize, uint32_t window = 32);

  enum class Event { accepted, duplicate, out_of_order, complete, aborted, not_rmpp };
  // One MAD of the transfer. `ack` is filled when an ACK is due: at the end of each window, on
  // the last segment, and on a duplicate or a gap (so the sender resends from the right place).
  Event on_segment(const MadBytes& mad, std::optional<MadBytes>& ack);
  bool complete() const { return complete_; }
  uint32_t segments() const { return expected_ - 1; }
  // The whole answer: the first segment's headers, then the data of every segment, cut to
  // the PayloadLength the sender announced.
  std::vector<uint8_t> message() const;

 private:
  MadBytes make_ack(const MadBytes& seg) const;
  size_t header_size_;
  uint32_t window_;
  uint32_t expected_ = 1;
  uint32_t ack_at_ = 1;  // the last segment the sender was allowed: ACK when it arrives
  uint32_t first_payload_ = 0;
  bool complete_ = false;
  bool aborted_ = false;
  MadBytes first_{};
  std::vector<uint8_t> data_;
};

}  // namespace mad
