// Routes made elsewhere: the LFT dump parser (dump_fts and opensm-lfts.dmp), and the import of a
// dump onto a simulated fabric, scored as fabricsm's own routes are.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "sim/lft_dump.h"
#include "sim/lft_import.h"
#include "sim/metrics.h"
#include "tests/sm/harness.h"

using smtest::Run;

namespace {

// The fabric's tables as dump_fts prints them (destinations resolved to port GUIDs).
std::string dump_fts(const sim::SimFabric& f) {
  std::map<uint16_t, std::pair<std::string, mad::Guid>> holder;
  for (const auto& n : f.nodes())
    for (size_t p = 0; p < n.ports.size(); ++p)
      if (n.ports[p].lid != 0 && (n.is_switch() ? p == 0 : p != 0))
        holder[n.ports[p].lid] = {n.is_switch() ? "Switch" : "Channel Adapter", n.is_switch() ? n.guid : n.ports[p].guid};
  std::string out;
  for (const auto& n : f.nodes()) {
    if (!n.is_switch()) continue;
    out += fmt::format("Unicast lids [0x0-0x{:x}] of switch DR path slid 0; dlid 0; 0,1 guid {} ({}):\n", n.sw->lft_top,
                       n.guid.str(), n.description);
    out += "  Lid  Out   Destination\n       Port     Info \n";
    size_t valid = 0;
    for (uint16_t l = 1; l <= n.sw->lft_top && l < n.sw->lft.size(); ++l) {
      if (n.sw->lft[l] == 0xFF) continue;
      auto h = holder.find(l);
      out += h == holder.end() ? fmt::format("0x{:04x} {:03d} : (unknown)\n", l, n.sw->lft[l])
                               : fmt::format("0x{:04x} {:03d} : ({} portguid {}: '{}')\n", l, n.sw->lft[l], h->second.first,
                                             h->second.second.str(), "x");
      ++valid;
    }
    out += fmt::format("{} valid lids dumped \n", valid);
  }
  return out;
}

}  // namespace

TEST_CASE("both dump formats parse to the same tables") {
  const std::string diags =
      "Unicast lids [0x0-0x3] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 (S1_000):\n"
      "  Lid  Out   Destination\n       Port     Info \n"
      "0x0001 005 : (Channel Adapter portguid 0x0000000000100001: 'H00000')\n"
      "0x0003 000 : (Switch portguid 0x0000000000200000: 'S1_000')\n"
      "2 valid lids dumped \n";
  const std::string osm =
      "Unicast lids [0-3] of switch Lid 3 guid 0x0000000000200000 ('S1_000'):\n"
      "0x0001 005 # Channel Adapter portguid 0x0000000000100001: 'H00000'\n"
      "0x0003 000 # Switch portguid 0x0000000000200000: 'S1_000'\n"
      "3 lids dumped\n";
  for (const auto& text : {diags, osm}) {
    auto d = sim::parse_lft_dump(text, "t");
    REQUIRE(d);
    REQUIRE(d->switches.size() == 1);
    CHECK(d->switches[0].guid == mad::Guid(0x200000));
    CHECK(d->switches[0].name == "S1_000");
    REQUIRE(d->switches[0].entries.size() == 2);
    CHECK(d->switches[0].entries[0].lid == 1);
    CHECK(d->switches[0].entries[0].port == 5);
    CHECK(d->switches[0].entries[0].holder == mad::Guid(0x100001));
    CHECK(d->switches[0].entries[1].port == 0);
  }
}

TEST_CASE("a bad dump is refused with its line") {
  auto err = [](const std::string& text) {
    auto d = sim::parse_lft_dump(text, "d.txt");
    REQUIRE_FALSE(d);
    CHECK(d.error().code == mad::Errc::parse);
    return d.error().message;
  };
  CHECK(err("0x0001 001 : (x)\n") == "d.txt:1: an LFT entry before any \"Unicast lids ... of switch\" header");
  const std::string head = "Unicast lids [0-3] of switch Lid 3 guid 0x10 ('S'):\n";
  CHECK(err(head + "0x0000 001 #\n").starts_with("d.txt:2: the entry's LID"));
  CHECK(err(head + "0xc000 001 #\n").starts_with("d.txt:2: the entry's LID"));
  CHECK(err(head + "0x0001 300 #\n").starts_with("d.txt:2: the entry's output port"));
  CHECK(err(head + "0x0001 001 # x portguid 0xzz\n").starts_with("d.txt:2: portguid"));
  CHECK(err(head + "\nhello\n").starts_with("d.txt:3: not an LFT dump line"));
  CHECK(err("Unicast lids [0-3] of switch Lid 3 ('S'):\n").starts_with("d.txt:1: a switch header"));
  CHECK(err("") == "d.txt: no \"Unicast lids ... of switch\" table");
}

TEST_CASE("an imported dump routes as the SM that made it did, scored by the same metrics") {
  Run made(*sim::make_fat_tree(3, 8), smtest::with_engine("ftree"));
  REQUIRE(made.until_idle());
  const auto want = sim::measure_routing(*made.fabric);
  const std::string text = dump_fts(*made.fabric);
  // Another fabric of the same shape, brought up by another engine (other LIDs, other routes).
  Run other(*sim::make_fat_tree(3, 8), smtest::with_engine("minhop"));
  REQUIRE(other.until_idle());
  auto d = sim::parse_lft_dump(text, "made");
  REQUIRE(d);
  auto r = sim::import_lfts(*other.fabric, *d);
  REQUIRE(r);
  CHECK(r->switches == 80);
  CHECK(r->lids == made.topo().node_count());  // every CA port and switch
  CHECK(r->without_lid == 0);
  CHECK(sim::verify_routing(*other.fabric).all_routed());
  const auto got = sim::measure_routing(*other.fabric);
  CHECK(got.max_link_load == want.max_link_load);
  CHECK(got.mean_link_load == doctest::Approx(want.mean_link_load));
  CHECK(got.shift_congestion == doctest::Approx(want.shift_congestion));
}

TEST_CASE("a LID the dump leaves out (dump_fts's top LID) is counted, and its pairs unrouted") {
  Run made(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(made.until_idle());
  uint16_t top = 0;
  for (const auto& n : made.fabric->nodes())  // the highest CA LID (the verifier walks CA pairs)
    if (!n.is_switch())
      for (size_t p = 1; p < n.ports.size(); ++p) top = std::max(top, n.ports[p].lid);
  auto d = sim::parse_lft_dump(dump_fts(*made.fabric), "made");
  REQUIRE(d);
  for (auto& sw : d->switches) std::erase_if(sw.entries, [&](const sim::DumpEntry& e) { return e.lid == top; });
  auto r = sim::import_lfts(*made.fabric, *d);
  REQUIRE(r);
  CHECK(r->without_lid == 1);
  CHECK_FALSE(sim::verify_routing(*made.fabric).all_routed());
}

TEST_CASE("a dump naming what the fabric lacks changes nothing") {
  Run r(*sim::make_fat_tree(2, 8), smtest::with_engine("ftree"));
  REQUIRE(r.until_idle());
  const std::string good = dump_fts(*r.fabric);
  const auto lid_before = r.fabric->node(0).ports[1].lid;
  const auto lft_before = r.fabric->node(*r.fabric->find("S1_000")).sw->lft;
  auto refused = [&](const std::string& text, const std::string& says) {
    auto d = sim::parse_lft_dump(text, "x");
    REQUIRE(d);
    auto i = sim::import_lfts(*r.fabric, *d);
    REQUIRE_FALSE(i);
    CHECK_MESSAGE(i.error().message.find(says) != std::string::npos, i.error().message);
    CHECK(r.fabric->node(0).ports[1].lid == lid_before);
    CHECK(r.fabric->node(*r.fabric->find("S1_000")).sw->lft == lft_before);
  };
  std::string foreign_switch = good;
  foreign_switch.replace(foreign_switch.rfind(" guid 0x") + 1, 25, "guid 0x00000000deadbeef");
  refused(foreign_switch, "no switch with GUID 0x00000000deadbeef");
  std::string foreign_port = good;
  foreign_port.replace(foreign_port.rfind("portguid 0x") + 9, 18, "0x00000000deadbee0");
  refused(foreign_port, "held by port GUID 0x00000000deadbee0");
  refused("Unicast lids [0-3] of switch Lid 3 guid " + r.fabric->node(*r.fabric->find("S1_000")).guid.str() +
              " ('S1_000'):\n0x0001 099 # x\n",
          "has no port 99");
}
