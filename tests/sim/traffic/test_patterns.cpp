// Patterns by name, their flows, and the flows file's errors.
#include <doctest/doctest.h>

#include <set>

#include "sim/traffic/flows_file.h"
#include "sim/traffic/patterns.h"
#include "tests/sim/fabric/helpers.h"

using namespace sim::traffic;

TEST_CASE("patterns: names parse, bad ones say why") {
  CHECK(parse_pattern("all-to-all")->kind == PatternKind::all_to_all);
  auto s = parse_pattern("shift:3");
  REQUIRE(s);
  CHECK(s->kind == PatternKind::shift);
  CHECK(s->k == 3);
  CHECK(parse_pattern("allreduce-ring:random")->random_placement);
  CHECK_FALSE(parse_pattern("allreduce-rd")->random_placement);
  CHECK(parse_pattern("file:/tmp/x")->path == "/tmp/x");
  for (const char* bad : {"shift", "shift:0", "shift:x", "incast:", "all-to-all:2", "allreduce-ring:leaf", "file:", "zigzag"}) {
    CAPTURE(bad);
    auto r = parse_pattern(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find(bad) != std::string::npos);
  }
}

TEST_CASE("patterns: flows of each pattern") {
  auto phases = [](const char* name, size_t n) { return *make_phases(*parse_pattern(name), n, 7); };
  CHECK(phases("all-to-all", 5)[0].flows.size() == 20);
  auto sh = phases("shift:2", 5)[0].flows;
  REQUIRE(sh.size() == 5);
  CHECK(sh[4].src == 4);
  CHECK(sh[4].dst == 1);
  CHECK_FALSE(make_phases(*parse_pattern("shift:5"), 5, 1));
  auto in = phases("incast:3", 5)[0].flows;
  REQUIRE(in.size() == 3);
  for (const Flow& f : in) CHECK(f.dst == 0);
  CHECK_FALSE(make_phases(*parse_pattern("incast:5"), 5, 1));
  auto ring = phases("allreduce-ring", 4);
  REQUIRE(ring.size() == 1);
  CHECK(ring[0].repeat == doctest::Approx(6.0));
  CHECK(ring[0].bytes == doctest::Approx(0.25));
  // Recursive doubling over 6: ranks 4, 5 fold onto 0, 1; two exchanges among 0..3; back out.
  auto rd = phases("allreduce-rd", 6);
  REQUIRE(rd.size() == 4);
  CHECK(rd[0].flows.size() == 2);
  CHECK(rd[1].flows.size() == 4);
  CHECK(rd[1].flows[0].dst == 1);
  CHECK(rd[2].flows[0].dst == 2);
  CHECK(rd[3].flows[0].src == 0);
  CHECK(rd[3].flows[0].dst == 4);
  const auto perm = phases("random-permutation", 9);
  CHECK(perm[0].flows.size() >= 5);
  for (const Flow& f : perm[0].flows) CHECK(f.src != f.dst);
}

TEST_CASE("patterns: a random bisection pairs every CA once each way, the same for a seed") {
  auto b = random_bisection(9, 42);
  REQUIRE(b.size() == 8);  // one CA of nine sits out
  std::set<uint32_t> sent, got;
  for (const Flow& f : b) {
    CHECK(sent.insert(f.src).second);
    CHECK(got.insert(f.dst).second);
  }
  CHECK(sent == got);
  for (size_t i = 0; i < b.size(); i += 2) {
    CHECK(b[i].src == b[i + 1].dst);
    CHECK(b[i].dst == b[i + 1].src);
  }
  auto again = random_bisection(9, 42);
  auto other = random_bisection(9, 43);
  bool same = true, differs = false;
  for (size_t i = 0; i < b.size(); ++i) {
    same = same && b[i].src == again[i].src && b[i].dst == again[i].dst;
    differs = differs || b[i].src != other[i].src;
  }
  CHECK(same);
  CHECK(differs);
}

namespace {
simtest::Hand three() {
  simtest::Hand h(simtest::spec({"H1", "H2", "H 3", "S1"}, {{"H1", 1, "S1", 1}, {"H2", 1, "S1", 2}, {"H 3", 1, "S1", 3}}));
  h.lid("H1", 1); h.lid("H2", 2); h.lid("H 3", 3);
  h.activate_all();
  h.lft("S1", {0xFF, 1, 2, 3});
  return h;
}
}  // namespace

TEST_CASE("flows file: names, quoted names, ports, weights and comments") {
  auto h = three();
  const Net net = Net::of(*h.f);
  auto flows = parse_flows("# a comment\nH1 H2\n\n\"H 3\" H1[1] 2.5  # heavy\n", "f", net);
  REQUIRE(flows);
  REQUIRE(flows->size() == 2);
  CHECK(net.node_name(net.cas()[(*flows)[0].src].node) == "H1");
  CHECK((*flows)[0].weight == 1.0);
  CHECK(net.node_name(net.cas()[(*flows)[1].src].node) == "H 3");
  CHECK((*flows)[1].weight == doctest::Approx(2.5));
}

TEST_CASE("flows file: each mistake named with its file and line") {
  auto h = three();
  const Net net = Net::of(*h.f);
  const std::pair<const char*, const char*> cases[] = {
      {"H1 H2\nH1 H9\n", "f:2: no CA port with a link named 'H9'"},
      {"H1 H2 0\n", "f:1: weight '0': must be a number above 0"},
      {"H1 H2 x\n", "f:1: weight 'x'"},
      {"H1 H2 1 9\n", "f:1: expected SRC DST [WEIGHT], found more"},
      {"H1[2] H2\n", "f:1: 'H1' has no port 2 with a link"},
      {"H1[x] H2\n", "f:1: bad port"},
      {"\"H1 H2\n", "f:1: unterminated quote"},
      {"H1\n", "f:1: expected SRC DST [WEIGHT]"},
      {"H1 H1\n", "f:1: a flow from a port to itself"},
      {"# nothing\n", "f: no flows"},
  };
  for (const auto& [text, want] : cases) {
    CAPTURE(text);
    auto r = parse_flows(text, "f", net);
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find(want) == 0);
  }
  auto missing = load_flows_file("/nonexistent/flows", net);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("/nonexistent/flows") != std::string::npos);
}
