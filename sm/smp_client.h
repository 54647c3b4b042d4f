// SMP requests for the SM's sweep phases, on top of the transaction layer: builds the SMP,
// decodes the answer and turns a non-zero MAD status into an error.
#pragma once

#include <functional>

#include "mad/smp.h"
#include "mad/transactions.h"

namespace sm {

class SmpClient {
 public:
  using Done = std::function<void(mad::Result<mad::Smp>)>;

  // `rounds`: how many times a Get (or an idempotent Set) is submitted afresh when the
  // transaction layer gives up on it, each time with its full resends. A lossy link then
  // costs time, not a node left out of the sweep.
  SmpClient(mad::Transactions& tx, uint64_t m_key = 0, int rounds = 3)
      : tx_(tx), m_key_(m_key), rounds_(rounds) {}

  void get(const mad::DrPath& path, uint16_t attr, uint32_t mod, Done done) {
    send(mad::make_dr_smp(mad::method::get, attr, mod, path), std::move(done), rounds_);
  }
  // A Get whose silence is news in itself (light sweeps): one round of resends only.
  void get_once(const mad::DrPath& path, uint16_t attr, uint32_t mod, Done done) {
    send(mad::make_dr_smp(mad::method::get, attr, mod, path), std::move(done), 1);
  }
  // A Set whose repetition does no harm (LFT blocks, SwitchInfo).
  void set(const mad::DrPath& path, uint16_t attr, uint32_t mod, const mad::SmpData& data,
           Done done) {
    mad::Smp s = mad::make_dr_smp(mad::method::set, attr, mod, path);
    s.data = data;
    send(s, std::move(done), rounds_);
  }
  // A Set that may not be repeated blindly (a port-state step): one round; the caller checks.
  void set_once(const mad::DrPath& path, uint16_t attr, uint32_t mod, const mad::SmpData& data,
                Done done) {
    mad::Smp s = mad::make_dr_smp(mad::method::set, attr, mod, path);
    s.data = data;
    send(s, std::move(done), 1);
  }
  mad::Transactions& transactions() { return tx_; }
  const mad::Transactions& transactions() const { return tx_; }

 private:
  void send(mad::Smp s, Done done, int rounds) {
    s.mkey = m_key_;
    mad::Packet p;
    p.mad = mad::encode_smp(s);
    p.addr.lid = mad::kPermissiveLid;
    submit(p, std::move(done), rounds);
  }
  void submit(const mad::Packet& p, Done done, int rounds) {
    tx_.submit(p, [this, p, rounds, done = std::move(done)](mad::Result<mad::Packet> r) mutable {
      if (!r && r.error().code == mad::Errc::timeout && rounds > 1)
        return submit(p, std::move(done), rounds - 1);
      if (!r) return done(std::unexpected(r.error()));
      auto smp = mad::decode_smp(r->mad);
      if (!smp) return done(std::unexpected(smp.error()));
      if (smp->status != mad::status::ok)
        return done(mad::fail(mad::Errc::mad_status, mad::status::describe(smp->status)));
      done(std::move(*smp));
    });
  }

  mad::Transactions& tx_;
  uint64_t m_key_;
  int rounds_;
};

}  // namespace sm
