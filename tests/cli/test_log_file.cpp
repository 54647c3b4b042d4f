// The daemon's log file (cli/log_file.h): timestamps, append or afresh, rotation past the size
// limit, reopen after logrotate moved it, owner and group only; the options that set it.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/program_options.hpp>

#include "cli/config.h"
#include "cli/log_file.h"
#include "cli/reload.h"
#include "tests/temp_dir.h"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

}  // namespace

TEST_CASE("log file: every line with its time and code, appended, owner and group only") {
  testutil::TempDir d;
  const std::string path = d.file("fabricsm.log");
  std::ofstream(path) << "an older line\n";
  ::chmod(path.c_str(), 0644);  // as another tool left it
  {
    auto f = cli::LogFile::open({.path = path});
    REQUIRE(f);
    const auto t = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764688474123));
    (*f)->write("fabricsm[I0101]: starting", t);
    CHECK((*f)->write_errors() == 0);
  }
  const std::string text = slurp(path);
  CHECK(text.starts_with("an older line\n"));  // accum_log_file's default: appended
  CHECK(text.find(cli::log_timestamp(std::chrono::system_clock::time_point(std::chrono::milliseconds(1764688474123))) +
                  " fabricsm[I0101]: starting\n") != std::string::npos);
  CHECK(mode_of(path) == 0640);
  const std::string stamp = cli::log_timestamp(std::chrono::system_clock::time_point(std::chrono::milliseconds(1764688474123)));
  CHECK(stamp.size() == 28);  // 2025-12-02T15:14:34.123+0000
  CHECK(stamp.substr(19, 4) == ".123");
}

TEST_CASE("log file: accum_log_file FALSE starts it afresh") {
  testutil::TempDir d;
  const std::string path = d.file("fabricsm.log");
  std::ofstream(path) << "an older line\n";
  auto f = cli::LogFile::open({.path = path, .append = false});
  REQUIRE(f);
  (*f)->write("fabricsm[I0101]: starting");
  CHECK(slurp(path).find("an older line") == std::string::npos);
}

TEST_CASE("log file: past log_max_size it moves to FILE.1 and starts again") {
  testutil::TempDir d;
  const std::string path = d.file("fabricsm.log");
  auto f = cli::LogFile::open({.path = path, .max_bytes = 200});
  REQUIRE(f);
  for (int i = 0; i < 6; ++i) (*f)->write(fmt::format("fabricsm[I0101]: line {}", i));  // ~53 bytes each
  CHECK(std::filesystem::file_size(path) <= 200);
  CHECK(std::filesystem::file_size(path + ".1") <= 200);
  CHECK(slurp(path + ".1").find("line 0") != std::string::npos);
  CHECK(slurp(path).find("line 5") != std::string::npos);
  CHECK((*f)->write_errors() == 0);
}

TEST_CASE("log file: reopen after logrotate moved it away") {
  testutil::TempDir d;
  const std::string path = d.file("fabricsm.log");
  auto f = cli::LogFile::open({.path = path});
  REQUIRE(f);
  (*f)->write("fabricsm[I0101]: before");
  std::filesystem::rename(path, path + ".2026-12-01");
  (*f)->write("fabricsm[I0101]: still the old file");
  REQUIRE((*f)->reopen());
  (*f)->write("fabricsm[I0101]: after");
  CHECK(slurp(path + ".2026-12-01").find("still the old file") != std::string::npos);
  CHECK(slurp(path).find("after") != std::string::npos);
  CHECK(slurp(path).find("before") == std::string::npos);
}

TEST_CASE("log file: a path that cannot be opened is an error naming the option") {
  auto f = cli::LogFile::open({.path = "/nonexistent-dir/fabricsm.log"});
  REQUIRE_FALSE(f);
  CHECK(f.error().message.find("log_file /nonexistent-dir/fabricsm.log") != std::string::npos);
}

TEST_CASE("log options: OpenSM's names (either form), restart-only, daemon needs a log file") {
  testutil::TempDir d;
  d.write("opensm.conf", "log_file /var/log/fabricsm.log\nlog_max_size 16\naccum_log_file FALSE\n");
  cli::DaemonConfig c;
  REQUIRE(cli::apply_config_file(d.file("opensm.conf"), c));
  CHECK(c.log_file == "/var/log/fabricsm.log");
  CHECK(c.log_max_size_mb == 16);
  CHECK_FALSE(c.accum_log_file);
  cli::DaemonConfig next = c;
  next.log_file = "/tmp/other.log";
  const cli::Reload r = cli::plan_reload(c, next);
  CHECK(r.apply.log_file == "/var/log/fabricsm.log");
  for (const char* key : {"log_file", "log_max_size", "accum_log_file", "daemon"}) CHECK(cli::restart_only(key));
  d.write("daemon.conf", "daemon = TRUE\n");
  boost::program_options::variables_map none;
  auto bg = cli::load_config(d.file("daemon.conf"), none);
  REQUIRE_FALSE(bg);
  CHECK(bg.error().message.find("log_file") != std::string::npos);
}
