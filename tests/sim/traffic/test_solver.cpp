// The max-min solver on problems whose answer is known by hand.
#include <doctest/doctest.h>

#include "sim/traffic/solver.h"

using sim::traffic::Problem;
using sim::traffic::solve_max_min;

namespace {
// Paths as lists of channels, into the solver's CSR form.
struct Csr {
  std::vector<uint32_t> off{0}, path;
  explicit Csr(const std::vector<std::vector<uint32_t>>& paths) {
    for (const auto& p : paths) {
      path.insert(path.end(), p.begin(), p.end());
      off.push_back(static_cast<uint32_t>(path.size()));
    }
  }
};
}  // namespace

TEST_CASE("solver: two flows on one link get half each, and the link is full") {
  const std::vector<double> cap{10.0, 10.0, 10.0};
  Csr c({{0, 1}, {0, 2}});
  auto a = solve_max_min(Problem{cap, c.off, c.path, {}});
  CHECK(a.rate[0] == doctest::Approx(5.0));
  CHECK(a.rate[1] == doctest::Approx(5.0));
  CHECK(a.load[0] == doctest::Approx(10.0));
  CHECK(a.load[1] == doctest::Approx(5.0));
}

TEST_CASE("solver: a flow held back elsewhere leaves the rest of the shared link to the other") {
  // Channel 0 (10) shared by flows 0 and 1; flow 1 also crosses channel 1 (2).
  const std::vector<double> cap{10.0, 2.0};
  Csr c({{0}, {0, 1}});
  auto a = solve_max_min(Problem{cap, c.off, c.path, {}});
  CHECK(a.rate[1] == doctest::Approx(2.0));
  CHECK(a.rate[0] == doctest::Approx(8.0));
}

TEST_CASE("solver: the parking lot: a long flow over three links and a short one on each") {
  const std::vector<double> cap{1.0, 1.0, 1.0};
  Csr c({{0, 1, 2}, {0}, {1}, {2}});
  auto a = solve_max_min(Problem{cap, c.off, c.path, {}});
  for (double r : a.rate) CHECK(r == doctest::Approx(0.5));
  // With the last link twice as wide, its short flow takes what the long one leaves.
  const std::vector<double> wide{1.0, 1.0, 2.0};
  auto b = solve_max_min(Problem{wide, c.off, c.path, {}});
  CHECK(b.rate[0] == doctest::Approx(0.5));
  CHECK(b.rate[3] == doctest::Approx(1.5));
}

TEST_CASE("solver: weights share in proportion; an empty path gets nothing") {
  const std::vector<double> cap{8.0};
  Csr c({{0}, {0}, {}});
  const std::vector<double> w{1.0, 3.0, 1.0};
  auto a = solve_max_min(Problem{cap, c.off, c.path, w});
  CHECK(a.rate[0] == doctest::Approx(2.0));
  CHECK(a.rate[1] == doctest::Approx(6.0));
  CHECK(a.rate[2] == 0.0);
}

TEST_CASE("solver: bottlenecks at several levels, each flow at its own") {
  // Channel 0 (3) carries flows 0, 1, 2; channel 1 (1) flows 2 and 3; channel 2 (10) flows 0, 3.
  // Channel 1 fills first at 0.5 (flows 2, 3); channel 0 then shares 2.5 between 0 and 1.
  const std::vector<double> cap{3.0, 1.0, 10.0};
  Csr c({{0, 2}, {0}, {0, 1}, {1, 2}});
  auto a = solve_max_min(Problem{cap, c.off, c.path, {}});
  CHECK(a.rate[2] == doctest::Approx(0.5));
  CHECK(a.rate[3] == doctest::Approx(0.5));
  CHECK(a.rate[0] == doctest::Approx(1.25));
  CHECK(a.rate[1] == doctest::Approx(1.25));
}
