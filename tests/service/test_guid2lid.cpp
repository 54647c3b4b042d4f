// OpenSM's guid2lid file through the whole stack: ports the store does not remember get the
// LIDs the file gives them; the store's own memory wins where it has one. (tests/ibsim/migrate.sh
// does the same with OpenSM's real file on ibsim.)
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "cli/drill.h"
#include "sim/netfile.h"
#include "tests/temp_dir.h"

using namespace std::chrono_literals;

namespace {

// Every LID-owning port (CA ports, switch port 0) of the fabric the cluster runs, by GUID.
std::map<mad::Guid, uint16_t> port_lids(cli::Cluster& c) {
  std::map<mad::Guid, uint16_t> out;
  for (const sim::SimNode& n : c.fabric().nodes())
    for (const sim::SimPort& p : n.ports)
      if ((n.is_switch() ? p.num == 0 : p.num != 0) && !p.guid.is_zero() && p.lid != 0) out[p.guid] = p.lid;
  return out;
}

std::map<mad::Guid, uint16_t> bring_up(sm::LidMap imported, const std::string& db = "") {
  auto spec = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/ft2-r8.net");
  REQUIRE(spec);
  cli::DrillSm sm{"H00000", {}, db, {}, std::move(imported)};
  auto c = cli::Cluster::create(*spec, {}, {std::move(sm)}, sm::Level::error);
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  REQUIRE((*c)->start(0));
  REQUIRE((*c)->run_until([&] { return (*c)->settled() && (*c)->masters().size() == 1; }, 30s));
  return port_lids(**c);
}

// The LIDs of `natural` handed out in reverse GUID order: a guid2lid file unlike fabricsm's own.
sm::LidMap reversed(const std::map<mad::Guid, uint16_t>& natural) {
  std::vector<uint16_t> lids;
  for (const auto& [g, l] : natural) lids.push_back(l);
  std::reverse(lids.begin(), lids.end());
  sm::LidMap out;
  size_t i = 0;
  for (const auto& [g, l] : natural) out[g] = sm::LidEntry{mad::Lid(lids[i++]), 0};
  return out;
}

}  // namespace

TEST_CASE("guid2lid: a fresh fabric gets the file's LIDs; the store's memory wins over the file") {
  const auto natural = bring_up({});
  REQUIRE(natural.size() > 10);
  const sm::LidMap file = reversed(natural);
  size_t differ = 0;
  for (const auto& [g, l] : natural) differ += file.at(g).lid.value() != l ? 1 : 0;
  REQUIRE(differ >= natural.size() - 1);  // the test could fail: the file is not what fabricsm picks

  const auto imported = bring_up(file);
  CHECK(imported.size() == natural.size());
  size_t as_file = 0;
  for (const auto& [g, l] : imported) as_file += file.at(g).lid.value() == l ? 1 : 0;
  CHECK(as_file == natural.size());

  testutil::TempDir dir;
  const std::string db = dir.file("fabricsm.db");
  CHECK(bring_up({}, db) == natural);    // the store now remembers fabricsm's own LIDs
  CHECK(bring_up(file, db) == natural);  // and they win over the file's
}
