// VL layers end to end (sm/program/vl_plan.h): lash routes a torus with SLs; the SA hands
// them out over the fabric (sim/sl_query.h); the SM programs SL2VL so that each SL rides its
// own VL; the simulator's verifier (sim/vl_verifier.h) then finds every VL's dependencies
// acyclic on the switches' own tables, where the one-VL graph of the same routes has a cycle.
// Left at all-to-VL0, the same SL2VL tables give the cycle back.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "mad/attributes.h"
#include "mad/sa_records.h"
#include "mad/vl_arb_table.h"
#include "service/service.h"
#include "sim/generators.h"
#include "sim/metrics.h"
#include "sim/multi_driver.h"
#include "sim/sa_client.h"
#include "sim/sim_transport.h"
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
