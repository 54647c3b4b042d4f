// VL layers end to end (sm/program/vl_plan.h): lash routes a torus with SLs; the SA hands
// them out over the fabric (sim/sl_query.h); the SM programs SL2VL so that each SL rides its
// own VL; the simulator's verifier (sim/vl_verifier.h) then finds every VL's dependencies
// acyclic on the switches' own tables, where the one-VL graph of the same routes has a cycle.
// Left at all-to-VL0, the same SL2VL tables give the cycle back. Read off elsewhere (LFTs, the
// SA's SLs per pair, SL2VL per port: sim/sl_import.h) onto a fabric a one-VL engine brought up,
// the same layers are judged the same.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "mad/attributes.h"
#include "mad/sa_records.h"
#include "mad/vl_arb_table.h"
#include "service/service.h"
#include "sim/generators.h"
#include "sim/metrics.h"
#include "sim/multi_driver.h"
#include "sim/sa_client.h"
#include "sim/sim_transport.h"
#include "sim/lft_import.h"
#include "sim/sl_dump.h"
#include "sim/sl_import.h"
#include "sim/sl_query.h"
#include "sim/vl_verifier.h"

namespace {

struct VlBed {
  std::unique_ptr<sim::SimFabric> fabric;
  sim::EndpointId ep = 0;
  std::unique_ptr<sim::SimTransport> transport;
  sm::Logger log{sm::Level::info};
  std::unique_ptr<service::Service> svc;
  std::vector<std::string> lines;
  size_t logged(std::string_view needle) const {
    return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.find(needle) != std::string::npos;
    }));
  }

  explicit VlBed(const char* engine, std::function<void(sim::SimFabric&)> tweak = {}, sm::SmConfig cfg = {},
                 bool must_come_up = true) {
    auto spec = sim::make_torus(sim::TorusParams{.dims = {4, 4}, .cas_per_switch = 2});
    REQUIRE(spec);
    auto f = sim::SimFabric::build(std::move(*spec));
    REQUIRE(f);
    fabric = std::move(*f);
    if (tweak) tweak(*fabric);
    ep = *fabric->attach(0, fabric->node(0).is_switch() ? 0 : 1);
    fabric->set_is_sm(ep, true);
    transport = std::make_unique<sim::SimTransport>(*fabric, ep);
    log.set_sink([this](sm::Level, std::string_view l) { lines.emplace_back(l); });
    cfg.routing_engine = engine;
    auto s = service::Service::create(*transport, service::Config{.sm = cfg}, log);
    REQUIRE(s);
    svc = std::move(*s);
    svc->start();
    auto loop = mad::run_loop(*svc, *transport, [&] {
      return !svc->manager().sweeping() && (svc->manager().subnet_up() || svc->manager().sweeps() >= 3);
    });
    REQUIRE(loop);
    if (must_come_up) REQUIRE(svc->manager().subnet_up());
  }
  const sm::Subnet& subnet() const { return *svc->manager().subnet(); }
  // The topology's NodeId of a simulated node (by GUID).
  fabric::NodeId id_of(sim::NodeIdx i) const {
    const fabric::Topology& t = *subnet().topology;
    for (fabric::NodeId id = 0; id < t.node_count(); ++id)
      if (t.node(id).guid == fabric->node(i).guid) return id;
    FAIL("no node");
    return 0;
  }
};

}  // namespace

TEST_CASE("VL layers: lash on a torus, SLs from the SA, SL2VL per layer: acyclic per VL, cyclic on one") {
  VlBed bed("lash");
  const routing::RoutingTables& tables = *bed.subnet().tables;
  REQUIRE(tables.has_sls());
  const unsigned layers = tables.vls_used();
  REQUIRE(layers > 1);
  auto q = sim::ask_sls(*bed.fabric, bed.ep, *bed.svc);
  REQUIRE(q);
  CHECK(q->unanswered == 0);
  CHECK(q->any_nonzero);
  // The SA's SL for every (ingress switch, LID) is the routing's.
  size_t compared = 0;
  for (sim::NodeIdx s = 0; s < bed.fabric->nodes().size(); ++s) {
    if (q->sls.by_switch[s].empty()) continue;
    const fabric::NodeId id = bed.id_of(s);
    for (uint16_t lid = 1; lid < q->sls.by_switch[s].size(); ++lid) {
      CHECK(q->sls.sl(s, lid) == tables.sl(id, mad::Lid(lid)));
      ++compared;
    }
  }
  CHECK(compared >= 16 * (16 * 2 + 16));  // every switch with CAs, to every end port
  // One VL: the torus's rings close; per VL, every layer is acyclic and nothing is dropped.
  CHECK_FALSE(sim::measure_routing(*bed.fabric).cdg_acyclic);
  const fabric::VlCdgReport vl = sim::verify_vls(*bed.fabric, q->sls);
  CHECK(vl.acyclic);
  CHECK(vl.dropped == 0);
  CHECK(vl.cross_vl_edges == 0);
  CHECK(vl.vls.size() == layers);
  for (const auto& f : vl.vls) CHECK(f.acyclic);
  // Every switch port: SL i -> VL i for the layers; VLArbitration low gives each a weight.
  for (const sim::SimNode& n : bed.fabric->nodes()) {
    if (!n.is_switch()) continue;
    for (uint8_t out = 1; out <= n.num_ports; ++out) {
      const sim::SimPort& op = n.ports[out];
      if (!op.link_up()) continue;
      for (uint8_t in = 0; in <= n.num_ports; ++in)
        for (uint8_t sl = 0; sl < layers; ++sl) CHECK(sim::sim_sl2vl(n, in, out, sl) == sl);
      REQUIRE(op.vlarb.size() == 4 * 64);
      for (unsigned v = 0; v < layers; ++v) {
        bool weighted = false;
        for (size_t e = 0; e < 64; ++e) {
          const uint8_t vl_of = op.vlarb[2 * e] & 0xF, weight = op.vlarb[2 * e + 1];
          weighted = weighted || (vl_of == v && weight > 0);
        }
        CHECK(weighted);
      }
    }
  }
  // Each CA's MasterSMSL is its route's SL to the SM (its SA traffic stays on that layer).
  size_t cas = 0, nonzero = 0;
  for (const sim::SimNode& n : bed.fabric->nodes()) {
    if (n.is_switch()) continue;
    const sim::SimPort& p = n.ports[1];
    REQUIRE(p.peer != sim::kNoNode);
    REQUIRE(p.sm_lid != 0);
    CHECK(p.sm_sl == tables.sl(bed.id_of(p.peer), mad::Lid(p.sm_lid)));
    ++cas;
    nonzero += p.sm_sl != 0;
  }
  CHECK(cas == 32);
  CHECK(nonzero > 0);
  // Left at all-to-VL0, the same routes have the one-VL graph's cycle again.
  for (sim::NodeIdx i = 0; i < bed.fabric->nodes().size(); ++i) {
    for (sim::SimPort& p : bed.fabric->mutable_node(i).ports) {
      p.sl2vl.fill(0);
      for (auto& t : p.sl2vl_by_in) t.fill(0);
    }
  }
  const fabric::VlCdgReport flat = sim::verify_vls(*bed.fabric, q->sls);
  CHECK_FALSE(flat.acyclic);
  CHECK(flat.vls.size() == 1);
}

TEST_CASE("VL layers: multicast on its own SL and VL; a one-VL engine hands out SL 0 only") {
  VlBed bed("lash");
  const unsigned layers = bed.subnet().tables->vls_used();
  REQUIRE(bed.subnet().multicast_sl == std::optional<uint8_t>(static_cast<uint8_t>(layers)));
  // A client's MCMemberRecord query of the broadcast group, over the fabric.
  sim::NodeIdx ca = 0;
  while (bed.fabric->node(ca).is_switch() || bed.fabric->node(ca).ports[1].endpoint != sim::kNoEndpoint) ++ca;
  auto cep = bed.fabric->attach(ca, 1);
  REQUIRE(cep);
  sim::SaClient client(*bed.fabric, *cep);
  sim::MultiDriver driver(*bed.fabric);
  driver.add(bed.ep, *bed.svc);
  driver.add(*cep, client);
  mad::SaMad m;
  m.header.method = mad::sa_method::get_table;
  m.header.attr_id = mad::McMemberRecord::kAttrId;
  const uint64_t tid = client.send(m, mad::Lid(bed.fabric->node(ca).ports[1].sm_lid));
  driver.run_until(bed.fabric->now() + std::chrono::seconds(2), [&] { return client.answer(tid) != nullptr; });
  REQUIRE(client.answer(tid));
  const auto groups = sim::records_of<mad::McMemberRecord>(*client.answer(tid));
  REQUIRE(!groups.empty());
  for (const auto& g : groups) CHECK(g.sl == layers);
  // Its SL rides its own VL on every switch-to-switch port.
  for (const sim::SimNode& n : bed.fabric->nodes())
    if (n.is_switch())
      for (uint8_t out = 1; out <= n.num_ports; ++out)
        if (n.ports[out].link_up()) CHECK(sim::sim_sl2vl(n, 0, out, static_cast<uint8_t>(layers)) == layers);
  driver.remove(*cep);

  VlBed one("minhop");
  auto q = sim::ask_sls(*one.fabric, one.ep, *one.svc);
  REQUIRE(q);
  CHECK(q->records > 0);
  CHECK_FALSE(q->any_nonzero);
  CHECK(!one.subnet().multicast_sl);
}

TEST_CASE("VL layers: max_vls follows qos_max_vls and the switch links' VLCap") {
  // qos_max_vls 2 (qos off: only the cap): lash fits the torus in 2 layers or routes nothing.
  sm::SmConfig two;
  two.qos.general.max_vls = 2;
  VlBed a("lash", {}, two, false);
  if (a.svc->manager().subnet_up()) CHECK(a.subnet().tables->vls_used() <= 2);
  // One switch-to-switch cable whose end can do VL0 only: one VL for every route, so a
  // torus (whose rings need two) is not routed by lash, and nothing gets an SL above 0.
  auto vl0_only = [](sim::SimFabric& f) {
    for (sim::NodeIdx i = 0; i < f.nodes().size(); ++i) {
      sim::SimNode& n = f.mutable_node(i);
      if (!n.is_switch()) continue;
      for (uint8_t p = 1; p <= n.num_ports; ++p)
        if (n.ports[p].cable_node != sim::kNoNode && f.node(n.ports[p].cable_node).is_switch()) {
          n.ports[p].vl_cap = 1;
          return;
        }
    }
  };
  VlBed b("lash", vl0_only, {}, false);
  const auto sub = b.svc->manager().subnet();
  if (sub && sub->tables && b.svc->manager().subnet_up()) CHECK(sub->tables->vls_used() == 1);
  else CHECK(b.svc->manager().last_sweep().failure.find("routing failed") != std::string::npos);
}

TEST_CASE("VL layers: with qos on, the layers' SL2VL replaces qos_sl2vl (said once); the configured VLArb stays") {
  sm::SmConfig cfg;
  cfg.qos.enabled = true;
  cfg.qos.general.sl2vl = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
  cfg.qos.general.vlarb_low = "0:1,1:2,2:3,3:4";
  VlBed bed("lash", {}, cfg);
  const unsigned layers = bed.subnet().tables->vls_used();
  CHECK(bed.logged("not qos_sl2vl") == 1);
  // A heavy sweep finds every table right: nothing written, nothing said again.
  const uint64_t before = bed.svc->manager().sweeps();
  bed.svc->request_sweep("test");
  REQUIRE(mad::run_loop(*bed.svc, *bed.transport, [&] {
    return bed.svc->manager().sweeps() > before && !bed.svc->manager().sweeping();
  }));
  CHECK(bed.svc->manager().last_sweep().qos.sl2vl_written == 0);
  CHECK(bed.svc->manager().last_sweep().qos.vlarb_written == 0);
  CHECK(bed.svc->manager().last_sweep().qos.ports > 0);
  CHECK(bed.logged("not qos_sl2vl") == 1);
  const sim::SimNode* sw = nullptr;
  for (const sim::SimNode& n : bed.fabric->nodes())
    if (n.is_switch()) sw = sw ? sw : &n;
  REQUIRE(sw);
  for (uint8_t out = 1; out <= sw->num_ports; ++out) {
    if (!sw->ports[out].link_up()) continue;
    for (uint8_t sl = 0; sl < layers; ++sl) CHECK(sim::sim_sl2vl(*sw, 0, out, sl) == sl);
    REQUIRE(sw->ports[out].vlarb.size() == 4 * 64);
    CHECK(sw->ports[out].vlarb[1] == 1);  // the configured low table: VL0 weight 1 first
    CHECK(sw->ports[out].vlarb[3] == 2);
  }
}

namespace {

// The LFTs of a simulated fabric as an LftDump (what dump_fts reads), every LID's holder named.
sim::LftDump lft_dump_of(const sim::SimFabric& f) {
  std::map<uint16_t, mad::Guid> holder;
  for (const sim::SimNode& n : f.nodes())
    for (size_t p = 0; p < n.ports.size(); ++p)
      if (n.ports[p].lid != 0 && (n.is_switch() ? p == 0 : p != 0)) holder[n.ports[p].lid] = n.is_switch() ? n.guid : n.ports[p].guid;
  sim::LftDump d;
  for (const sim::SimNode& n : f.nodes()) {
    if (!n.is_switch()) continue;
    sim::DumpSwitch sw{n.guid, n.description, 1, {}};
    for (uint16_t l = 1; l <= n.sw->lft_top && l < n.sw->lft.size(); ++l)
      if (n.sw->lft[l] != 0xFF && holder.contains(l)) sw.entries.push_back({l, n.sw->lft[l], holder[l]});
    d.switches.push_back(std::move(sw));
  }
  return d;
}

// What the bench writes off ibsim: "path SLID DLID SL" from every CA port to every other CA
// port's LID (the SA's SL for its ingress switch), and every switch port's SL2VL rows.
std::string sl_text_of(const sim::SimFabric& f, const sim::SlTable& sls) {
  std::vector<std::pair<uint16_t, sim::NodeIdx>> cas;  // LID, ingress switch
  for (const sim::SimNode& n : f.nodes())
    if (!n.is_switch())
      for (size_t p = 1; p < n.ports.size(); ++p)
        if (n.ports[p].lid && n.ports[p].link_up()) cas.emplace_back(n.ports[p].lid, n.ports[p].peer);
  std::string out = "# SLs and SL2VL\n";
  for (const auto& [slid, sw] : cas)
    for (const auto& [dlid, unused] : cas)
      if (slid != dlid) out += fmt::format("path {} {} {}\n", slid, dlid, sls.sl(sw, dlid));
  for (const sim::SimNode& n : f.nodes()) {
    if (!n.is_switch()) continue;
    for (uint8_t o = 1; o <= n.num_ports; ++o)
      for (uint8_t i = 0; i <= n.num_ports; ++i) {
        out += fmt::format("sl2vl {} {} {}", n.guid.str(), i, o);
        for (uint8_t sl = 0; sl < 16; ++sl) out += fmt::format(" {}", sim::sim_sl2vl(n, i, o, sl));
        out += "\n";
      }
  }
  return out;
}

}  // namespace

TEST_CASE("VL layers read elsewhere: lash's LFTs, SLs and SL2VL imported onto an updn fabric judge as its own") {
  VlBed made("lash");
  auto q = sim::ask_sls(*made.fabric, made.ep, *made.svc);
  REQUIRE(q);
  REQUIRE(q->any_nonzero);
  const fabric::VlCdgReport want = sim::verify_vls(*made.fabric, q->sls);
  REQUIRE(want.acyclic);
  REQUIRE(want.vls.size() > 1);
  const std::string text = sl_text_of(*made.fabric, q->sls);

  VlBed other("updn");  // one VL: its SL2VL drops the SLs lash's layers need
  REQUIRE(sim::import_lfts(*other.fabric, lft_dump_of(*made.fabric)));
  // The LFTs alone, SL 0 everywhere: the torus's rings close on one VL.
  CHECK_FALSE(sim::verify_vls(*other.fabric, sim::SlTable{}).acyclic);
  auto d = sim::parse_sl_dump(text, "sls");
  REQUIRE(d);
  // The SLs without the SL2VL rows on switches that put every SL on VL0: the cycle again.
  sim::SlDump paths_only = *d;
  paths_only.sl2vl.clear();
  {
    VlBed third("updn");
    REQUIRE(sim::import_lfts(*third.fabric, lft_dump_of(*made.fabric)));
    for (sim::NodeIdx i = 0; i < third.fabric->nodes().size(); ++i)
      for (sim::SimPort& p : third.fabric->mutable_node(i).ports) {
        p.sl2vl.fill(0);
        for (auto& t : p.sl2vl_by_in) t.fill(0);
      }
    auto r = sim::import_sls(*third.fabric, paths_only);
    REQUIRE(r);
    CHECK_FALSE(sim::verify_vls(*third.fabric, r->sls).acyclic);
    r = sim::import_sls(*third.fabric, *d);  // and with them, acyclic per VL
    REQUIRE(r);
    CHECK(sim::verify_vls(*third.fabric, r->sls).acyclic);
  }
  auto r = sim::import_sls(*other.fabric, *d);
  REQUIRE(r);
  CHECK(r->any_nonzero);
  CHECK(r->paths == d->paths.size());
  CHECK(r->sl2vl_tables == d->sl2vl.size());
  const fabric::VlCdgReport got = sim::verify_vls(*other.fabric, r->sls);
  CHECK(got.acyclic);
  CHECK(got.dropped == 0);
  CHECK(got.edges == want.edges);
  REQUIRE(got.vls.size() == want.vls.size());
  for (size_t v = 0; v < got.vls.size(); ++v) {
    CHECK(got.vls[v].channels == want.vls[v].channels);
    CHECK(got.vls[v].edges == want.vls[v].edges);
  }
}

TEST_CASE("VL layers read elsewhere: a file the fabric cannot hold is refused, naming its line, and changes nothing") {
  VlBed bed("lash");
  sim::NodeIdx ca = 0, sw = 0;
  while (bed.fabric->node(ca).is_switch()) ++ca;
  while (!bed.fabric->node(sw).is_switch()) ++sw;
  const sim::SimNode& s = bed.fabric->node(sw);
  const uint16_t slid = bed.fabric->node(ca).ports[1].lid;
  uint16_t other = 0;  // a CA on the same switch: the same ingress
  const sim::NodeIdx ingress = bed.fabric->node(ca).ports[1].peer;
  for (sim::NodeIdx i = ca + 1; i < bed.fabric->nodes().size() && !other; ++i)
    if (!bed.fabric->node(i).is_switch() && bed.fabric->node(i).ports[1].peer == ingress) other = bed.fabric->node(i).ports[1].lid;
  REQUIRE(other != 0);
  const auto before = s.ports[1].sl2vl_by_in;
  auto refused = [&](const std::string& text, const std::string& says) {
    auto d = sim::parse_sl_dump(text, "x");
    REQUIRE(d);
    auto r = sim::import_sls(*bed.fabric, *d);
    REQUIRE_FALSE(r);
    CHECK_MESSAGE(r.error().message.find(says) != std::string::npos, r.error().message);
    CHECK(bed.fabric->node(sw).ports[1].sl2vl_by_in == before);
  };
  const std::string row = fmt::format("sl2vl {} 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n", s.guid.str());
  refused(row + "path 0xbfff 1 1\n", "line 2: SLID 49151 is held by no linked CA port");
  refused(row + fmt::format("path {} 7 1\npath {} 7 2\n", slid, other), "line 3: SL 2 from SLID");
  refused(row + "sl2vl 0xdead 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", "line 2: no switch with GUID");
  refused(fmt::format("sl2vl {} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", s.guid.str()), "no table from port 0 to port 0");
  refused(fmt::format("sl2vl {} 99 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", s.guid.str()), "no table from port 99");
  // Accepted: the row lands in that input port's table.
  auto d = sim::parse_sl_dump(row, "x");
  REQUIRE(d);
  REQUIRE(sim::import_sls(*bed.fabric, *d));
  CHECK(sim::sim_sl2vl(bed.fabric->node(sw), 0, 1, 0) == 1);
  CHECK(sim::sim_sl2vl(bed.fabric->node(sw), 0, 1, 15) == 1);
}
