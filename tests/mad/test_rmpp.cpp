// RMPP segmentation and reassembly: a sender and a receiver wired together, with losses,
// duplicates, reordering, a receiver that never answers, and the abort paths.
#include <doctest/doctest.h>

#include <deque>
#include <numeric>
#include <random>

#include "mad/rmpp.h"

using namespace mad;

namespace {

MadBytes response_header() {
  SaMad m;
  m.header.method = sa_method::get_table_resp;
  m.header.tid = 0x42;
  m.header.attr_id = sa_attr::node_record;
  m.attr_offset = 14;
  m.comp_mask = 1;
  return encode_sa_mad(m);
}

std::vector<uint8_t> payload(size_t n) {
  std::vector<uint8_t> p(n);
  std::iota(p.begin(), p.end(), uint8_t{1});
  return p;
}

// Runs a transfer; `lose(k)` says whether the k-th MAD on the wire (either way) is lost.
// Returns the reassembled message, or empty when the transfer failed.
template <class Lose>
std::vector<uint8_t> transfer(const std::vector<uint8_t>& data, Lose lose, uint32_t window = 4,
                              int* timeouts = nullptr, int retries = 4) {
  RmppSender s(response_header(), data, kSaHeaderSize, retries);
  RmppReceiver r(kSaHeaderSize, window);
  size_t wire = 0;
  int idle = 0;
  while (!s.done() && !s.failed()) {
    std::vector<MadBytes> out = s.take_ready();
    bool heard = false;
    for (const MadBytes& seg : out) {
      if (lose(wire++)) continue;
      std::optional<MadBytes> ack;
      r.on_segment(seg, ack);
      if (ack && !lose(wire++)) {
        heard = true;
        s.on_reply(decode_rmpp_header(*ack));
      }
    }
    if (!heard && !s.done()) {
      if (timeouts) ++*timeouts;
      std::vector<MadBytes> again;
      if (!s.on_timeout(again)) break;
      for (const MadBytes& seg : again) {
        if (lose(wire++)) continue;
        std::optional<MadBytes> ack;
        r.on_segment(seg, ack);
        if (ack && !lose(wire++)) s.on_reply(decode_rmpp_header(*ack));
      }
      if (++idle > 1000) break;
    }
  }
  if (!s.done() || !r.complete()) return {};
  return r.message();
}

}  // namespace

TEST_CASE("RMPP: segment headers, flags and PayloadLength") {
  RmppSender s(response_header(), payload(450));  // 3 segments: 200 + 200 + 50
  CHECK(s.segment_count() == 3);
  const RmppHeader h1 = decode_rmpp_header(s.segment(1));
  CHECK(h1.version == 1);
  CHECK(h1.type == rmpp::Type::data);
  CHECK(h1.flags == (rmpp::flag_active | rmpp::flag_first));
  CHECK(h1.segment == 1);
  CHECK(h1.payload_or_window == 3 * 20 + 450);
  const RmppHeader h2 = decode_rmpp_header(s.segment(2));
  CHECK(h2.flags == rmpp::flag_active);
  CHECK(h2.payload_or_window == 0);
  const RmppHeader h3 = decode_rmpp_header(s.segment(3));
  CHECK(h3.flags == (rmpp::flag_active | rmpp::flag_last));
  CHECK(h3.payload_or_window == 20 + 50);
  // Every segment repeats the headers: attr offset and comp mask survive.
  auto d = decode_sa_mad(s.segment(3));
  REQUIRE(d);
  CHECK(d->attr_offset == 14);
  CHECK(d->comp_mask == 1);
  CHECK(d->data[0] == static_cast<uint8_t>(401));
  // The window starts at one segment.
  CHECK(s.take_ready().size() == 1);
  CHECK(s.take_ready().empty());
}

TEST_CASE("RMPP: one segment, and an empty answer, are single DATA MADs with First|Last") {
  for (size_t n : {size_t{0}, size_t{56}, size_t{200}}) {
    RmppSender s(response_header(), payload(n));
    CHECK(s.segment_count() == 1);
    const RmppHeader h = decode_rmpp_header(s.segment(1));
    CHECK(h.flags == (rmpp::flag_active | rmpp::flag_first | rmpp::flag_last));
    CHECK(h.payload_or_window == 20 + n);
    CHECK(transfer(payload(n), [](size_t) { return false; }).size() == kSaHeaderSize + n);
  }
}

TEST_CASE("RMPP: reassembly gives back the payload exactly (many sizes, windows)") {
  for (size_t n : {size_t{201}, size_t{399}, size_t{400}, size_t{4096}, size_t{20000}}) {
    for (uint32_t window : {1u, 3u, 32u}) {
      const auto data = payload(n);
      const auto msg = transfer(data, [](size_t) { return false; }, window);
      REQUIRE(msg.size() == kSaHeaderSize + n);
      CHECK(std::equal(data.begin(), data.end(), msg.begin() + kSaHeaderSize));
      auto head = decode_sa_mad(std::span<const uint8_t>(msg.data(), kMadSize < msg.size() ? kMadSize : msg.size()));
      if (msg.size() >= kMadSize) {
        REQUIRE(head);
        CHECK(head->header.attr_id == sa_attr::node_record);
      }
    }
  }
}

TEST_CASE("RMPP: losses on the way and back are repaired by resends") {
  const auto data = payload(5000);  // 25 segments
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::bernoulli_distribution lost(0.15);
    int timeouts = 0;
    // 15% loss each way: a window of 4 segments and their ACKs is lost in part most of the
    // time, so allow more silences in a row than the default.
    const auto msg = transfer(data, [&](size_t) { return lost(rng); }, 4, &timeouts, 12);
    INFO("seed " << seed);
    REQUIRE(msg.size() == kSaHeaderSize + data.size());
    CHECK(std::equal(data.begin(), data.end(), msg.begin() + kSaHeaderSize));
  }
}

TEST_CASE("RMPP: a receiver that never answers makes the sender give up") {
  RmppSender s(response_header(), payload(1000), kSaHeaderSize, 3);
  CHECK(s.take_ready().size() == 1);
  std::vector<MadBytes> again;
  int rounds = 0;
  while (s.on_timeout(again)) {
    CHECK(again.size() == 1);  // segment 1 again
    ++rounds;
  }
  CHECK(rounds == 3);
  CHECK(s.failed());
  CHECK(s.failure() == rmpp::status::too_many_retries);
  const RmppHeader a = decode_rmpp_header(s.abort_mad());
  CHECK(a.type == rmpp::Type::abort);
  CHECK(a.status == rmpp::status::too_many_retries);
}

TEST_CASE("RMPP: STOP, ABORT and nonsense ACKs end the transfer") {
  RmppSender s(response_header(), payload(1000));
  (void)s.take_ready();
  RmppHeader stop;
  stop.version = 1;
  stop.type = rmpp::Type::stop;
  stop.status = rmpp::status::resources_exhausted;
  CHECK(s.on_reply(stop) == RmppSender::Event::stopped);
  CHECK(s.failed());

  RmppSender t(response_header(), payload(1000));
  (void)t.take_ready();
  RmppHeader bad;
  bad.version = 1;
  bad.type = rmpp::Type::ack;
  bad.segment = 1;
  bad.payload_or_window = 0;  // window below its own segment
  CHECK(t.on_reply(bad) == RmppSender::Event::aborted);
  CHECK(t.failure() == rmpp::status::window_too_small);

  RmppSender u(response_header(), payload(1000));
  (void)u.take_ready();
  RmppHeader big;
  big.version = 1;
  big.type = rmpp::Type::ack;
  big.segment = 99;
  big.payload_or_window = 100;
  CHECK(u.on_reply(big) == RmppSender::Event::aborted);
  CHECK(u.failure() == rmpp::status::segment_too_big);

  RmppSender v(response_header(), payload(1000));
  RmppHeader wrong_version = big;
  wrong_version.version = 2;
  CHECK(v.on_reply(wrong_version) == RmppSender::Event::aborted);
}

// A client that ACKs segment 1 with a window of 0xFFFFFFFF, over and over: that window reaches
// no further than the last segment, so it is no progress, and the transfer ends (it used to
// resend its 25 segments for as long as the ACKs came: 1,802 segments in 15 s on ibsim).
TEST_CASE("RMPP: ACKs without progress end a transfer; every transfer is bounded") {
  RmppSender s(response_header(), payload(25 * 200), kSaHeaderSize, 4);
  REQUIRE(s.segment_count() == 25);
  size_t sent = s.take_ready().size();
  RmppHeader ack;
  ack.version = 1;
  ack.type = rmpp::Type::ack;
  ack.segment = 1;
  ack.payload_or_window = 0xFFFFFFFF;
  std::vector<MadBytes> resend;
  int rounds = 0;
  for (; rounds < 1000 && !s.failed(); ++rounds) {
    (void)s.on_reply(ack);
    sent += s.take_ready().size();
    if (s.on_timeout(resend)) sent += resend.size();
  }
  CHECK(s.failed());
  CHECK(s.failure() == rmpp::status::too_many_retries);
  CHECK(rounds <= 8);
  CHECK(sent <= 25 * 2 * 5 + 32);
}

TEST_CASE("RMPP: the receiver ACKs gaps and duplicates with the last in-order segment") {
  RmppSender s(response_header(), payload(1000));  // 5 segments
  RmppReceiver r(kSaHeaderSize, 8);
  std::optional<MadBytes> ack;
  CHECK(r.on_segment(s.segment(1), ack) == RmppReceiver::Event::accepted);
  REQUIRE(ack);  // the first segment fills the sender's initial window of one
  CHECK(decode_rmpp_header(*ack).segment == 1);
  CHECK(decode_rmpp_header(*ack).payload_or_window == 9);
  CHECK((*ack)[3] == sa_method::get_table);  // the response bit flipped
  CHECK(r.on_segment(s.segment(3), ack) == RmppReceiver::Event::out_of_order);
  REQUIRE(ack);
  CHECK(decode_rmpp_header(*ack).segment == 1);
  CHECK(r.on_segment(s.segment(1), ack) == RmppReceiver::Event::duplicate);
  REQUIRE(ack);
  CHECK(r.on_segment(s.segment(2), ack) == RmppReceiver::Event::accepted);
  CHECK_FALSE(ack);
  // A MAD that is not RMPP, and a first segment without First, are refused.
  RmppReceiver q;
  MadBytes plain = response_header();
  CHECK(q.on_segment(plain, ack) == RmppReceiver::Event::not_rmpp);
  MadBytes no_first = s.segment(1);
  RmppHeader h = decode_rmpp_header(no_first);
  h.flags = rmpp::flag_active;
  encode_rmpp_header(h, no_first);
  CHECK(q.on_segment(no_first, ack) == RmppReceiver::Event::aborted);
}
