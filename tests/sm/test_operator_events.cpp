// What an operator reads in the log when the fabric changes (issue 16): cables named by both
// ends with their rate, nodes by description; the SM's own IsSM kept; no false programming error
// for a resent Set that had landed.
#include <doctest/doctest.h>

#include "tests/sm/harness.h"

using namespace smtest;
using namespace std::chrono_literals;

namespace {

std::string line_with(const Run& r, const std::string& needle) {
  for (const auto& l : r.lines)
    if (l.find(needle) != std::string::npos) return l;
  return "";
}

}  // namespace

TEST_CASE("a cable that goes names both ends and its rate; a node that leaves is named; both come back") {
  Run r(load("ft3-r8.net"));
  REQUIRE(r.until_idle());
  CHECK(line_with(r, "W0213").empty());  // the first sweep has nothing to compare with
  const auto leaf = *r.fabric->find("S1_00_00");
  const std::string peer = r.fabric->node(r.fabric->node(leaf).ports[5].peer).name;
  REQUIRE(r.fabric->link_down(leaf, 5));
  REQUIRE(r.run_for(1s));
  const std::string down = line_with(r, "W0213");
  INFO(down);
  CHECK(down.find("link down: ") != std::string::npos);
  CHECK(down.find("[5] (S1_00_00)") != std::string::npos);
  CHECK(down.find("(" + peer + ")") != std::string::npos);
  CHECK(down.find("(was 4xHDR)") != std::string::npos);
  REQUIRE(r.fabric->link_up(leaf, 5));
  REQUIRE(r.run_for(1s));
  const std::string up = line_with(r, "I0214");
  INFO(up);
  CHECK(up.find("[5] (S1_00_00)") != std::string::npos);
  CHECK(up.find(" at 4xHDR") != std::string::npos);
  // A CA unplugged: its node leaves (named), and the cable to it goes with it.
  REQUIRE(r.fabric->link_down(*r.fabric->find("H00017"), 1));
  REQUIRE(r.run_for(1s));
  const std::string gone = line_with(r, "W0208");
  INFO(gone);
  CHECK(gone.find("node gone: CA ") != std::string::npos);
  CHECK(gone.find("(H00017, 1 ports)") != std::string::npos);
  CHECK(line_with(r, "[1] (H00017)").find("W0213") != std::string::npos);
  REQUIRE(r.fabric->link_up(*r.fabric->find("H00017"), 1));
  REQUIRE(r.run_for(1s));
  CHECK(line_with(r, "I0212").find("(H00017, 1 ports)") != std::string::npos);
}

TEST_CASE("the SM's own port loses IsSM behind its back: the next light sweep takes it back") {
  sm::SmConfig cfg;
  cfg.sweep_interval = 1s;
  Run r(load("ft2-r8.net"), cfg);
  REQUIRE(r.until_idle());
  auto is_sm = [&] {
    const auto& own = r.fabric->node(0).ports[1];  // the SM's CA, port 1
    return (own.cap_mask & mad::port_cap::is_sm) != 0;
  };
  REQUIRE(is_sm());
  r.fabric->set_is_sm(r.ep, false);  // as ibsim does when another SM client of the port exits
  REQUIRE_FALSE(is_sm());
  REQUIRE(r.run_for(3s));
  CHECK(is_sm());
  CHECK(r.logged("W0130"));
  CHECK(r.logged("taken again"));
}

TEST_CASE("5% loss: a resent PortInfo Set whose first attempt had landed is no programming error") {
  for (uint64_t seed : {1, 2, 3}) {
    CAPTURE(seed);
    Run r(load("ft3-r8.net"), {}, sim::SimConfig{.drop_rate = 0.05, .seed = seed});
    REQUIRE(r.until_idle());
    CHECK(r.sm->subnet_up());
    CHECK(line_with(r, "E0501").empty());
  }
}
