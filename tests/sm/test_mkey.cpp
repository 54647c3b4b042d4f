// M_Key protection on the simulated fabric, whose SMAs enforce it (sim/sma.cpp): a protected
// bring-up with per-port keys, a restart with the same secret, a changed secret that waits for
// the lease (and one that cannot, with lease 0), another SM's visible key taken over, one key at
// level 2, and a rogue host's Sets refused and reported (trap 256).
#include <doctest/doctest.h>

#include "mad/attributes.h"
#include "sm/mkey/secret.h"
#include "tests/sm/harness.h"

using namespace std::chrono_literals;
using smtest::load;
using smtest::Run;

namespace {

sm::mkey::Secret secret(std::string_view s) { return sm::mkey::Secret(s.begin(), s.end()); }

sm::SmConfig protected_cfg(std::string_view s, uint16_t lease = 0, uint8_t level = 1) {
  sm::SmConfig c;
  c.m_key_secret = secret(s);
  c.ports.m_key_protect = level;
  c.ports.m_key_lease = lease;
  return c;
}

// The port that holds each node's key (a switch's port 0, every CA port).
template <class F>
void for_key_ports(const sim::SimFabric& f, F fn) {
  for (const auto& n : f.nodes())
    for (const auto& p : n.ports)
      if (n.is_switch() ? p.num == 0 : p.num != 0 && !p.guid.is_zero()) fn(n, p);
}

// Every key port holds the key `s` gives it, with these protect bits and lease.
size_t ports_keyed_by(const sim::SimFabric& f, std::string_view s, uint8_t level, uint16_t lease) {
  size_t n = 0;
  for_key_ports(f, [&](const sim::SimNode& node, const sim::SimPort& p) {
    const mad::Guid g = node.is_switch() ? node.guid : p.guid;
    if (p.mkey == sm::mkey::derive_key(secret(s), g) && p.mkey_protect == level && p.mkey_lease == lease) ++n;
  });
  return n;
}

size_t key_ports(const sim::SimFabric& f) {
  size_t n = 0;
  for_key_ports(f, [&](const sim::SimNode&, const sim::SimPort&) { ++n; });
  return n;
}

constexpr std::string_view kSecretA = "secret-A-0123456789abcdef";
constexpr std::string_view kSecretB = "secret-B-0123456789abcdef";

}  // namespace

TEST_CASE("M_Key: a protected bring-up gives every port its own key, and no SMP of the SM is refused") {
  Run r(load("ft2-r8.net"), protected_cfg(kSecretA, 60));
  REQUIRE(r.until_idle());
  CHECK(r.sm->subnet_up());
  CHECK(r.verify().all_routed());
  CHECK(ports_keyed_by(*r.fabric, kSecretA, 1, 60) == key_ports(*r.fabric));
  CHECK(r.fabric->stats().mkey_refused == 0);  // each SMP carried the key of its port
  // Another sweep finds every key in place: nothing written.
  REQUIRE(r.sweep_again());
  CHECK(r.sm->last_sweep().program.port_sets == 0);
  CHECK(r.fabric->stats().mkey_refused == 0);
  CHECK_FALSE(r.logged("[E0607]"));
}

TEST_CASE("M_Key: a restart with the same secret reads and rewrites nothing it must not") {
  Run r(load("ft2-r8.net"), protected_cfg(kSecretA, 60));
  REQUIRE(r.until_idle());
  const auto before = r.lids();
  r.start(protected_cfg(kSecretA, 60));
  REQUIRE(r.until_idle());
  const auto& rep = r.sm->last_sweep();
  CHECK(rep.up);
  CHECK(rep.program.port_sets == 0);
  CHECK(rep.program.lft_blocks_written == 0);
  CHECK(r.lids() == before);
  CHECK(r.fabric->stats().mkey_refused == 0);
}

TEST_CASE("M_Key: a changed secret leaves the ports alone until their lease runs out, then takes them") {
  Run r(load("ft2-r8.net"), protected_cfg(kSecretA, 5));
  REQUIRE(r.until_idle());
  r.lines.clear();
  r.start(protected_cfg(kSecretB, 5));
  REQUIRE(r.until_idle());
  CHECK(r.logged("[E0607]"));
  CHECK(r.logged("left alone"));
  // Nothing written with the wrong key: the ports keep A's keys.
  CHECK(ports_keyed_by(*r.fabric, kSecretA, 1, 5) == key_ports(*r.fabric));
  const uint64_t refused = r.fabric->stats().mkey_refused;
  CHECK(refused > 0);
  REQUIRE(r.run_for(3s));
  CHECK(r.fabric->stats().mkey_refused == refused);  // left alone: no Set hammers them
  REQUIRE(r.run_for(5s));
  CHECK(r.logged("[I0608]"));
  CHECK(r.logged("[W0606]"));
  CHECK(ports_keyed_by(*r.fabric, kSecretB, 1, 5) == key_ports(*r.fabric));
  CHECK(r.sm->subnet_up());
  CHECK(r.verify().all_routed());
}

TEST_CASE("M_Key: with lease 0 a changed secret cannot take the ports, and says so") {
  Run r(load("ft2-r8.net"), protected_cfg(kSecretA, 0));
  REQUIRE(r.until_idle());
  r.lines.clear();
  r.start(protected_cfg(kSecretB, 0));
  REQUIRE(r.until_idle());
  CHECK(r.logged("[E0607]"));
  CHECK(r.logged("unrecoverable"));
  REQUIRE(r.run_for(20s));
  CHECK_FALSE(r.logged("[I0608]"));
  CHECK(ports_keyed_by(*r.fabric, kSecretA, 1, 0) == key_ports(*r.fabric));
  CHECK(r.verify().all_routed());  // A's tables stay
}

TEST_CASE("M_Key: another SM's key that a port shows (level 0) is replaced with this SM's") {
  auto spec = load("ft2-r8.net");
  Run r(std::move(spec), protected_cfg(kSecretA, 0));
  REQUIRE(r.until_idle());
  // Another SM had put its key at level 0 on one switch.
  const auto sw = *r.fabric->find("S1_000") ;
  REQUIRE(r.fabric->set_mkey(sw, 0, 0xFEEDFACE, 0, 0));
  r.lines.clear();
  REQUIRE(r.sweep_again());
  CHECK(r.logged("[W0606]"));
  CHECK(r.fabric->node(sw).ports[0].mkey == sm::mkey::derive_key(secret(kSecretA), r.fabric->node(sw).guid));
  CHECK(r.fabric->node(sw).ports[0].mkey_protect == 1);
}

TEST_CASE("M_Key: one key for every port at level 2; Gets without it are refused") {
  sm::SmConfig c;
  c.ports.m_key = 0x600DF00D;
  c.ports.m_key_protect = 2;
  Run r(load("ft2-r8.net"), c);
  REQUIRE(r.until_idle());
  CHECK(r.sm->subnet_up());
  size_t keyed = 0;
  for_key_ports(*r.fabric, [&](const sim::SimNode&, const sim::SimPort& p) { keyed += p.mkey == 0x600DF00D && p.mkey_protect == 2; });
  CHECK(keyed == key_ports(*r.fabric));
  CHECK(r.fabric->stats().mkey_refused == 0);
  r.start(c);  // a restart knows the one key: it reads everything
  REQUIRE(r.until_idle());
  CHECK(r.sm->last_sweep().up);
  CHECK(r.sm->last_sweep().program.port_sets == 0);
  CHECK(r.fabric->stats().mkey_refused == 0);
}

TEST_CASE("M_Key: a rogue host's Sets are refused and reported, naming it and the switch") {
  Run r(load("ft2-r8.net"), protected_cfg(kSecretA, 60));
  REQUIRE(r.until_idle());
  const auto host = *r.fabric->find("H00005");
  const auto sw = *r.fabric->find("S1_000");
  const auto rogue = *r.fabric->attach(host, 1);
  const uint16_t sw_lid = r.fabric->node(sw).ports[0].lid;
  const uint16_t rogue_lid = r.fabric->node(host).ports[1].lid;
  mad::Smp set = mad::make_lid_smp(mad::method::set, mad::attr::linear_fwd_table, 0);
  set.mkey = 0;  // level 1: a Get shows the attacker no key
  set.tid = 0x0BAD;
  mad::Packet p;
  p.mad = mad::encode_smp(set);
  p.addr.lid = mad::Lid(sw_lid);
  r.fabric->inject(rogue, p);
  r.lines.clear();
  REQUIRE(r.run_for(1s));
  CHECK(r.fabric->inbox(rogue).empty());  // refused: no answer at all
  CHECK(r.logged("[E0610]"));
  bool named = false;
  for (const auto& l : r.lines)
    if (l.find("[E0610]") != std::string::npos && l.find(r.fabric->node(host).description) != std::string::npos &&
        l.find(fmt::format("LID {}", rogue_lid)) != std::string::npos && l.find("LinearForwardingTable") != std::string::npos)
      named = true;
  CHECK(named);
  CHECK(r.verify().all_routed());
  // The next sweep reads the switch's M_KeyViolations.
  REQUIRE(r.sweep_again());
  CHECK(r.logged("[W0609]"));
  CHECK(r.subnet().sm.mkey_violations == 1);
  CHECK(r.subnet().sm.bad_mkey_traps == 1);
}
