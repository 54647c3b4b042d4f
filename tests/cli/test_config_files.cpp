// Configuration files in fabricsm's form and OpenSM's (cli/opensm_conf.h): what takes effect,
// what is reported, what is refused (with the line), and --dump-config's active lines.
#include <doctest/doctest.h>

#include <boost/program_options.hpp>
#include <sys/stat.h>

#include <fstream>

#include "cli/config.h"
#include "cli/opensm_conf.h"
#include "tests/temp_dir.h"

namespace {

struct Files {
  testutil::TempDir dir;
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir.file(name);
    std::ofstream(path) << text;
    return path;
  }
};

mad::Result<cli::DaemonConfig> read(Files& f, const std::string& text) {
  cli::DaemonConfig c;
  if (auto r = cli::apply_config_file(f.write("test.conf", text), c); !r) return std::unexpected(r.error());
  c.finalize();
  return c;
}

std::string error_of(Files& f, const std::string& text) {
  auto c = read(f, text);
  REQUIRE_FALSE(c);
  return c.error().message.substr(c.error().message.find("test.conf"));
}

}  // namespace

TEST_CASE("config files: both forms, comments, (null), a key twice") {
  auto lines = cli::parse_config_lines("# c\nsm_priority = 5  # five\n\tsweep_interval 7\nroot_guid_file (null)\n"
                                       "lmc=1\r\n",
                                       "f");
  REQUIRE(lines);
  REQUIRE(lines->size() == 4);
  CHECK((*lines)[0].key == "sm_priority");
  CHECK((*lines)[0].value == "5");
  CHECK_FALSE((*lines)[0].opensm_form);
  CHECK((*lines)[0].line == 2);
  CHECK((*lines)[1].value == "7");
  CHECK((*lines)[1].opensm_form);
  CHECK((*lines)[2].value.empty());
  CHECK((*lines)[3].value == "1");
  auto twice = cli::parse_config_lines("lmc 1\nlmc = 2\n", "f");
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message == "f:2: 'lmc' is given twice (first on line 1)");
  auto lone = cli::parse_config_lines("\nguid\n", "f");
  REQUIRE_FALSE(lone);
  CHECK(lone.error().message == "f:2: 'guid' is not 'key = value' (or OpenSM's 'key value')");
}

TEST_CASE("config files: an opensm.conf takes effect under OpenSM's names; its defaults leave fabricsm's") {
  Files f;
  const cli::DaemonConfig defaults;
  auto c = read(f,
                "guid 0x0000000000000000\n"    // OpenSM's default: any port
                "sm_priority 14\n"              // set
                "sminfo_polling_timeout 10000\n"  // OpenSM's default: fabricsm's 100 ms stays
                "polling_retry_number 7\n"      // set
                "max_wire_smps 4\n"             // OpenSM's default
                "packet_life_time 0x13\n"       // set, in hex
                "routing_engine updn,minhop\n"
                "root_guid_file (null)\n"
                "qos FALSE\n"                   // not implemented, at its default: nothing to say
                "lmc_esp0 TRUE\n"               // not implemented, changed: reported
                "log_file /var/log/opensm.log\n");
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  CHECK(c->guid.empty());
  CHECK(c->sm.ha.priority == 14);
  CHECK(c->sm.ha.poll_interval == defaults.sm.ha.poll_interval);
  CHECK(c->sm.ha.max_misses == 7);
  CHECK(c->sm.mads.window == defaults.sm.mads.window);
  CHECK(c->sm.ports.switch_life_time == 0x13);
  CHECK(c->sm.routing_engine == "updn,minhop");
  REQUIRE(c->notes.size() == 1);
  CHECK(c->notes[0].find("OpenSM options fabricsm does not implement, ignored: lmc_esp0 TRUE (line 10)") !=
        std::string::npos);
  CHECK(c->notes[0].find("qos") == std::string::npos);
  CHECK(c->notes[0].find("log_file") == std::string::npos);  // OpenSM's default path
}

TEST_CASE("config files: fabricsm's form honours a value equal to OpenSM's default") {
  Files f;
  auto c = read(f, "sminfo_polling_timeout = 10000\nmax_wire_smps = 4\n");
  REQUIRE(c);
  CHECK(c->sm.ha.poll_interval == std::chrono::milliseconds(10000));
  CHECK(c->sm.mads.window == 4);
}

TEST_CASE("config files: what fabricsm cannot honour is refused with the key and the line") {
  Files f;
  CHECK(error_of(f, "sm_priority 1\nrouting_engine torus-2QoS\n").starts_with("test.conf:2: bad value for 'routing_engine'"));
  CHECK(error_of(f, "lmc 9\n") == "test.conf:1: bad value for 'lmc': 9 is outside 0..7");
  CHECK(error_of(f, "\n\nno_such_key 1\n") == "test.conf:3: unknown key 'no_such_key'");
  CHECK(error_of(f, "sm_priority = x\n").starts_with("test.conf:1: bad value for 'sm_priority'"));
  // Nothing of a refused file is applied.
  cli::DaemonConfig c;
  CHECK_FALSE(cli::apply_config_file(f.write("bad.conf", "sm_priority 9\nlmc 9\n"), c));
  CHECK(c.sm.ha.priority == cli::DaemonConfig().sm.ha.priority);
}

TEST_CASE("config files: the files options name, errors naming the option; a missing partitions file") {
  Files f;
  boost::program_options::variables_map none;
  auto missing_roots = cli::load_config(f.write("a.conf", "root_guid_file = /nonexistent/roots\n"), none);
  REQUIRE_FALSE(missing_roots);
  // The option's file and line come first: the operator sees which line named the file.
  CHECK(missing_roots.error().message.starts_with(f.dir.file("a.conf") + ":1: root_guid_file: /nonexistent/roots"));
  // OpenSM's "(null)" in fabricsm's form is a file name like any other, refused naming the key.
  auto null_roots = cli::load_config(f.write("n.conf", "lmc = 0\nroot_guid_file = (null)\n"), none);
  REQUIRE_FALSE(null_roots);
  CHECK(null_roots.error().message.starts_with(f.dir.file("n.conf") + ":2: root_guid_file: (null): "));
  auto bad_lids = cli::load_config(f.write("b.conf", "guid2lid_file = " + f.write("g2l", "0x1 1 2\n") + "\n"), none);
  REQUIRE_FALSE(bad_lids);
  CHECK(bad_lids.error().message.starts_with(f.dir.file("b.conf") + ":1: guid2lid_file: "));
  CHECK(bad_lids.error().message.find("g2l:1:") != std::string::npos);
  // Debian's opensm.conf names /etc/opensm/partitions.conf, which is not there: OpenSM's default
  // partition and a warning, not a refusal.
  auto parts = cli::load_config(f.write("c.conf", "partition_config_file /nonexistent/partitions.conf\n"), none);
  REQUIRE_MESSAGE(parts, (parts ? "" : parts.error().message));
  REQUIRE(parts->notes.size() == 1);
  CHECK(parts->notes[0].starts_with("partition_config_file /nonexistent/partitions.conf does not exist"));
  auto lids = cli::load_config(f.write("d.conf", "guid2lid_file " + f.write("g2l2", "0x5 0x3 0x3\n") + "\n"), none);
  REQUIRE_MESSAGE(lids, (lids ? "" : lids.error().message));
  CHECK(lids->imported_lids.at(mad::Guid(5)).lid == mad::Lid(3));
}

TEST_CASE("config files: --dump-config sets what differs from the defaults, and reads back the same") {
  Files f;
  auto c = read(f, "sm_priority 7\nrouting_engine = updn\nperfmgr TRUE\n");
  REQUIRE(c);
  const std::string text = cli::config_file_text(*c);
  CHECK(text.find("\nsm_priority = 7\n") != std::string::npos);
  CHECK(text.find("\nrouting_engine = updn\n") != std::string::npos);
  CHECK(text.find("\nperfmgr = TRUE\n") != std::string::npos);
  CHECK(text.find("\n# lmc = 0\n") != std::string::npos);
  auto again = read(f, text);
  REQUIRE_MESSAGE(again, (again ? "" : again.error().message));
  CHECK(cli::describe(*again) == cli::describe(*c));
  // Every OpenSM default is one fabricsm reads as such.
  for (const cli::OpenSmKey& k : cli::opensm_keys()) CHECK(cli::is_opensm_default(k, k.default_value));
}

TEST_CASE("allow_both_pkeys (OpenSM's name, default FALSE) reaches the partitions") {
  Files f;
  boost::program_options::variables_map none;
  auto off = cli::load_config(f.write("off.conf", "sm_priority 3\n"), none);
  REQUIRE(off);
  CHECK_FALSE(off->sm.partitions.allow_both_pkeys);
  auto on = cli::load_config(f.write("on.conf", "allow_both_pkeys TRUE\n"), none);
  REQUIRE(on);
  CHECK(on->sm.partitions.allow_both_pkeys);
  CHECK(on->notes.empty());  // implemented: not in the note of OpenSM keys left out
}

TEST_CASE("M_Key options: the secret file must be owner-only, not with level 2; keys never shown") {
  Files f;
  boost::program_options::variables_map none;
  const std::string secret = f.write("secret", "0123456789abcdef-secret\n");
  ::chmod(secret.c_str(), 0644);
  auto open = cli::load_config(f.write("a.conf", "m_key_secret_file = " + secret + "\n"), none);
  REQUIRE_FALSE(open);
  CHECK(open.error().message.starts_with(f.dir.file("a.conf") + ":1: m_key_secret_file: "));
  CHECK(open.error().message.find("chmod 600") != std::string::npos);
  ::chmod(secret.c_str(), 0600);
  auto ok = cli::load_config(f.write("b.conf", "m_key_secret_file = " + secret + "\nm_key_protection_level 1\n"), none);
  REQUIRE_MESSAGE(ok, (ok ? "" : ok.error().message));
  CHECK(ok->sm.m_key_secret == sm::mkey::Secret{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd',
                                                'e', 'f', '-', 's', 'e', 'c', 'r', 'e', 't'});
  CHECK(ok->sm.ports.m_key_protect == 1);
  // Every dump and log line shows the options, never the secret or a key.
  for (const auto& [key, value] : cli::describe(*ok)) CHECK(value.find("secret\n") == std::string::npos);
  auto level2 = cli::load_config(f.write("c.conf", "m_key_secret_file = " + secret + "\nm_key_protection_level 2\n"), none);
  REQUIRE_FALSE(level2);
  CHECK(level2.error().message.find("use level 1") != std::string::npos);
  auto one = read(f, "m_key 0x600DF00D\nm_key_protection_level 2\n");
  REQUIRE(one);
  CHECK(one->sm.ports.m_key == 0x600DF00D);
  const std::string text = cli::config_file_text(*one);
  CHECK(text.find("600d") == std::string::npos);
  CHECK(text.find("\nm_key = hidden\n") != std::string::npos);
  CHECK(error_of(f, "m_key hidden\n").find("not shown") != std::string::npos);
  CHECK_FALSE(read(f, "m_key_protection_level 4\n"));
}

// qos_policy_file: read by load_config (what the daemon does at start and on SIGHUP), its port
// groups' partition names resolved against the partitions file; a bad file refused with the
// option's line and the policy file's; a missing one is no policy, said when qos is on.
TEST_CASE("config files: qos_policy_file is read, checked, and resolved against the partitions") {
  Files f;
  const boost::program_options::variables_map none;
  const std::string policy = f.write("qos-policy.conf",
                                     "port-groups\n port-group\n  name: S\n  partition: storage\n end-port-group\n"
                                     "end-port-groups\nqos-ulps\n default : 2\n any, service-id 0x6234 : 6\nend-qos-ulps\n");
  const std::string parts = f.write("partitions.conf", "Default=0x7fff : ALL=full ;\nstorage=0x0002 : ALL=full ;\n");
  auto ok = cli::load_config(f.write("a.conf", "qos TRUE\npartition_config_file " + parts + "\nqos_policy_file " +
                                                   policy + "\n"), none);
  REQUIRE_MESSAGE(ok, (ok ? "" : ok.error().message));
  REQUIRE(ok->sm.qos_policy);
  CHECK(ok->sm.qos_policy->rules.size() == 1);
  CHECK(ok->sm.qos_policy->groups[0].pkeys == sm::qos::Ranges{{2, 2}});
  CHECK(ok->notes.empty());
  // The partition it names is not in the partitions file: refused, with the policy file's line.
  auto unknown = cli::load_config(f.write("b.conf", "qos TRUE\nqos_policy_file " + policy + "\n"), none);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.starts_with(f.dir.file("b.conf") + ":2: qos_policy_file: " + policy + ":4:"));
  // A bad value: the option's file and line, then the policy file's.
  const std::string bad = f.write("bad-policy.conf", "qos-ulps\n default : 0\n any, pkey 0x10000 : 1\nend-qos-ulps\n");
  auto refused = cli::load_config(f.write("c.conf", "qos_policy_file = " + bad + "\n"), none);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.starts_with(f.dir.file("c.conf") + ":1: qos_policy_file: " + bad + ":3: pkey"));
  // OpenSM's default path, not there: no policy; a note only when qos is on.
  auto off = cli::load_config(f.write("d.conf", "qos_policy_file /nonexistent/qos-policy.conf\n"), none);
  REQUIRE(off);
  CHECK_FALSE(off->sm.qos_policy);
  CHECK(off->notes.empty());
  auto on = cli::load_config(f.write("e.conf", "qos TRUE\nqos_policy_file /nonexistent/qos-policy.conf\n"), none);
  REQUIRE(on);
  CHECK_FALSE(on->sm.qos_policy);
  REQUIRE(on->notes.size() == 1);
  CHECK(on->notes[0].starts_with("qos_policy_file /nonexistent/qos-policy.conf does not exist"));
}
