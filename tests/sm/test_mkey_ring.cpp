// sm/mkey/: the key of each port (derived from the secret, checked against an independent HMAC),
// the secret file's checks, and what the KeyRing learns from answers.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <fstream>

#include "mad/attributes.h"
#include "sm/mkey/key_ring.h"
#include "sm/mkey/secret.h"
#include "tests/temp_dir.h"

using sm::mkey::KeyRing;
using sm::mkey::Secret;

namespace {

Secret secret_of(std::string_view s) { return Secret(s.begin(), s.end()); }

mad::Smp answer(uint16_t attr, uint32_t mod, const mad::DrPath& path) {
  mad::Smp s = mad::make_dr_smp(mad::method::get, attr, mod, path);
  s.method = mad::method::get_resp;
  s.direction = true;
  return s;
}

mad::Smp node_info_answer(const mad::DrPath& path, mad::Guid port, mad::NodeType type) {
  mad::Smp s = answer(mad::attr::node_info, 0, path);
  mad::NodeInfo ni;
  ni.node_type = type;
  ni.num_ports = type == mad::NodeType::sw ? 8 : 1;
  ni.node_guid = port;
  ni.port_guid = port;
  s.data = mad::encode_attr(ni);
  return s;
}

mad::Smp port_info_answer(const mad::DrPath& path, uint32_t mod, uint64_t key) {
  mad::Smp s = answer(mad::attr::port_info, mod, path);
  mad::PortInfo pi;
  pi.m_key = key;
  pi.m_key_protect_bits = 1;
  s.data = mad::encode_attr(pi);
  return s;
}

void write_file(const std::string& path, std::string_view text, mode_t mode) {
  std::ofstream(path) << text;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

}  // namespace

TEST_CASE("M_Key derivation: HMAC-SHA256 of the label and the GUID, as an independent HMAC gives it") {
  const Secret s = secret_of("0123456789abcdef-secret");
  // python3: hmac.new(secret, b"fabricsm M_Key" + struct.pack(">Q", guid), sha256).digest()[:8]
  CHECK(sm::mkey::derive_key(s, mad::Guid(0x0002c90300000001)) == 0x1c8b81fa462a2598ULL);
  CHECK(sm::mkey::derive_key(s, mad::Guid(0x0002c90300000002)) == 0xd96b14b942a45927ULL);
  CHECK(sm::mkey::derive_key(secret_of("0123456789abcdef-other"), mad::Guid(0x0002c90300000001)) !=
        0x1c8b81fa462a2598ULL);
}

TEST_CASE("M_Key derivation: one keyed deriver gives every port's key, in any order, and so do its copies") {
  const Secret s = secret_of("0123456789abcdef-secret");
  const sm::mkey::KeyDeriver d(s);
  REQUIRE(!d.empty());
  // Reused: each key restarts from the keyed state (a state carried over would change the second).
  CHECK(d.derive(mad::Guid(0x0002c90300000002)) == 0xd96b14b942a45927ULL);
  CHECK(d.derive(mad::Guid(0x0002c90300000001)) == 0x1c8b81fa462a2598ULL);
  CHECK(d.derive(mad::Guid(0x0002c90300000002)) == 0xd96b14b942a45927ULL);
  sm::mkey::KeyDeriver copy = d;
  CHECK(copy.derive(mad::Guid(0x0002c90300000001)) == 0x1c8b81fa462a2598ULL);
  for (uint64_t g = 1; g < 200; ++g) CHECK(d.derive(mad::Guid(g)) == sm::mkey::derive_key(s, mad::Guid(g)));
  const sm::mkey::KeyDeriver none;
  CHECK(none.empty());
  CHECK(none.derive(mad::Guid(1)) == 0);
}

TEST_CASE("M_Key secret file: owner-only, 16 bytes or more, one newline dropped") {
  testutil::TempDir dir;
  const std::string f = dir.file("secret");
  write_file(f, "0123456789abcdef-secret\n", 0600);
  auto s = sm::mkey::read_secret_file(f);
  REQUIRE(s);
  CHECK(*s == secret_of("0123456789abcdef-secret"));
  write_file(f, "0123456789abcdef-secret\n", 0640);
  auto open = sm::mkey::read_secret_file(f);
  REQUIRE_FALSE(open);
  CHECK(open.error().message.find("chmod 600") != std::string::npos);
  write_file(f, "short\n", 0600);
  auto shorter = sm::mkey::read_secret_file(f);
  REQUIRE_FALSE(shorter);
  CHECK(shorter.error().message.find("16 to 4096") != std::string::npos);
  CHECK_FALSE(sm::mkey::read_secret_file(dir.file("none")));
  CHECK_FALSE(sm::mkey::read_secret_file(dir.path.string()));  // a directory
}

TEST_CASE("KeyRing: one key for all ports, or each port's own once it answered at a path") {
  const mad::DrPath sw_path = mad::DrPath().extended(mad::PortNum(1));
  const mad::DrPath ca_path = sw_path.extended(mad::PortNum(3));
  const mad::Guid sw(0x10), ca(0x20);
  KeyRing none;
  CHECK_FALSE(none.protects());
  CHECK(none.for_path(sw_path) == 0);
  KeyRing one(0x1234, {});
  CHECK(one.for_path(sw_path) == 0x1234);
  CHECK(one.own_key(ca) == 0x1234);

  const Secret s = secret_of("0123456789abcdef-secret");
  KeyRing ring(0x1234, s);  // the secret wins
  CHECK(ring.per_port());
  CHECK(ring.for_path(sw_path) == 0);  // nobody answered there yet: no key (a Get passes at level 0-1)
  ring.note_answer(node_info_answer(sw_path, sw, mad::NodeType::sw));
  ring.note_answer(node_info_answer(ca_path, ca, mad::NodeType::ca));
  CHECK(ring.for_path(sw_path) == sm::mkey::derive_key(s, sw));
  CHECK(ring.for_path(ca_path) == sm::mkey::derive_key(s, ca));
  CHECK(ring.for_path(ca_path) != ring.for_path(sw_path));
  ring.learn_lid(mad::Lid(7), ca);
  CHECK(ring.for_lid(mad::Lid(7)) == sm::mkey::derive_key(s, ca));
  CHECK(ring.for_lid(mad::Lid(8)) == 0);
}

TEST_CASE("KeyRing: a key another SM left showing is used until this SM's is on the port") {
  const mad::DrPath sw_path = mad::DrPath().extended(mad::PortNum(2));
  const mad::Guid sw(0x10);
  const Secret s = secret_of("0123456789abcdef-secret");
  KeyRing ring(0, s);
  ring.note_answer(node_info_answer(sw_path, sw, mad::NodeType::sw));
  ring.note_answer(port_info_answer(sw_path, 3, 0xBAD));  // an external port: not the switch's key
  CHECK_FALSE(ring.has_found(sw));
  ring.note_answer(port_info_answer(sw_path, 0, 0xBAD));
  CHECK(ring.has_found(sw));
  CHECK(ring.for_path(sw_path) == 0xBAD);
  CHECK(ring.own_key(sw) == sm::mkey::derive_key(s, sw));
  ring.note_answer(port_info_answer(sw_path, 0, 0));  // hidden: tells nothing
  CHECK(ring.has_found(sw));
  ring.note_answer(port_info_answer(sw_path, 0, sm::mkey::derive_key(s, sw)));
  CHECK_FALSE(ring.has_found(sw));
  CHECK(ring.for_path(sw_path) == sm::mkey::derive_key(s, sw));
  ring.refuse(sw);
  CHECK(ring.refusing(sw));
  ring.accept(sw);
  CHECK_FALSE(ring.refusing(sw));
}
