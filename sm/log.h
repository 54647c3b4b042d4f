// One line per event on stderr (the journal under systemd), flushed as written, each with a
// level and a searchable code from the one table of codes (log_codes.h).
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "sm/log_codes.h"

namespace sm {

Level parse_level(std::string_view s, bool* ok = nullptr);

// A code as a Logger method takes it: a code of another level does not compile.
template <Level L>
class CodeAt {
 public:
  consteval CodeAt(const LogCode& c) : code_(&c) {  // NOLINT: implicit on purpose
    if (c.level != L) this_code_is_logged_at_another_level_in_log_codes_h();
  }
  const LogCode& code() const { return *code_; }

 private:
  static void this_code_is_logged_at_another_level_in_log_codes_h();  // not constexpr: stops the compile
  const LogCode* code_;
};

class Logger {
 public:
  using Sink = std::function<void(Level, std::string_view line)>;

  explicit Logger(Level level = Level::info, std::FILE* out = stderr);
  void set_level(Level l) { level_ = l; }
  Level level() const { return level_; }
  // Replaces where lines go (tests capture them). The default writes to `out` and flushes.
  void set_sink(Sink s) { sink_ = std::move(s); }
  bool enabled(Level l) const { return l <= level_; }
  // Also sees every line written (the service keeps the codes marked `event` in the store),
  // after it went to the sink or the file; events reach it whatever the level shown.
  using Observer = std::function<void(Level, const LogCode& code, std::string_view message)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

  template <class... Args>
  void error(CodeAt<Level::error> c, fmt::format_string<Args...> f, Args&&... a) {
    log(Level::error, c.code(), f, std::forward<Args>(a)...);
  }
  template <class... Args>
  void warn(CodeAt<Level::warn> c, fmt::format_string<Args...> f, Args&&... a) {
    log(Level::warn, c.code(), f, std::forward<Args>(a)...);
  }
  template <class... Args>
  void info(CodeAt<Level::info> c, fmt::format_string<Args...> f, Args&&... a) {
    log(Level::info, c.code(), f, std::forward<Args>(a)...);
  }
  template <class... Args>
  void debug(CodeAt<Level::debug> c, fmt::format_string<Args...> f, Args&&... a) {
    log(Level::debug, c.code(), f, std::forward<Args>(a)...);
  }
  // An info line that only debug shows when `loud` is false (a steady sweep's figures).
  template <class... Args>
  void info_if(bool loud, CodeAt<Level::info> c, fmt::format_string<Args...> f, Args&&... a) {
    log(loud ? Level::info : Level::debug, c.code(), f, std::forward<Args>(a)...);
  }

  uint64_t errors() const { return errors_; }
  uint64_t warnings() const { return warnings_; }

 private:
  template <class... Args>
  void log(Level l, const LogCode& c, fmt::format_string<Args...> f, Args&&... args) {
    const bool shown = enabled(l);
    if (!shown && !(observer_ && c.event)) return;
    write(l, c, shown, fmt::format(f, std::forward<Args>(args)...));
  }
  void write(Level l, const LogCode& c, bool shown, const std::string& msg);
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
