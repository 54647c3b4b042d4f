#include "sm/mkey/secret.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
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

uint64_t derive_key(std::span<const uint8_t> secret, mad::Guid port_guid) {
  std::array<uint8_t, kLabel.size() + 8> msg{};
  std::memcpy(msg.data(), kLabel.data(), kLabel.size());
  for (size_t i = 0; i < 8; ++i) msg[kLabel.size() + i] = static_cast<uint8_t>(port_guid.value() >> (56 - 8 * i));
  std::array<uint8_t, EVP_MAX_MD_SIZE> mac{};
  unsigned len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), msg.data(), msg.size(), mac.data(), &len);
  uint64_t k = 0;
  for (size_t i = 0; i < 8; ++i) k = (k << 8) | mac[i];
  return k == 0 ? 1 : k;
}

}  // namespace sm::mkey
