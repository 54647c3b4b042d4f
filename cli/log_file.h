// The daemon's log file (`log_file`, OpenSM's -f): every line that goes to stderr (the journal)
// also goes here, with a timestamp, its code kept. Appended to (`accum_log_file`, as OpenSM) or
// started afresh; reopened on SIGUSR1 (logrotate's postrotate, as for OpenSM); moved to FILE.1
// when it would pass `log_max_size` MB (0: no limit). Owner and group only (0640).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "mad/error.h"

namespace cli {

class LogFile {
 public:
  struct Options {
    std::string path;
    bool append = true;
    uint64_t max_bytes = 0;  // 0: no limit
  };

  static mad::Result<std::unique_ptr<LogFile>> open(Options o);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  // One line with its time; a failed write is counted (the journal still has the line).
  void write(std::string_view line, std::chrono::system_clock::time_point when = std::chrono::system_clock::now());
  // Closes and opens the path again (after logrotate moved the file away).
  mad::Result<void> reopen();
  uint64_t write_errors() const { return write_errors_; }
  const std::string& path() const { return o_.path; }

 private:
  explicit LogFile(Options o) : o_(std::move(o)) {}
  mad::Result<void> open_fd(bool append);
  mad::Result<void> rotate();

  Options o_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t write_errors_ = 0;
};

// "2026-12-02T15:14:34.123+0000": local time with milliseconds and the offset.
std::string log_timestamp(std::chrono::system_clock::time_point t);

}  // namespace cli
