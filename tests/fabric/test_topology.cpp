// Topology::second_path_to_port: the route a standby SM asks its master by when the canonical
// one is silent, on hand-built fabrics: disjoint from the canonical route wherever the fabric
// allows, none where it does not.
#include <doctest/doctest.h>

#include <set>

#include "net.h"

using ftest::id;

namespace {

// The nodes a directed route from the SM passes through, and the cables (node, out port).
struct Walk {
  std::vector<fabric::NodeId> nodes;
  std::set<std::pair<fabric::NodeId, uint8_t>> cables;  // both ends of each
  fabric::NodeId end = fabric::kNoNode;
};

Walk walk(const fabric::Topology& t, const mad::DrPath& path) {
  Walk w;
  fabric::NodeId at = t.sm_node();
  for (int hop = 1; hop <= path.hops(); ++hop) {
    const fabric::Port& out = t.port(at, path.at(hop));
    REQUIRE(out.linked());
    w.cables.insert({at, out.num.value()});
    w.cables.insert({out.peer, out.peer_port.value()});
    at = out.peer;
    w.nodes.push_back(at);
  }
  w.end = at;
  return w;
}

}  // namespace

TEST_CASE("second path: across a two-level tree, by another spine, sharing only the leaves") {
  const fabric::Topology t = ftest::two_level(3, 2, 2).sm("H0_0").build(0);
  const fabric::NodeId to = id(t, "H2_1");
  const auto second = t.second_path_to_port(to, mad::PortNum(1));
  REQUIRE(second);
  const Walk a = walk(t, t.path_to_port(to, mad::PortNum(1))), b = walk(t, *second);
  CHECK(a.end == to);
  CHECK(b.end == to);
  CHECK(b.nodes.size() == a.nodes.size());  // as short: another spine
  // Shared: the SM's own cable and leaf, the target's leaf and cable; nothing else.
  const std::set<fabric::NodeId> shared_ok{id(t, "L0"), id(t, "L2"), to};
  for (fabric::NodeId n : b.nodes)
    if (!shared_ok.contains(n)) CHECK(std::find(a.nodes.begin(), a.nodes.end(), n) == a.nodes.end());
  const std::set<std::pair<fabric::NodeId, uint8_t>> own{{t.sm_node(), 1}, {id(t, "L0"), 1}, {to, 1}, {id(t, "L2"), 2}};
  for (const auto& c : b.cables)
    if (!own.contains(c)) CHECK_FALSE(a.cables.contains(c));
  // A switch as the target: its spine-side route avoided in the same way.
  const auto to_leaf = t.second_path_to_port(id(t, "L1"), mad::PortNum(0));
  REQUIRE(to_leaf);
  CHECK(walk(t, *to_leaf).end == id(t, "L1"));
  CHECK_FALSE(*to_leaf == t.path_to_port(id(t, "L1"), mad::PortNum(0)));
}

TEST_CASE("second path: around a ring the other way; none on a chain, a shared leaf or the SM itself") {
  const fabric::Topology ring = ftest::chain(4, 1, true).sm("H0_0").build(0);
  const fabric::NodeId far = id(ring, "H1_0");
  const auto other = ring.second_path_to_port(far, mad::PortNum(1));
  REQUIRE(other);
  CHECK(walk(ring, *other).end == far);
  CHECK(other->hops() == ring.path_to_port(far, mad::PortNum(1)).hops() + 2);  // S0 S3 S2 S1, not S0 S1

  const fabric::Topology chain = ftest::chain(4, 1, false).sm("H0_0").build(0);
  CHECK_FALSE(chain.second_path_to_port(id(chain, "H2_0"), mad::PortNum(1)));
  const fabric::Topology tree = ftest::two_level(2, 2, 2).sm("H0_0").build(0);
  CHECK_FALSE(tree.second_path_to_port(id(tree, "H0_1"), mad::PortNum(1)));  // the same leaf
  CHECK_FALSE(tree.second_path_to_port(tree.sm_node(), mad::PortNum(1)));
  CHECK_FALSE(tree.second_path_to_port(static_cast<fabric::NodeId>(tree.node_count()), mad::PortNum(1)));
}
