// SMP requests for the SM's sweep phases, on top of the transaction layer: builds the SMP,
// decodes the answer and turns a non-zero MAD status into an error.
#pragma once

#include <functional>

#include "mad/smp.h"
#include "mad/transactions.h"
#include "sm/mkey/key_ring.h"

namespace sm {

class SmpClient {
 public:
  using Done = std::function<void(mad::Result<mad::Smp>)>;

  // `rounds`: how many times a Get (or an idempotent Set) is submitted afresh when the
  // transaction layer gives up on it, each time with its full resends. A lossy link then
  // costs time, not a node left out of the sweep. `keys` (borrowed; none: M_Key 0) gives each
  // SMP the M_Key of the port it goes to and learns who answers where.
  SmpClient(mad::Transactions& tx, mkey::KeyRing* keys = nullptr, int rounds = 3)
      : tx_(tx), keys_(keys), rounds_(rounds) {}

  void get(const mad::DrPath& path, uint16_t attr, uint32_t mod, Done done) {
    send(mad::make_dr_smp(mad::method::get, attr, mod, path), path, std::move(done), rounds_);
  }
  // A Get whose silence is news in itself (light sweeps): one round of resends only.
  void get_once(const mad::DrPath& path, uint16_t attr, uint32_t mod, Done done) {
    send(mad::make_dr_smp(mad::method::get, attr, mod, path), path, std::move(done), 1);
  }
  // A Set whose repetition does no harm (LFT blocks, SwitchInfo).
  void set(const mad::DrPath& path, uint16_t attr, uint32_t mod, const mad::SmpData& data,
           Done done) {
    mad::Smp s = mad::make_dr_smp(mad::method::set, attr, mod, path);
    s.data = data;
    send(s, path, std::move(done), rounds_);
  }
  // A Set that may not be repeated blindly (a port-state step): one round; the caller checks.
  void set_once(const mad::DrPath& path, uint16_t attr, uint32_t mod, const mad::SmpData& data,
                Done done) {
    mad::Smp s = mad::make_dr_smp(mad::method::set, attr, mod, path);
    s.data = data;
    send(s, path, std::move(done), 1);
  }
  const mkey::KeyRing* keys() const { return keys_; }
  mad::Transactions& transactions() { return tx_; }
  const mad::Transactions& transactions() const { return tx_; }

 private:
  // `path`: the SMP's initial path, which picks its key (not decoded again from the SMP).
  void send(mad::Smp s, const mad::DrPath& path, Done done, int rounds) {
    if (keys_ && keys_->protects()) s.mkey = keys_->for_path(path);
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
      if (keys_) keys_->note_answer(*smp);
      done(std::move(*smp));
    });
  }

  mad::Transactions& tx_;
  mkey::KeyRing* keys_;
  int rounds_;
};

}  // namespace sm
