// The QoS policy parser: every keyword of the supported subset, ranges and lists, and errors
// that name the file and the line (never an exception), including on mangled inputs.
#include <doctest/doctest.h>

#include <random>
#include <regex>
#include <string>

#include "sm/qos_policy/parse.h"
#include "tests/temp_dir.h"

using sm::qos::NodeKind;
using sm::qos::Range;
using sm::qos::Ranges;

namespace {

sm::qos::Policy parse_ok(std::string_view text) {
  auto r = sm::qos::parse_policy(text, "q.conf");
  REQUIRE_MESSAGE(r, (r ? "" : r.error().message));
  return *r;
}

std::string parse_err(std::string_view text) {
  auto r = sm::qos::parse_policy(text, "q.conf");
  REQUIRE_MESSAGE(!r, "parsed, but should not have");
  CHECK(r.error().code == mad::Errc::parse);
  return r.error().message;
}

const char* kFull = R"(# every keyword of the full policy
port-groups
    port-group # a comment after a keyword
        name: Storage
        use: SRP targets
        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA
        port-guid: 0x1000000000FFFF
    end-port-group
    port-group
        name: Virtual Servers
        port-name: vs1 HCA-1/P1, vs2 HCA-1/P2
    end-port-group
    port-group
        name: Partitions
        partition: storage
        pkey: 0x1234, 0x8010-0x8020
    end-port-group
    port-group
        name: CAs and SM
        node-type: CA, SELF, switch, Router, ALL
    end-port-group
end-port-groups

qos-setup
    anything: here is skipped, as OpenSM does
end-qos-setup

qos-levels
    qos-level
        name: DEFAULT
        use: default QoS Level
        sl: 0
    end-qos-level
    qos-level
        name: WholeSet
        sl: 15
        mtu-limit: 4
        rate-limit: 5
        pkey: 0x1234
        packet-life: 8
    end-qos-level
end-qos-levels

qos-match-rules
    qos-match-rule
        use: by QoS class
        qos-class: 7-9,11
        qos-level-name: WholeSet
    end-qos-match-rule
    qos-match-rule
        use: match by all parameters
        qos-class: 7-9,11
        source: Virtual Servers, CAs and SM
        destination: Storage
        service-id: 0x0000000000010000-0x000000000001FFFF
        pkey: 0x0F00-0x0FFF
        qos-level-name: WholeSet
    end-qos-match-rule
end-qos-match-rules
)";

}  // namespace

TEST_CASE("qos policy: every keyword of the full policy") {
  const auto p = parse_ok(kFull);
  REQUIRE(p.groups.size() == 4);
  CHECK(p.groups[0].name == "Storage");
  CHECK(p.groups[0].use == "SRP targets");
  CHECK(p.groups[0].guids == Ranges{{0x10000000000001, 0x10000000000001}, {0x10000000000005, 0x1000000000FFFA},
                                    {0x1000000000FFFF, 0x1000000000FFFF}});
  REQUIRE(p.groups[1].names.size() == 2);
  CHECK(p.groups[1].names[0].node_desc == "vs1 HCA-1");
  CHECK(p.groups[1].names[1].port == 2);
  CHECK(p.groups[2].partitions == std::vector<std::string>{"storage"});
  CHECK(p.groups[2].pkeys == Ranges{{0x1234, 0x1234}, {0x10, 0x20}});  // the membership bit dropped
  CHECK(p.groups[3].kinds ==
        std::vector<NodeKind>{NodeKind::ca, NodeKind::self, NodeKind::sw, NodeKind::router, NodeKind::all});
  REQUIRE(p.levels.size() == 2);
  CHECK(p.levels[p.default_level].name == "DEFAULT");
  const auto& w = p.levels[1];
  CHECK(w.sl == 15);
  CHECK(w.mtu_limit == 4);
  CHECK(w.rate_limit == 5);
  CHECK(w.packet_life == 8);
  CHECK(w.pkeys == Ranges{{0x1234, 0x1234}});
  CHECK_FALSE(p.levels[0].mtu_limit);
  REQUIRE(p.rules.size() == 2);
  CHECK(p.rules[0].qos_classes == Ranges{{7, 9}, {11, 11}});
  CHECK(p.rules[0].level == 1);
  CHECK(p.rules[0].line == 45);
  CHECK(p.rules[1].sources == std::vector<size_t>{1, 3});
  CHECK(p.rules[1].destinations == std::vector<size_t>{0});
  CHECK(p.rules[1].service_ids == Ranges{{0x10000, 0x1FFFF}});
  CHECK(p.rules[1].pkeys == Ranges{{0xF00, 0xFFF}});
  // The same text gives the same policy (no hidden state).
  CHECK(parse_ok(kFull) == p);
}

TEST_CASE("qos policy: the shortest files") {
  auto a = parse_ok("qos-levels\n qos-level\n  name: DEFAULT\n  sl: 3\n end-qos-level\nend-qos-levels\n");
  CHECK(a.levels[a.default_level].sl == 3);
  CHECK(a.rules.empty());
  auto b = parse_ok("qos-ulps\n  default : 5 # default SL\nend-qos-ulps\n");
  CHECK(b.levels[b.default_level].sl == 5);
  CHECK(b.rules.empty());
  // Keywords in any case, as values of node-type.
  auto c = parse_ok("QOS-LEVELS\n QoS-Level\n  Name: DEFAULT\n  SL: 1\n End-QoS-Level\nend-qos-levels\n");
  CHECK(c.levels[c.default_level].sl == 1);
}

TEST_CASE("qos policy: qos-ulps rules follow the full policy's, each with its SL") {
  const auto p = parse_ok(R"(
qos-ulps
    default                       : 0
    sdp, port-num 30000           : 1
    sdp, port-num 10000-20000     : 2
    sdp                           : 3
    rds                           : 4
    iser, port-num 900            : 5
    iser                          : 6
    ipoib, pkey 0x0001            : 7
    ipoib                         : 8
    any, service-id 0x6234        : 9
    any, pkey 0x0ABC              : 10
    srp, target-port-guid 0x1234  : 11
    any, target-port-guid 0x0ABC-0xFFFFF : 12
    any, source-port-guid 0x5678  : 13
end-qos-ulps
qos-match-rules
    qos-match-rule
        service-id: 0x1
        qos-level-name: DEFAULT
    end-qos-match-rule
end-qos-match-rules
)");
  REQUIRE(p.rules.size() == 14);
  CHECK(p.rules[0].service_ids == Ranges{{1, 1}});  // the full policy's rule first
  auto sl = [&](size_t i) { return p.levels[p.rules[i].level].sl; };
  for (size_t i = 1; i < 14; ++i) CHECK(sl(i) == i);
  CHECK(p.rules[1].service_ids == Ranges{{0x10000 + 30000, 0x10000 + 30000}});
  CHECK(p.rules[2].service_ids == Ranges{{0x10000 + 10000, 0x10000 + 20000}});
  CHECK(p.rules[3].service_ids == Ranges{{0x10000, 0x1FFFF}});
  CHECK(p.rules[4].service_ids == Ranges{{0x10648CA, 0x10648CA}});
  CHECK(p.rules[5].service_ids == Ranges{{0x1060000 + 900, 0x1060000 + 900}});
  CHECK(p.rules[6].service_ids == Ranges{{0x1060CBC, 0x1060CBC}});
  CHECK(p.rules[7].pkeys == Ranges{{1, 1}});
  CHECK(p.rules[8].pkeys == Ranges{{0x7FFF, 0x7FFF}});
  CHECK(p.rules[9].service_ids == Ranges{{0x6234, 0x6234}});
  CHECK(p.rules[10].pkeys == Ranges{{0xABC, 0xABC}});
  REQUIRE(p.rules[11].destinations.size() == 1);
  CHECK(p.groups[p.rules[11].destinations[0]].guids == Ranges{{0x1234, 0x1234}});
  CHECK(p.groups[p.rules[12].destinations[0]].guids == Ranges{{0xABC, 0xFFFFF}});
  REQUIRE(p.rules[13].sources.size() == 1);
  CHECK(p.groups[p.rules[13].sources[0]].guids == Ranges{{0x5678, 0x5678}});
  CHECK(p.levels[p.default_level].sl == 0);
}

TEST_CASE("qos policy: errors name the file, the line and what was expected") {
  const std::string level = "qos-levels\n qos-level\n  name: DEFAULT\n  sl: 0\n end-qos-level\nend-qos-levels\n";
  struct Case {
    std::string text;
    std::string where;  // "q.conf:LINE:"
    std::string says;
  };
  const Case cases[] = {
      {"bogus-section\n", "q.conf:1:", "expected a section"},
      {"port-groups\n port-group\n  name: A\n  colour: red\n end-port-group\nend-port-groups\n" + level, "q.conf:4:",
       "unknown keyword 'colour'"},
      {"port-groups\n port-group\n  name: A\n  port-guid: 0x10-0x5\n", "q.conf:4:", "empty range"},
      {"port-groups\n port-group\n  name: A\n  port-guid: 0xZZ\n", "q.conf:4:", "port-guid"},
      {"port-groups\n port-group\n  name: A\n  port-guid: 1,,2\n", "q.conf:4:", "empty item"},
      {"port-groups\n port-group\n  name: A\n  port-name: no port here\n", "q.conf:4:", "node description/Pport"},
      {"port-groups\n port-group\n  name: A\n  node-type: TOASTER\n", "q.conf:4:", "CA, SWITCH, ROUTER, ALL or SELF"},
      {"port-groups\n port-group\n  use: nameless\n end-port-group\n", "q.conf:2:", "without a name"},
      {"port-groups\n port-group\n  name: A\n end-port-group\n port-group\n  name: A\n end-port-group\n", "q.conf:5:",
       "defined twice (first at line 2)"},
      {"port-groups\n port-group\n  name: A\n", "q.conf:2:", "no end-port-group"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  sl: 16\n", "q.conf:4:", "sl"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  mtu-limit: 6\n", "q.conf:4:", "mtu-limit"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  mtu-limit: 0\n", "q.conf:4:", "below 1"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  rate-limit: 1\n", "q.conf:4:", "rate-limit"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  packet-life: 64\n", "q.conf:4:", "packet-life"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  pkey: 0x10000\n", "q.conf:4:", "pkey"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  pkey: 0x7ff0-0x8010\n", "q.conf:4:", "membership bit"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  sl 3\n", "q.conf:4:", "expected 'keyword: value'"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  sl:\n", "q.conf:4:", "no value"},
      {"qos-levels\n qos-level\n  name: DEFAULT\n  speed: 3\n", "q.conf:4:", "unknown keyword 'speed'"},
      {level + "qos-match-rules\n qos-match-rule\n  use: x\n end-qos-match-rule\nend-qos-match-rules\n", "q.conf:8:",
       "without a qos-level-name"},
      {level + "qos-match-rules\n qos-match-rule\n  source: Nowhere\n  qos-level-name: DEFAULT\n end-qos-match-rule\n"
               "end-qos-match-rules\n", "q.conf:9:", "no port-group named 'Nowhere'"},
      {level + "qos-match-rules\n qos-match-rule\n  qos-level-name: Gold\n end-qos-match-rule\nend-qos-match-rules\n",
       "q.conf:9:", "no qos-level named 'Gold'"},
      {level + "qos-match-rules\n qos-match-rule\n  qos-class: 4096\n", "q.conf:9:", "qos-class"},
      {level + "qos-match-rules\n qos-match-rule\n  service-id: 5-4\n", "q.conf:9:", "empty range"},
      {level + "qos-match-rules\n qos-match-rule\n  weight: 4\n", "q.conf:9:", "unknown keyword 'weight'"},
      {level + "qos-match-rules\n qos-match-rule\n  qos-level-name: DEFAULT\n  qos-level-name: DEFAULT\n", "q.conf:10:",
       "given twice"},
      {"qos-ulps\n default : 16\nend-qos-ulps\n", "q.conf:2:", "SL"},
      {"qos-ulps\n default : 1\n default : 2\nend-qos-ulps\n", "q.conf:3:", "first at line 2"},
      {"qos-ulps\n mpi : 1\nend-qos-ulps\n", "q.conf:2:", "unknown ULP 'mpi'"},
      {"qos-ulps\n sdp, pkey 1 : 1\nend-qos-ulps\n", "q.conf:2:", "port-num"},
      {"qos-ulps\n any : 1\nend-qos-ulps\n", "q.conf:2:", "needs a criterion"},
      {"qos-ulps\n any, service-id : 1\nend-qos-ulps\n", "q.conf:2:", "needs a value"},
      {"qos-ulps\n srp : 1\nend-qos-ulps\n", "q.conf:2:", "target-port-guid"},
      {"qos-ulps\n sdp 3\nend-qos-ulps\n", "q.conf:2:", "expected 'ulp[, criterion] : SL'"},
      {"qos-ulps\n sdp, port-num 70000 : 1\nend-qos-ulps\n", "q.conf:2:", "port-num"},
      {"qos-levels\n qos-level\n  name: Gold\n end-qos-level\nend-qos-levels\n", "q.conf:5:", "no qos-level named DEFAULT"},
      {"", "q.conf:1:", "no qos-level named DEFAULT"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string e = parse_err(c.text);
    CHECK_MESSAGE(e.starts_with(c.where), e);
    CHECK_MESSAGE(e.find(c.says) != std::string::npos, e);
  }
}

TEST_CASE("qos policy: partition names resolve to their P_Keys, an unknown one names its line") {
  auto p = parse_ok(kFull);
  auto parts = sm::parse_partitions("Default=0x7fff : ALL=full ;\nstorage=0x0002 : ALL=full ;\n", "p.conf");
  REQUIRE(parts);
  auto q = p;
  REQUIRE(sm::qos::resolve_partitions(q, *parts, "q.conf"));
  CHECK(q.groups[2].pkeys.back() == Range{2, 2});
  CHECK(q.groups[2].partitions.empty());
  auto only_default = sm::PartitionSet::defaults();
  auto r = sm::qos::resolve_partitions(p, only_default, "q.conf");
  REQUIRE_FALSE(r);
  CHECK(r.error().message.starts_with("q.conf:15:"));
  CHECK(r.error().message.find("'storage'") != std::string::npos);
}

TEST_CASE("qos policy: load_policy reads a file and names it in errors") {
  testutil::TempDir dir;
  dir.write("good.conf", kFull);
  auto ok = sm::qos::load_policy(dir.file("good.conf"));
  REQUIRE_MESSAGE(ok, (ok ? "" : ok.error().message));
  CHECK(ok->rules.size() == 2);
  dir.write("bad.conf", "qos-levels\n qos-level\n  name: DEFAULT\n  sl: 99\n");
  auto bad = sm::qos::load_policy(dir.file("bad.conf"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.starts_with(dir.file("bad.conf") + ":4:"));
  CHECK_FALSE(sm::qos::load_policy(dir.file("missing.conf")));
}

// Mangled inputs (bytes dropped, swapped, duplicated, lines cut, binary noise): each parses or
// fails with a parse error that names the file and a line of the text, never throws or crashes.
TEST_CASE("qos policy: mangled inputs give an error with file:line or a consistent policy") {
  std::mt19937 rng(19);
  const std::string base = std::string(kFull) + "qos-ulps\n default : 1\n sdp, port-num 5 : 2\n any, pkey 3 : 4\nend-qos-ulps\n";
  const std::regex where("^fuzz:([0-9]+): .+");
  int ok = 0, failed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string t = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      const size_t at = rng() % t.size();
      switch (rng() % 5) {
        case 0: t.erase(at, 1 + rng() % 8); break;
        case 1: t[at] = static_cast<char>(rng() % 256); break;
        case 2: t.insert(at, t.substr(rng() % t.size(), rng() % 40)); break;
        case 3: t.insert(at, std::string(1, ":,-#\n"[rng() % 5])); break;
        case 4: t.resize(at); break;
      }
    }
    auto r = sm::qos::parse_policy(t, "fuzz");
    if (!r) {
      ++failed;
      std::smatch m;
      REQUIRE_MESSAGE(std::regex_match(r.error().message, m, where), r.error().message);
      const long lines = 1 + std::count(t.begin(), t.end(), '\n');
      CHECK(std::stol(m[1]) >= 1);
      CHECK(std::stol(m[1]) <= lines);
      continue;
    }
    ++ok;
    // What the parser promises: every index valid, the default level among the levels.
    REQUIRE(r->default_level < r->levels.size());
    for (const auto& rule : r->rules) {
      CHECK(rule.level < r->levels.size());
      for (size_t g : rule.sources) CHECK(g < r->groups.size());
      for (size_t g : rule.destinations) CHECK(g < r->groups.size());
    }
    for (const auto& l : r->levels) CHECK(l.sl <= 15);
  }
  CHECK(ok > 0);  // both outcomes were exercised
  CHECK(failed > 0);
}
