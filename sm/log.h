// One line per event on stderr (the journal under systemd), flushed as written, each with a
// level and a searchable code: "fabricsm[E0301]: ..." greps like OpenSM's "ERR 0301".
// Codes: 01xx daemon, 02xx discovery, 03xx LIDs, 04xx routing, 05xx programming, 06xx SM
// protocol (SMInfo, traps), 07xx store, 08xx HA.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace sm {

enum class Level { error = 0, warn = 1, info = 2, debug = 3 };

Level parse_level(std::string_view s, bool* ok = nullptr);

class Logger {
 public:
  using Sink = std::function<void(Level, std::string_view line)>;

  explicit Logger(Level level = Level::info, std::FILE* out = stderr);
  void set_level(Level l) { level_ = l; }
  Level level() const { return level_; }
  // Replaces where lines go (tests capture them). The default writes to `out` and flushes.
  void set_sink(Sink s) { sink_ = std::move(s); }
  bool enabled(Level l) const { return l <= level_; }
  // Also sees every line written (the daemon keeps warnings, errors and state changes as
  // events in the store), after it went to the sink or the file.
  using Observer = std::function<void(Level, int code, std::string_view message)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

  template <class... Args>
  void log(Level l, int code, fmt::format_string<Args...> f, Args&&... args) {
    if (!enabled(l)) return;
    write(l, code, fmt::format(f, std::forward<Args>(args)...));
  }
  template <class... Args>
  void error(int code, fmt::format_string<Args...> f, Args&&... a) { log(Level::error, code, f, std::forward<Args>(a)...); }
  template <class... Args>
  void warn(int code, fmt::format_string<Args...> f, Args&&... a) { log(Level::warn, code, f, std::forward<Args>(a)...); }
  template <class... Args>
  void info(int code, fmt::format_string<Args...> f, Args&&... a) { log(Level::info, code, f, std::forward<Args>(a)...); }
  template <class... Args>
  void debug(int code, fmt::format_string<Args...> f, Args&&... a) { log(Level::debug, code, f, std::forward<Args>(a)...); }

  uint64_t errors() const { return errors_; }
  uint64_t warnings() const { return warnings_; }

 private:
  void write(Level l, int code, const std::string& msg);
  Level level_;
  std::FILE* out_;
  Sink sink_;
  Observer observer_;
  uint64_t errors_ = 0, warnings_ = 0;
};

// Logs the first `limit` occurrences of a repeated warning and then one summary line, so a
// fabric with 40,000 identical problems does not print 40,000 lines.
class RateLimit {
 public:
  explicit RateLimit(size_t limit = 10) : limit_(limit) {}
  bool allow() { return ++seen_ <= limit_; }
  size_t suppressed() const { return seen_ > limit_ ? seen_ - limit_ : 0; }
  void reset() { seen_ = 0; }

 private:
  size_t limit_;
  size_t seen_ = 0;
};

}  // namespace sm
