// An SA client on a simulated CA port, as an application's libibumad client would be: it sends
// SA requests LID-routed to the SM through the simulated switches, takes the answers (RMPP
// transfers acknowledged segment by segment, as the kernel does), and answers Reports with a
// ReportResp. A mad::Reactor, so sim::MultiDriver serves it beside the SMs. The tests and
// `fabricsm sim`'s SL check (sim/sl_query.h) use it.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "mad/reactor.h"
#include "mad/rmpp.h"
#include "mad/sa_mad.h"
#include "sim/fabric.h"

namespace sim {

class SaClient final : public mad::Reactor {
 public:
  SaClient(SimFabric& f, EndpointId ep) : fabric_(f), ep_(ep) {}

  // A request to the SA at `sm_lid`; returns its TID.
  uint64_t send(mad::SaMad m, mad::Lid sm_lid) {
    m.header.tid = next_tid_++;
    mad::Packet p;
    p.mad = mad::encode_sa_mad(m);
    p.addr.lid = sm_lid;
    p.addr.qpn = 1;
    p.addr.qkey = mad::kGsiQkey;
    fabric_.inject(ep_, p);
    return m.header.tid;
  }
  struct Answer {
    mad::SaMad head;               // the response MAD (by RMPP: the headers every segment repeats)
    std::vector<uint8_t> records;  // the record of a Get; by RMPP, every record (stride attr_offset)
    bool rmpp = false;
  };
  // The answer to `tid`, once it is complete.
  const Answer* answer(uint64_t tid) const {
    auto it = answers_.find(tid);
    return it == answers_.end() ? nullptr : &it->second;
  }
  // Reports (notices) received, each acknowledged.
  const std::vector<mad::SaMad>& reports() const { return reports_; }

  void on_mad(const mad::Packet& p) override {
    auto m = mad::decode_sa_mad(p.mad);
    if (!m) return;
    if (m->header.method == mad::sa_method::report) {
      reports_.push_back(*m);
      mad::SaMad resp = *m;
      resp.header.method = mad::sa_method::report_resp;
      mad::Packet out;
      out.mad = mad::encode_sa_mad(resp);
      out.addr = p.addr;
      fabric_.inject(ep_, out);
      return;
    }
    if (!m->rmpp.active()) {
      answers_[m->header.tid] = Answer{*m, {m->data.begin(), m->data.end()}, false};
      return;
    }
    auto [it, fresh] = transfers_.try_emplace(m->header.tid);
    std::optional<mad::MadBytes> ack;
    const auto ev = it->second.on_segment(p.mad, ack);
    if (ack) {
      mad::Packet out;
      out.mad = *ack;
      out.addr = p.addr;
      fabric_.inject(ep_, out);
    }
    if (ev == mad::RmppReceiver::Event::complete) {
      // Every segment repeats the headers: the last one's serve as the answer's.
      const std::vector<uint8_t> whole = it->second.message();
      answers_[m->header.tid] =
          Answer{*m, {whole.begin() + static_cast<ptrdiff_t>(mad::kSaHeaderSize), whole.end()}, true};
      transfers_.erase(it);
    }
  }
  void on_tick() override {}
  std::optional<mad::Nanos> next_deadline() const override { return std::nullopt; }

 private:
  SimFabric& fabric_;
  EndpointId ep_;
  uint64_t next_tid_ = 0x7E570001;
  std::map<uint64_t, mad::RmppReceiver> transfers_;
  std::map<uint64_t, Answer> answers_;
  std::vector<mad::SaMad> reports_;
};

// The records of an answer of records of type R.
template <class R>
std::vector<R> records_of(const SaClient::Answer& a) {
  std::vector<R> out;
  if (a.head.header.status != 0) return out;
  const size_t stride = a.head.attr_offset ? size_t{a.head.attr_offset} * 8 : R::kSize;
  const size_t end = a.rmpp ? a.records.size() : std::min(a.records.size(), R::kSize);
  for (size_t off = 0; off + R::kSize <= end; off += stride) {
    auto r = R::decode(std::span(a.records).subspan(off, R::kSize));
    if (r) out.push_back(*r);
  }
  return out;
}

}  // namespace sim
