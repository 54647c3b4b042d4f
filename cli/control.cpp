#include "cli/control.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>

namespace cli {

namespace {

mad::Result<sockaddr_un> address(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(a.sun_path))
    return mad::fail(mad::Errc::invalid, fmt::format("bad control socket path '{}'", path));
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

}  // namespace

mad::Result<std::unique_ptr<ControlServer>> ControlServer::listen(const std::string& path) {
  auto a = address(path);
  if (!a) return std::unexpected(a.error());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return mad::fail(mad::Errc::io, fmt::format("control socket: {}", std::strerror(errno)));
  // A stale socket from a previous run is removed; a live one means another daemon.
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*a), sizeof(*a)) == 0) {
    ::close(fd);
    return mad::fail(mad::Errc::conflict, fmt::format("{}: another fabricsm is listening there", path));
  }
  ::unlink(path.c_str());
  const mode_t old = ::umask(0077);  // owner-only from the start, no window
  const int rc = ::bind(fd, reinterpret_cast<const sockaddr*>(&*a), sizeof(*a));
  ::umask(old);
  if (rc != 0 || ::listen(fd, 8) != 0) {
    const int err = errno;
    ::close(fd);
    return mad::fail(mad::Errc::io, fmt::format("control socket {}: {}", path, std::strerror(err)));
  }
  ::chmod(path.c_str(), 0600);
  std::unique_ptr<ControlServer> s(new ControlServer(fd, path));
  s->thread_ = std::thread([p = s.get()] { p->serve(); });
  return s;
}

ControlServer::~ControlServer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  ::shutdown(fd_, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
  ::close(fd_);
  ::unlink(path_.c_str());
  for (auto& r : pending_) r.reply(R"({"error": "fabricsm is stopping"})");
}

void ControlServer::serve() {
  while (true) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) < 0 && errno != EINTR) return;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    if (!(p.revents & POLLIN)) continue;
    const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) continue;
    // One short line; a client that sends nothing within a second is dropped.
    std::string line;
    char buf[256];
    pollfd cp{c, POLLIN, 0};
    while (line.find('\n') == std::string::npos && line.size() < 1024 && ::poll(&cp, 1, 1000) > 0) {
      const ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      line.append(buf, static_cast<size_t>(n));
    }
    if (auto nl = line.find('\n'); nl != std::string::npos) line.resize(nl);
    auto done = std::make_shared<std::once_flag>();
    Request r{line, [c, done](std::string answer) {
                std::call_once(*done, [&] {
                  write_all(c, answer + "\n");
                  ::close(c);
                });
              }};
    std::lock_guard lock(mu_);
    pending_.push_back(std::move(r));
  }
}

std::vector<ControlServer::Request> ControlServer::take() {
  std::lock_guard lock(mu_);
  return std::exchange(pending_, {});
}

mad::Result<std::string> control_request(const std::string& path, const std::string& line, int timeout_ms) {
  auto a = address(path);
  if (!a) return std::unexpected(a.error());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return mad::fail(mad::Errc::io, std::strerror(errno));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*a), sizeof(*a)) != 0) {
    const int err = errno;
    ::close(fd);
    return mad::fail(mad::Errc::io, fmt::format("{}: {} (is fabricsm running?)", path, std::strerror(err)));
  }
  write_all(fd, line + "\n");
  std::string out;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, timeout_ms) > 0) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (out.empty()) return mad::fail(mad::Errc::timeout, fmt::format("{}: no answer", path));
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace cli
