#include "sm/mkey/secret.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace sm::mkey {

namespace {
constexpr size_t kMinSecret = 16, kMaxSecret = 4096;
constexpr std::string_view kLabel = "fabricsm M_Key";
}  // namespace

mad::Result<Secret> read_secret_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return mad::fail(mad::Errc::io, fmt::format("m_key_secret_file {}: {}", path, std::strerror(errno)));
  struct stat st {};
  auto done = [fd](auto r) { ::close(fd); return r; };
  if (::fstat(fd, &st) != 0)
    return done(mad::fail(mad::Errc::io, fmt::format("m_key_secret_file {}: {}", path, std::strerror(errno))));
  if (!S_ISREG(st.st_mode))
    return done(mad::fail(mad::Errc::invalid, fmt::format("m_key_secret_file {}: not a regular file", path)));
  if ((st.st_mode & 0077) != 0)
    return done(mad::fail(mad::Errc::invalid,
                          fmt::format("m_key_secret_file {}: mode {:04o} lets others read it; chmod 600 (owner only)",
                                      path, st.st_mode & 07777)));
  Secret s(kMaxSecret + 2);
  size_t got = 0;
  while (got < s.size()) {
    const ssize_t n = ::read(fd, s.data() + got, s.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return done(mad::fail(mad::Errc::io, fmt::format("m_key_secret_file {}: {}", path, std::strerror(errno))));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  s.resize(got);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (s.size() < kMinSecret || s.size() > kMaxSecret)
    return done(mad::fail(mad::Errc::invalid, fmt::format("m_key_secret_file {}: {} bytes; a secret has {} to {}", path,
                                                          s.size(), kMinSecret, kMaxSecret)));
  return done(mad::Result<Secret>(std::move(s)));
}

namespace {
std::array<uint8_t, kLabel.size() + 8> key_message(mad::Guid port_guid) {
  std::array<uint8_t, kLabel.size() + 8> msg{};
  std::memcpy(msg.data(), kLabel.data(), kLabel.size());
  for (size_t i = 0; i < 8; ++i) msg[kLabel.size() + i] = static_cast<uint8_t>(port_guid.value() >> (56 - 8 * i));
  return msg;
}

uint64_t key_of_mac(std::span<const uint8_t> mac) {
  uint64_t k = 0;
  for (size_t i = 0; i < 8; ++i) k = (k << 8) | mac[i];
  return k == 0 ? 1 : k;  // 0 would mean "no key"
}
}  // namespace

uint64_t derive_key(std::span<const uint8_t> secret, mad::Guid port_guid) {
  return KeyDeriver(secret).derive(port_guid);
}

// The keyed HMAC state: the MAC context holds the pads' digests; derive() re-initialises it
// with no key, which restarts from those.
struct KeyDeriver::Ctx {
  EVP_MAC_CTX* mac = nullptr;
};

void KeyDeriver::Free::operator()(Ctx* c) const {
  if (!c) return;
  EVP_MAC_CTX_free(c->mac);
  delete c;
}

KeyDeriver::KeyDeriver(std::span<const uint8_t> secret) {
  if (secret.empty()) return;
  EVP_MAC* hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (!hmac) return;
  auto ctx = std::unique_ptr<Ctx, Free>(new Ctx{EVP_MAC_CTX_new(hmac)});
  EVP_MAC_free(hmac);  // the context keeps its own reference
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
  if (ctx->mac && EVP_MAC_init(ctx->mac, secret.data(), secret.size(), params) == 1) ctx_ = std::move(ctx);
}

KeyDeriver::KeyDeriver(const KeyDeriver& o) {
  if (o.ctx_) ctx_.reset(new Ctx{EVP_MAC_CTX_dup(o.ctx_->mac)});
}

KeyDeriver& KeyDeriver::operator=(const KeyDeriver& o) {
  if (this != &o) *this = KeyDeriver(o);
  return *this;
}

KeyDeriver::~KeyDeriver() = default;

uint64_t KeyDeriver::derive(mad::Guid port_guid) const {
  if (!ctx_ || !ctx_->mac) return 0;
  const auto msg = key_message(port_guid);
  std::array<uint8_t, EVP_MAX_MD_SIZE> mac{};
  size_t len = 0;
  if (EVP_MAC_init(ctx_->mac, nullptr, 0, nullptr) != 1 || EVP_MAC_update(ctx_->mac, msg.data(), msg.size()) != 1 ||
      EVP_MAC_final(ctx_->mac, mac.data(), &len, mac.size()) != 1 || len < 8)
    return 0;
  return key_of_mac(mac);
}

}  // namespace sm::mkey
