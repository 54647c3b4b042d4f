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

  SmpClient(mad::Transactions& tx, uint64_t m_key = 0) : tx_(tx), m_key_(m_key) {}

  void get(const mad::DrPath& path, uint16_t attr, uint32_t mod, Done done) {
    send(mad::make_dr_smp(mad::method::get, attr, mod, path), std::move(done));
  }
  void set(const mad::DrPath& path, uint16_t attr, uint32_t mod, const mad::SmpData& data,
           Done done) {
    mad::Smp s = mad::make_dr_smp(mad::method::set, attr, mod, path);
    s.data = data;
    send(s, std::move(done));
  }
  mad::Transactions& transactions() { return tx_; }

 private:
  void send(mad::Smp s, Done done) {
    s.mkey = m_key_;
    mad::Packet p;
    p.mad = mad::encode_smp(s);
    p.addr.lid = mad::kPermissiveLid;
    tx_.submit(p, [done = std::move(done)](mad::Result<mad::Packet> r) {
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
};

}  // namespace sm
