// Where per-port M_Keys come from: a secret shared by the SMs of a subnet, read from a file only
// root can read, and a keyed hash of it with each port GUID. Every SM holding the secret then
// knows every port's key without a key cache to copy between head nodes, and a key read off
// one port (at protect level 0, or by sniffing) tells nothing about any other port's.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mad/error.h"
#include "mad/types.h"

namespace sm::mkey {

using Secret = std::vector<uint8_t>;

// The secret: the file's bytes, one trailing newline dropped. Refused (with the reason) when the
// file is not a regular file, group or others may read or write it, or it holds fewer than 16
// bytes (a guessable secret protects nothing) or more than 4096.
mad::Result<Secret> read_secret_file(const std::string& path);

// The key of one port: the first 8 bytes of HMAC-SHA256(secret, "fabricsm M_Key" || GUID, big
// endian), never 0 (0 means "no key" to every SMA).
uint64_t derive_key(std::span<const uint8_t> secret, mad::Guid port_guid);

// derive_key() for one secret, many ports: the HMAC is keyed once (its inner and outer pads
// hashed once), so a key costs two SHA-256 blocks instead of a digest fetch and key setup
// (a one-shot HMAC per port was 3% of a protected bring-up of 43k nodes). Empty: no secret.
class KeyDeriver {
 public:
  KeyDeriver() = default;
  explicit KeyDeriver(std::span<const uint8_t> secret);
  KeyDeriver(const KeyDeriver& o);
  KeyDeriver& operator=(const KeyDeriver& o);
  KeyDeriver(KeyDeriver&&) noexcept = default;
  KeyDeriver& operator=(KeyDeriver&&) noexcept = default;
  ~KeyDeriver();

  bool empty() const { return !ctx_; }
  uint64_t derive(mad::Guid port_guid) const;

 private:
  struct Ctx;
  struct Free {
    void operator()(Ctx* c) const;
  };
  std::unique_ptr<Ctx, Free> ctx_;
};

}  // namespace sm::mkey
