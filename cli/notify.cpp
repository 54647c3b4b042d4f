#include "cli/notify.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cli {

Notifier Notifier::from_environment() {
  Notifier n;
  if (const char* s = std::getenv("NOTIFY_SOCKET"); s && *s) n.socket_ = s;
  const char* usec = std::getenv("WATCHDOG_USEC");
  const char* pid = std::getenv("WATCHDOG_PID");
  const bool for_us = !pid || std::strtol(pid, nullptr, 10) == static_cast<long>(::getpid());
  if (usec && for_us) {
    const long long us = std::strtoll(usec, nullptr, 10);
    if (us > 0) n.watchdog_ = std::chrono::microseconds(us / 2);
  }
  return n;
}

mad::Result<void> Notifier::send(std::string_view message) const {
  if (!enabled()) return {};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_.size() >= sizeof(addr.sun_path))
    return mad::fail(mad::Errc::invalid, fmt::format("NOTIFY_SOCKET too long: {}", socket_));
  std::memcpy(addr.sun_path, socket_.data(), socket_.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_.size());
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return mad::fail(mad::Errc::io, fmt::format("notify socket: {}", std::strerror(errno)));
  const ssize_t n = ::sendto(fd, message.data(), message.size(), MSG_NOSIGNAL,
                             reinterpret_cast<const sockaddr*>(&addr), len);
  const int err = errno;
  ::close(fd);
  if (n < 0) return mad::fail(mad::Errc::io, fmt::format("notify {}: {}", socket_, std::strerror(err)));
  return {};
}

}  // namespace cli
