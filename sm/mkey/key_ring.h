// Which M_Key each SMP carries. The SMA at the far end checks the key of the port the SMP
// arrives at (a switch: port 0's), so the key depends on who answers at a directed route or
// a LID: the ring learns that from every NodeInfo answer (and the SM tells it the LIDs it
// gave), and finds the key from the port GUID - one configured key for all ports, or one
// derived per port from the shared secret (secret.h). Where nobody has answered yet it sends
// the configured key (0 with per-port keys): a Get there still passes at protect levels 0
// and 1, and at 2 and 3 the SM must have met the port before (this run or its store).
// A key read off a port that carries another SM's (level 0, or after its lease ran out) is
// held for that port until this SM's own is written.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "fabric/topology.h"
#include "mad/smp.h"
#include "mad/types.h"
#include "sm/mkey/secret.h"

namespace sm::mkey {

using mad::DrPath;
using mad::Guid;
using mad::Lid;

// The port whose M_Key guards SMPs arriving at `port` of node `id`: a CA port's own, a switch's
// port 0 (the switch's one key).
inline Guid key_port(const fabric::Topology& t, fabric::NodeId id, uint8_t port) {
  const fabric::Node& n = t.node(id);
  const Guid g = t.port(id, mad::PortNum(n.is_switch() ? 0 : port)).guid;
  return g.is_zero() && n.is_switch() ? n.guid : g;
}

class KeyRing {
 public:
  KeyRing() = default;
  KeyRing(uint64_t key, Secret secret) { configure(key, std::move(secret)); }
  // The secret wins over the key when both are given.
  void configure(uint64_t key, Secret secret);

  // A copy for a job off the loop: the key, the secret, the keys found on ports and the
  // refusals; not the caches of paths, LIDs and derived keys (the SMPs' business, and 40 ms to
  // copy at 43k ports; the copy derives what it is asked for).
  KeyRing for_planning() const;

  bool protects() const { return key_ != 0 || !secret_.empty(); }
  // Per-port keys from a secret: own_key() fills a cache (not safe to share across threads).
  bool derives() const { return !secret_.empty(); }
  bool per_port() const { return !secret_.empty(); }
  // The key this SM gives the port (what it writes into PortInfo.M_Key).
  uint64_t own_key(Guid port) const;
  // The key an SMP to whatever answers at `path` / `lid` carries.
  uint64_t for_path(const DrPath& path) const;
  uint64_t for_lid(Lid lid) const;
  // The key an SMP to `port` carries: one found on it, else its own.
  uint64_t for_port(Guid port) const;

  // What the answers tell: who answers at a path (a directed-route NodeInfo answer carries the
  // request's InitialPath back) and which key a port holds (a PortInfo answer of a CA port or
  // of a switch's port 0: this SM's own -> settled; another that it shows -> found).
  void note_answer(const mad::Smp& answer);
  void learn_path(const DrPath& path, Guid port, bool is_switch);
  void learn_lid(Lid lid, Guid port);
  Guid port_at(const DrPath& path) const;
  Guid port_at(Lid lid) const;
  // Another key, read off `port`: SMPs to it carry that until settled().
  void found(Guid port, uint64_t key) {
    found_[port.value()] = key;
    last_.valid = false;
  }
  // This SM's key is on the port now.
  void settled(Guid port) {
    if (found_.erase(port.value())) last_.valid = false;
  }
  bool has_found(Guid port) const { return found_.count(port.value()) != 0; }
  // Ports whose key this SM does not know: left alone (no Sets planned) until cleared.
  void refuse(Guid port) { refusing_.insert(port.value()); }
  void accept(Guid port) { refusing_.erase(port.value()); }
  void clear_refusing() { refusing_.clear(); }
  bool refusing(Guid port) const { return !refusing_.empty() && refusing_.count(port.value()) != 0; }
  size_t refusing_count() const { return refusing_.size(); }

 private:
  uint64_t key_ = 0;
  Secret secret_;
  KeyDeriver deriver_;  // keyed with secret_
  mutable std::unordered_map<uint64_t, uint64_t> derived_;  // port GUID -> its key
  struct At {
    Guid port;
    bool is_switch = false;
    uint64_t own = 0;  // own_key(port), kept here: one hash lookup an SMP instead of two
  };
  struct PathHash {
    size_t operator()(const DrPath& p) const;
  };
  // Hashed: a lookup for every SMP sent (a tree of paths cost 20% of a bring-up). In 64
  // shards: one map's rehash as it grew past 100,000 paths held the loop 33 ms at 43k nodes.
  using PathMap = std::unordered_map<DrPath, At, PathHash>;
  static constexpr size_t kShards = 64;
  std::array<PathMap, kShards> at_path_;
  PathMap& shard(const DrPath& p) { return at_path_[PathHash{}(p) >> 58]; }
  const PathMap& shard(const DrPath& p) const { return at_path_[PathHash{}(p) >> 58]; }
  const At* at(const DrPath& p) const {
    const PathMap& m = shard(p);
    auto it = m.find(p);
    return it == m.end() ? nullptr : &it->second;
  }
  std::unordered_map<uint16_t, Guid> at_lid_;
  std::unordered_map<uint64_t, uint64_t> found_;
  std::unordered_set<uint64_t> refusing_;
  // The last path asked and its key: a switch's LFT blocks go out one after another, and two
  // hash lookups for each of a 43k-node fabric's 2.2 million blocks cost 8% of its bring-up.
  struct Last {
    bool valid = false;
    DrPath path;
    uint64_t key = 0;
  };
  mutable Last last_;
};

}  // namespace sm::mkey
