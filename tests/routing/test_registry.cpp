// The engine table and chains.
#include <doctest/doctest.h>

#include <algorithm>

#include "checks.h"
#include "helpers.h"
#include "routing/fabric_view.h"

using namespace rtest;

TEST_SUITE("unit") {

TEST_CASE("registry: the engines, by name") {
  const auto names = routing::engine_names();
  REQUIRE_FALSE(names.empty());
  std::string known;
  for (auto n : names) {
    CAPTURE(n);
    CHECK(std::count(names.begin(), names.end(), n) == 1);
    CHECK(n.find(',') == std::string_view::npos);  // chains are split at commas
    CHECK(engine(n)->name() == n);
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  auto bad = routing::make_engine("nosuch");
  REQUIRE(!bad.has_value());
  CHECK(bad.error().code == mad::Errc::not_found);
  CHECK(bad.error().message == "unknown routing engine 'nosuch' (known: " + known + ")");
}

TEST_CASE("registry: every engine says what it can do") {
  // A small fat tree and a ring: every engine with an up/down rule orients the tree (over all
  // its switches, one rank each), and the others have no orientation at all.
  const fabric::Topology tree = to_topology(two_level(3, 2, 2));
  auto fv = routing::FabricView::build(tree);
  REQUIRE(fv.has_value());
  for (auto n : routing::engine_names()) {
    CAPTURE(n);
    const auto e = engine(n);
    const std::string_view d = e->description();
    CHECK_FALSE(d.empty());
    CHECK(d.find('\n') == std::string_view::npos);  // one line, for listings and the help
    CHECK(d.find(';') == std::string_view::npos);    // the help separates engines by ';'
    const auto o = e->orientation(*fv, {});
    if (e->repair_rule() == routing::RepairRule::up_down) {
      REQUIRE_MESSAGE(o.has_value(), (o ? "" : o.error().message));
      CHECK(o->size() == fv->switch_count());
      // Up*/down* over an orientation is what makes such an engine deadlock-free.
      CHECK(e->deadlock_free());
    } else {
      CHECK_FALSE(o.has_value());
    }
  }
}

TEST_CASE("registry: chains are checked") {
  CHECK(routing::parse_chain("ftree,updn,minhop").value() ==
        std::vector<std::string>{"ftree", "updn", "minhop"});
  CHECK_FALSE(routing::parse_chain("ftree,,minhop").has_value());
  CHECK_FALSE(routing::parse_chain("").has_value());
  CHECK_FALSE(routing::parse_chain("ftree,torus-2QoS").has_value());
}

TEST_CASE("registry: a chain moves on, and says why") {
  SUBCASE("a ring is no fat tree: updn routes it") {
    const fabric::Topology topo = to_topology(ring(5, 1));
    auto r = routing::compute_chain("ftree,updn,minhop", topo, {});
    REQUIRE(r.has_value());
    CHECK(r->used == "updn");
    REQUIRE(r->passed_over.size() == 1);
    CHECK(r->passed_over[0].find("ftree: not a fat tree: ") == 0);
    CHECK(undelivered(topo, r->tables).empty());
    CHECK(cdg_acyclic(topo, r->tables));
  }
  SUBCASE("a tree goes to ftree") {
    const fabric::Topology topo = to_topology(two_level(2, 2, 2));
    auto r = routing::compute_chain("ftree,updn", topo, {});
    REQUIRE(r.has_value());
    CHECK(r->used == "ftree");
    CHECK(r->passed_over.empty());
    CHECK(r->tables == route("ftree", topo));
  }
  SUBCASE("nothing left: the error lists every reason") {
    const fabric::Topology topo = to_topology(ring(3, 1));
    routing::RoutingOptions opts;
    opts.root_guids = {mad::Guid(0x77)};
    auto r = routing::compute_chain("ftree,updn", topo, opts);
    REQUIRE(!r.has_value());
    CHECK(r.error().message.find("no engine of 'ftree,updn' could route: ftree: not a fat tree") ==
          0);
    CHECK(r.error().message.find("; updn: none of the configured root GUIDs") != std::string::npos);
  }
}

}  // TEST_SUITE
