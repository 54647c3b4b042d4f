// The engine table and chains.
#include <doctest/doctest.h>

#include "checks.h"
#include "helpers.h"

using namespace rtest;

TEST_SUITE("unit") {

TEST_CASE("registry: the engines, by name") {
  const auto names = routing::engine_names();
  CHECK(names == std::vector<std::string_view>{"minhop", "updn", "ftree", "adaptive-hint"});
  for (auto n : names) {
    auto e = routing::make_engine(n);
    REQUIRE(e.has_value());
    CHECK((*e)->name() == n);
  }
  auto bad = routing::make_engine("lash");
  REQUIRE(!bad.has_value());
  CHECK(bad.error().code == mad::Errc::not_found);
  CHECK(bad.error().message ==
        "unknown routing engine 'lash' (known: minhop, updn, ftree, adaptive-hint)");
}

TEST_CASE("registry: chains are checked") {
  CHECK(routing::parse_chain("ftree,updn,minhop").value() ==
        std::vector<std::string>{"ftree", "updn", "minhop"});
  CHECK_FALSE(routing::parse_chain("ftree,,minhop").has_value());
  CHECK_FALSE(routing::parse_chain("").has_value());
  CHECK_FALSE(routing::parse_chain("ftree,dor").has_value());
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
