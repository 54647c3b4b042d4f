// M_Key and HA on the simulated fabric: a standby holding the master's secret takes over and
// touches no key; an SM with another secret is not shown the SM_Key (its M_Key does not check
// out at the master's port), cannot take the ports over, and says so.
#include <doctest/doctest.h>

#include "cli/drill.h"
#include "sim/generators.h"
#include "sim/netfile.h"
#include "sim/verifier.h"
#include "sm/mkey/secret.h"

using namespace std::chrono_literals;

namespace {

constexpr std::string_view kSecretA = "secret-A-0123456789abcdef";
constexpr std::string_view kSecretB = "secret-B-0123456789abcdef";

std::unique_ptr<cli::Cluster> keyed_cluster(std::string_view master_secret, std::string_view standby_secret) {
  auto spec = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/ft3-r8.net");
  REQUIRE(spec);
  std::vector<cli::DrillSm> d(2);
  const std::string_view secrets[] = {master_secret, standby_secret};
  const char* nodes[] = {"H00000", "H00064"};
  for (size_t i = 0; i < 2; ++i) {
    d[i].node = nodes[i];
    d[i].cfg.ha.priority = static_cast<uint8_t>(15 - 5 * i);
    d[i].cfg.m_key_secret = sm::mkey::Secret(secrets[i].begin(), secrets[i].end());
    d[i].cfg.ports.m_key_protect = 1;
    d[i].cfg.ports.m_key_lease = 0;
  }
  auto c = cli::Cluster::create(*spec, {}, std::move(d), sm::Level::info);
  REQUIRE(c);
  return std::move(*c);
}

// The keys the fabric's ports hold (a switch's port 0, every CA port).
std::map<uint64_t, uint64_t> keys(const cli::Cluster& c) {
  std::map<uint64_t, uint64_t> out;
  for (const auto& n : c.fabric().nodes())
    for (const auto& p : n.ports)
      if (n.is_switch() ? p.num == 0 : p.num != 0) out[p.guid.value() ? p.guid.value() : n.guid.value()] = p.mkey;
  return out;
}

bool logged(const cli::Cluster& c, size_t i, std::string_view what) {
  for (const auto& l : c.log_lines(i))
    if (l.find(what) != std::string::npos) return true;
  return false;
}

void up(cli::Cluster& c) {
  c.start(0);
  c.start(1);
  REQUIRE(c.run_until([&] { return c.settled() && c.masters() == std::vector<size_t>{0}; }, 20s));
  c.run_for(500ms);
}

}  // namespace

TEST_CASE("M_Key takeover: a standby with the master's secret takes over without touching a key") {
  auto c = keyed_cluster(kSecretA, kSecretA);
  up(*c);
  const auto before = keys(*c);
  for (const auto& [port, key] : before) CHECK(key == sm::mkey::derive_key(
      sm::mkey::Secret(kSecretA.begin(), kSecretA.end()), mad::Guid(port)));
  c->kill(0);
  REQUIRE(c->run_until([&] { return c->settled() && c->masters() == std::vector<size_t>{1}; }, 5s));
  c->run_for(1s);
  CHECK(keys(*c) == before);
  CHECK(c->fabric().stats().mkey_refused == 0);  // every SMP of both SMs carried the right key
  CHECK_FALSE(logged(*c, 1, "[E0607]"));
  CHECK(sim::verify_routing(c->fabric()).all_routed());
}

TEST_CASE("M_Key takeover: an SM with another secret cannot take the ports over, and says so") {
  auto c = keyed_cluster(kSecretA, kSecretB);
  c->start(0);
  REQUIRE(c->run_until([&] { return c->settled() && c->masters() == std::vector<size_t>{0}; }, 20s));
  const auto before = keys(*c);
  c->start(1);
  c->run_for(2s);
  // Its SMInfo Get carries no key the master's port knows: it is not shown the SM_Key, so it
  // cannot stand by under that master either.
  CHECK(logged(*c, 1, "[E0804]"));
  c->kill(0);
  c->run_for(3s);
  CHECK(c->masters() == std::vector<size_t>{1});
  CHECK(logged(*c, 1, "[E0607]"));
  CHECK(logged(*c, 1, "unrecoverable"));
  CHECK(keys(*c) == before);  // nothing written with its keys
  CHECK(sim::verify_routing(c->fabric()).all_routed());  // the first master's tables stay
}

TEST_CASE("M_Key: with standbys walking beside it, the master reaches every port by its canonical path") {
  // The master's walk met some CAs by other routes than the topology's canonical ones; the
  // activations went out there with no key and were refused (49 s to SUBNET UP on this fabric).
  auto spec = sim::make_fat_tree(3, 16);
  REQUIRE(spec);
  std::vector<cli::DrillSm> d(3);
  const char* nodes[] = {"H00000", "H00341", "H00682"};
  for (size_t i = 0; i < 3; ++i) {
    d[i].node = nodes[i];
    d[i].cfg.routing_engine = "ftree,updn,minhop";  // as `run` and `drill --config` set it up
    d[i].cfg.mads.window = 64;
    d[i].cfg.mads.timeout = 200ms;
    d[i].cfg.ha.priority = static_cast<uint8_t>(15 - 5 * i);
    d[i].cfg.m_key_secret = sm::mkey::Secret(kSecretA.begin(), kSecretA.end());
  }
  auto c = cli::Cluster::create(*spec, {}, std::move(d), sm::Level::error);
  REQUIRE(c);
  for (size_t i = 0; i < 3; ++i) (*c)->start(i);
  REQUIRE((*c)->run_until([&] { return (*c)->settled() && (*c)->masters().size() == 1 && (*c)->sm(0).subnet_up(); }, 1s));
  CHECK((*c)->fabric().stats().mkey_refused == 0);
  CHECK(sim::verify_routing((*c)->fabric()).all_routed());
}
