// Crash safety: a child process runs the SM on a simulated fabric, committing every sweep
// while links fail and return; the parent kills it with SIGKILL at a random moment (many
// seeds). Every time, the database must pass PRAGMA integrity_check and hold every sweep and
// every LID the child saw committed.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "sim/rng.h"
#include "sm/store/store.h"
#include "tests/sm/harness.h"

using namespace smtest;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void child(const std::string& db, int fd, uint64_t seed) {
  Run r(load("ft3-r8.net"));
  auto store = sm::store::Store::open({.path = db});
  if (!store) _exit(3);
  r.start(sm::SmConfig{}, sm::Remembered{*(*store)->load_lids(), *(*store)->load_lft_memory()});
  r.sm->on_sweep_done = [&](const std::shared_ptr<const sm::Subnet>& s) {
    if (!(*store)->commit(*s, static_cast<int64_t>(s->sweep.number))) _exit(4);
    const uint32_t n = static_cast<uint32_t>(s->sweep.number);
    if (write(fd, &n, sizeof n) != sizeof n) _exit(5);  // told only after the commit returned
  };
  (void)r.until_idle();
  sim::SplitMix64 rng(seed);
  const char* sw[] = {"S1_00_01", "S1_02_03", "S2_01_00", "S2_03_02"};
  while (true) {  // until killed
    const auto node = *r.fabric->find(sw[rng.below(4)]);
    const auto port = static_cast<uint8_t>(5 + rng.below(4));
    (void)r.fabric->link_down(node, port);
    (void)r.run_for(std::chrono::milliseconds(20));
    (void)r.fabric->link_up(node, port);
    (void)r.run_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

TEST_CASE("kill -9 at random points never corrupts the store or loses a committed LID") {
  // The LIDs every run must keep: what a clean bring-up gives.
  Run ref(load("ft3-r8.net"));
  REQUIRE(ref.until_idle());
  const sm::LidMap expected = *ref.subnet().lids;
  char tmpl[] = "/tmp/fabricsm-crash-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const std::string db = (dir / "crash.db").string();
  sim::SplitMix64 rng(42);
  uint32_t committed_total = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      child(db, fds[1], seed);
    }
    close(fds[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng.below(400)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    uint32_t last = 0, n = 0;
    while (read(fds[0], &n, sizeof n) == sizeof n) last = n;
    close(fds[0]);
    INFO("seed " << seed << ", last committed sweep " << last);
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));

    auto s = sm::store::Store::open({.path = db});
    REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
    auto check = (*s)->db().prepare("PRAGMA integrity_check");
    REQUIRE(check);
    REQUIRE(*check->step());
    CHECK(check->text(0) == "ok");
    if (last) {
      committed_total += last;
      CHECK(*(*s)->db().scalar("SELECT max(number) FROM sweeps") >= last);
      auto lids = (*s)->load_lids();
      REQUIRE(lids);
      CHECK(lids->size() == expected.size());
      for (const auto& [g, e] : expected) {
        auto it = lids->find(g);
        REQUIRE(it != lids->end());
        CHECK(it->second.lid == e.lid);
      }
    }
  }
  CHECK(committed_total > 0);  // the kills did land after commits, not only before
  fs::remove_all(dir);
}
