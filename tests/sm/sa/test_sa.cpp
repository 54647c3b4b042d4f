// The SA on a fabric the real SM brought up in the simulator: its answers against the fabric
// (PathRecords against the simulated switches' own paths), ComponentMask filtering, the IBA
// error statuses, RMPP for GetTable, and the per-source queue.
#include <doctest/doctest.h>

#include <map>

#include "tests/sm/harness.h"
#include "tests/sm/sa/sa_helpers.h"
#include "mad/rmpp.h"
#include "mad/sa_path_record.h"
#include "mad/sa_records.h"
#include "sm/sa/queries.h"
#include "sm/sa/server.h"

namespace {

using mad::SaMad;

struct IndexFixture {
  smtest::Run run{*sim::make_fat_tree(2, 8)};
  std::shared_ptr<const sm::sa::Index> index;
  IndexFixture() {
    REQUIRE(run.until_idle());
    REQUIRE(run.sm->subnet_up());
    index = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(run.sm->subnet(), 18));
  }
};

using satest::bytes;
using satest::request;

sm::sa::Answer ask(const IndexFixture& f, const mad::MadBytes& req) {
  return sm::sa::answer_query(f.index.get(), {}, req, {}, 0xFE80000000000000ULL);
}

std::vector<mad::PathRecord> paths(const sm::sa::Answer& a) {
  std::vector<mad::PathRecord> out;
  for (size_t off = 0; off + mad::PathRecord::kSize <= a.payload.size(); off += size_t{a.response.attr_offset} * 8)
    out.push_back(*mad::PathRecord::decode(std::span(a.payload).subspan(off, mad::PathRecord::kSize)));
  return out;
}

}  // namespace

TEST_CASE("SA: PathRecord for every CA pair, hop count as the simulated switches route it") {
  IndexFixture f;
  const auto& t = f.run.topo();
  size_t checked = 0;
  for (fabric::NodeId s : t.cas()) {
    for (fabric::NodeId d : t.cas()) {
      mad::PathRecord q;
      q.slid = t.port(s, mad::PortNum(1)).lid;
      q.dlid = t.port(d, mad::PortNum(1)).lid;
      auto a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::path_record,
                              mad::PathRecord::c_slid | mad::PathRecord::c_dlid, bytes(q)));
      REQUIRE(a.response.header.status == mad::status::ok);
      auto ps = paths(a);
      REQUIRE(ps.size() == 1);
      const mad::PathRecord& p = ps[0];
      CHECK(p.slid == q.slid);
      CHECK(p.dlid == q.dlid);
      CHECK(p.sgid.guid() == t.port(s, mad::PortNum(1)).guid);
      CHECK(p.dgid.guid() == t.port(d, mad::PortNum(1)).guid);
      CHECK(p.reversible);
      CHECK(p.pkey == 0xFFFF);
      CHECK(p.mtu == t.port(s, mad::PortNum(1)).mtu_cap);  // every link of this tree: the same
      CHECK(p.rate != 0);
      CHECK(p.pkt_life == (s == d ? 0 : 18));
      ++checked;
    }
  }
  CHECK(checked == t.cas().size() * t.cas().size());
  // The hops the index walks are the simulated switches' own: a 2-level tree has 2 or 4.
  const auto* a = f.index->by_lid(t.port(t.cas()[0], mad::PortNum(1)).lid);
  const auto* b = f.index->by_lid(t.port(t.cas().back(), mad::PortNum(1)).lid);
  REQUIRE((a && b));
  CHECK(f.index->path(*a, *b)->hops == 4);
  CHECK(f.run.verify().max_hops == 4);
}

TEST_CASE("SA: PathRecord by GIDs, one end open, selectors, and what finds nothing") {
  IndexFixture f;
  const auto& t = f.run.topo();
  const fabric::Port& src = t.port(t.cas()[0], mad::PortNum(1));
  const fabric::Port& dst = t.port(t.cas()[5], mad::PortNum(1));
  mad::PathRecord q;
  q.sgid = mad::Gid(0xFE80000000000000ULL, src.guid.value());
  q.dgid = mad::Gid(0xFE80000000000000ULL, dst.guid.value());
  using P = mad::PathRecord;
  auto a = ask(f, request(mad::sa_method::get, mad::sa_attr::path_record, P::c_sgid | P::c_dgid, bytes(q)));
  REQUIRE(a.response.header.status == mad::status::ok);
  CHECK(mad::PathRecord::decode(a.response.data)->dlid == dst.lid);

  // Only the source: a path to every end port (CAs and switches).
  a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::path_record, P::c_sgid, bytes(q)));
  CHECK(paths(a).size() == f.index->endports().size());

  // MTU selectors: "greater than" the path's MTU finds nothing, "less than" a larger one finds it.
  q.mtu = src.mtu_cap;
  q.mtu_selector = 0;
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::path_record, P::c_sgid | P::c_dgid | P::c_mtu | P::c_mtu_selector, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::no_records);
  q.mtu = static_cast<uint8_t>(src.mtu_cap + 1);
  q.mtu_selector = 1;
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::path_record, P::c_sgid | P::c_dgid | P::c_mtu | P::c_mtu_selector, bytes(q)));
  CHECK(a.response.header.status == mad::status::ok);

  // Neither end: refused (n^2 records); an unknown GID; a partition that does not exist.
  a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::path_record, 0, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::insufficient_components);
  q.dgid = mad::Gid(0xFE80000000000000ULL, 0xDEAD);
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::path_record, P::c_sgid | P::c_dgid, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::invalid_gid);
  q.dgid = mad::Gid(0xFE80000000000000ULL, dst.guid.value());
  q.pkey = 0x8001;
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::path_record, P::c_sgid | P::c_dgid | P::c_pkey, bytes(q)));
  CHECK(a.response.header.status == mad::sa_status::no_records);
}

TEST_CASE("SA: NodeRecord and PortInfoRecord by component mask; Get that matches many") {
  IndexFixture f;
  const auto& t = f.run.topo();
  const fabric::NodeId ca = t.cas()[3];
  mad::NodeRecord q;
  q.lid = t.port(ca, mad::PortNum(1)).lid;
  auto a = ask(f, request(mad::sa_method::get, mad::sa_attr::node_record, 1, bytes(q)));
  REQUIRE(a.response.header.status == mad::status::ok);
  auto nr = mad::NodeRecord::decode(a.response.data);
  REQUIRE(nr);
  CHECK(nr->info.node_guid == t.node(ca).guid);
  CHECK(nr->description.text == t.node(ca).description);
  CHECK(a.response.attr_offset == mad::attr_offset_for(mad::NodeRecord::kSize));

  // By NodeGUID (component 7) without the LID: the same record.
  mad::NodeRecord byguid;
  byguid.info.node_guid = t.node(ca).guid;
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::node_record, 1u << 7, bytes(byguid)));
  REQUIRE(a.response.header.status == mad::status::ok);
  CHECK(mad::NodeRecord::decode(a.response.data)->lid == q.lid);

  // Every switch (NodeType, component 4) by GetTable; a Get for them is "too many".
  mad::NodeRecord sw;
  sw.info.node_type = mad::NodeType::sw;
  a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::node_record, 1u << 4, bytes(sw)));
  CHECK(a.payload.size() == t.switches().size() * size_t{a.response.attr_offset} * 8);
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::node_record, 1u << 4, bytes(sw)));
  CHECK(a.response.header.status == mad::sa_status::too_many_records);

  // A switch's PortInfoRecords: one per port (0..8) under its LID.
  mad::PortInfoRecord pq;
  pq.endport_lid = t.port(t.switches()[0], mad::PortNum(0)).lid;
  a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::port_info_record, 1, bytes(pq)));
  CHECK(a.payload.size() / (size_t{a.response.attr_offset} * 8) == size_t{t.node(t.switches()[0]).num_ports} + 1);

  // `saquery -s`: the ports whose CapabilityMask has IsSM (component 7), whatever else they
  // can do: a subset match, so the SM's port (IsSM and more) is the one record.
  mad::PortInfoRecord sm_ports;
  sm_ports.info.capability_mask = mad::port_cap::is_sm;
  a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::port_info_record, 1u << 7, bytes(sm_ports)));
  REQUIRE(a.response.header.status == mad::status::ok);
  REQUIRE(a.payload.size() == size_t{a.response.attr_offset} * 8);
  const auto smr = mad::PortInfoRecord::decode(a.payload);
  REQUIRE(smr);
  CHECK(smr->endport_lid == f.run.sm->subnet()->sm.lid);
  CHECK(smr->info.capability_mask != mad::port_cap::is_sm);  // more bits than the query's
  // A bit no port has: no records.
  sm_ports.info.capability_mask = mad::port_cap::is_sm | (1u << 31);
  a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::port_info_record, 1u << 7, bytes(sm_ports)));
  CHECK(a.payload.empty());
}

TEST_CASE("SA: bad requests get the IBA status, never a crash") {
  IndexFixture f;
  using P = mad::PathRecord;
  // Unknown component bits, an attribute not served, a method not served, a bad class version.
  auto a = ask(f, request(mad::sa_method::get_table, mad::sa_attr::node_record, 1ull << 40));
  CHECK(a.response.header.status == mad::sa_status::req_invalid);
  a = ask(f, request(mad::sa_method::get, mad::sa_attr::trace_record, 0));
  CHECK(a.response.header.status == mad::status::unsupported_method_attr);
  a = ask(f, request(mad::sa_method::del, mad::sa_attr::path_record, P::c_slid));
  CHECK(a.response.header.status == mad::status::unsupported_method_attr);  // the index is read-only
  a = ask(f, request(mad::sa_method::report, mad::sa_attr::path_record, P::c_slid));
  CHECK(a.response.header.status == mad::status::unsupported_method);
  mad::MadBytes bad = request(mad::sa_method::get, mad::sa_attr::class_port_info, 0);
  bad[2] = 7;
  a = ask(f, bad);
  CHECK(a.response.header.status == mad::status::bad_version);
  CHECK(a.response.header.tid == 0x1234);  // answers carry the request's TID
  // No index yet (a sweep never finished): busy.
  a = sm::sa::answer_query(nullptr, {}, request(mad::sa_method::get, mad::sa_attr::class_port_info, 0), {}, 0);
  CHECK(a.response.header.status == mad::status::busy);
  // A response, and bytes that are no SA MAD at all: no answer.
  mad::MadBytes resp = request(mad::sa_method::get_resp, mad::sa_attr::node_record, 0);
  CHECK_FALSE(ask(f, resp).respond);
  mad::MadBytes junk{};
  junk[1] = 0x81;
  CHECK_FALSE(ask(f, junk).respond);
}

TEST_CASE("SA: a handler answers every method on the attributes it claims") {
  IndexFixture f;
  // Keeps one 8-byte value per requester LID: Set stores, Get/GetTable read, Delete erases.
  struct Toy : sm::sa::Handler {
    std::map<uint16_t, uint8_t> kept;
    size_t claims(uint16_t attr) const override { return attr == mad::sa_attr::service_record ? 8 : 0; }
    sm::sa::Records handle(const sm::sa::Request& r, const sm::sa::Index&) override {
      sm::sa::Records out;
      const uint16_t lid = r.from.lid.value();
      if (r.mad.header.method == mad::sa_method::set) kept[lid] = r.mad.data[0];
      if (r.mad.header.method == mad::sa_method::del && !kept.erase(lid)) return out;
      if (r.mad.header.method != mad::sa_method::del)
        for (const auto& [l, v] : kept) out.records.push_back({v, 0, 0, 0, 0, 0, 0, 0});
      else
        out.records.push_back({r.mad.data[0], 0, 0, 0, 0, 0, 0, 0});
      return out;
    }
  } toy;
  sm::sa::Handler* hs[] = {&toy};
  auto ask_from = [&](uint8_t method, uint16_t lid, uint8_t v) {
    mad::MadAddress from;
    from.lid = mad::Lid(lid);
    const uint8_t rec[] = {v};
    return sm::sa::answer_query(f.index.get(), hs, request(method, mad::sa_attr::service_record, 0, rec), from, 0);
  };
  auto a = ask_from(mad::sa_method::set, 5, 42);
  CHECK(a.response.header.status == 0);
  CHECK(a.response.header.method == mad::sa_method::get_resp);
  CHECK(a.response.data[0] == 42);
  CHECK(a.response.attr_offset == 1);
  ask_from(mad::sa_method::set, 6, 43);
  a = ask_from(mad::sa_method::get, 5, 0);
  CHECK(a.response.header.status == mad::sa_status::too_many_records);
  a = ask_from(mad::sa_method::get_table, 5, 0);
  CHECK(a.response.header.method == mad::sa_method::get_table_resp);
  CHECK(a.payload.size() == 16);
  a = ask_from(mad::sa_method::del, 6, 43);
  CHECK(a.response.header.method == mad::sa_method::del_resp);
  CHECK(a.response.data[0] == 43);
  a = ask_from(mad::sa_method::del, 6, 43);
  CHECK(a.response.header.status == mad::sa_status::no_records);
  CHECK(toy.kept.size() == 1);
  // Attributes it does not claim still come from the index, which refuses Set.
  a = sm::sa::answer_query(f.index.get(), hs, request(mad::sa_method::set, mad::sa_attr::node_record, 0), {}, 0);
  CHECK(a.response.header.status == mad::status::unsupported_method_attr);
}

TEST_CASE("SA server: GetTable by RMPP reassembles to every record; a flooding source waits its turn") {
  IndexFixture f;
  sim::SimTransport& tr = *f.run.transport;
  sm::Logger log(sm::Level::error);
  sm::sa::Server server(tr, log, sm::sa::ServerConfig{.queue_per_source = 4, .per_tick = 3});
  server.set_index(f.index);
  mad::Packet req;
  req.mad = request(mad::sa_method::get_table, mad::sa_attr::node_record, 0);
  auto segs = server.answer(req);
  REQUIRE(segs.size() > 1);
  mad::RmppReceiver rx;
  std::optional<mad::MadBytes> ack;
  for (const auto& s : segs) rx.on_segment(s, ack);
  REQUIRE(rx.complete());
  const size_t stride = size_t{mad::attr_offset_for(mad::NodeRecord::kSize)} * 8;
  CHECK((rx.message().size() - mad::kSaHeaderSize) / stride == f.index->node_records().count());

  // Source LID 50 floods 10 requests, LID 60 sends 1: 4 are kept from 50; a tick of 3 answers
  // takes both sources in turn.
  for (int i = 0; i < 10; ++i) {
    mad::Packet p = req;
    p.addr.lid = mad::Lid(50);
    server.on_mad(p);
  }
  mad::Packet other = req;
  other.addr.lid = mad::Lid(60);
  server.on_mad(other);
  CHECK(server.queued() == 5);
  CHECK(server.stats().dropped == 6);
  server.on_tick();
  CHECK(server.queued() == 2);
  CHECK(server.stats().answered == 3);
}
