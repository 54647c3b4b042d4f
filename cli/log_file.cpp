#include "cli/log_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace cli {

namespace {
constexpr mode_t kMode = 0640;
}  // namespace

std::string log_timestamp(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char date[32], zone[8];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  std::strftime(zone, sizeof zone, "%z", &tm);
  return fmt::format("{}.{:03d}{}", date, static_cast<int>(ms % 1000), zone);
}

mad::Result<std::unique_ptr<LogFile>> LogFile::open(Options o) {
  if (o.path.empty()) return mad::fail(mad::Errc::invalid, "log_file: no path");
  std::unique_ptr<LogFile> f(new LogFile(std::move(o)));
  if (auto r = f->open_fd(f->o_.append); !r) return std::unexpected(r.error());
  return f;
}

LogFile::~LogFile() {
  if (fd_ >= 0) ::close(fd_);
}

mad::Result<void> LogFile::open_fd(bool append) {
  const int fd = ::open(o_.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC), kMode);
  if (fd < 0) return mad::fail(mad::Errc::io, fmt::format("log_file {}: {}", o_.path, std::strerror(errno)));
  struct stat st {};
  // A file another tool created wider (0644) is tightened: the log names the fabric's nodes.
  if (::fstat(fd, &st) == 0 && (st.st_mode & 0007) != 0) (void)::fchmod(fd, st.st_mode & 0770);
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  size_ = static_cast<uint64_t>(st.st_size);
  return {};
}

mad::Result<void> LogFile::reopen() { return open_fd(true); }

// FILE becomes FILE.1 (an older FILE.1 goes): one previous file kept, as much as allowed.
mad::Result<void> LogFile::rotate() {
  const std::string old = o_.path + ".1";
  if (std::rename(o_.path.c_str(), old.c_str()) != 0)
    return mad::fail(mad::Errc::io, fmt::format("log_file {}: cannot move it to {}: {}", o_.path, old, std::strerror(errno)));
  return open_fd(false);
}

void LogFile::write(std::string_view line, std::chrono::system_clock::time_point when) {
  std::string out = log_timestamp(when);
  out += ' ';
  out += line;
  out += '\n';
  if (o_.max_bytes > 0 && size_ > 0 && size_ + out.size() > o_.max_bytes && !rotate()) ++write_errors_;
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ++write_errors_;
      return;
    }
    done += static_cast<size_t>(n);
  }
  size_ += out.size();
}

}  // namespace cli
