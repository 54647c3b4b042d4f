#include "sm/log.h"

namespace sm {

namespace {
char level_char(Level l) {
  switch (l) {
    case Level::error: return 'E';
    case Level::warn: return 'W';
    case Level::info: return 'I';
    case Level::debug: return 'D';
  }
  return '?';
}
}  // namespace

Level parse_level(std::string_view s, bool* ok) {
  if (ok) *ok = true;
  if (s == "error") return Level::error;
  if (s == "warn" || s == "warning") return Level::warn;
  if (s == "info") return Level::info;
  if (s == "debug") return Level::debug;
  if (ok) *ok = false;
  return Level::info;
}

Logger::Logger(Level level, std::FILE* out) : level_(level), out_(out) {}

void Logger::write(Level l, const LogCode& c, bool shown, const std::string& msg) {
  if (!shown) {  // an event below the level shown: only the store keeps it
    observer_(l, c, msg);
    return;
  }
  if (l == Level::error) ++errors_;
  if (l == Level::warn) ++warnings_;
  const std::string line = fmt::format("fabricsm[{}{:04d}]: {}", level_char(l), c.number, msg);
  if (sink_) {
    sink_(l, line);
  } else {
    std::fputs(line.c_str(), out_);
    std::fputc('\n', out_);
    std::fflush(out_);
  }
  if (observer_) observer_(l, c, msg);
}

}  // namespace sm
