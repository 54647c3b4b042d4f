// LMC > 0 in the SA: PathRecords over both ports' LID ranges in OpenSM's order (Preference 0
// pairs first), NumbPath and Get limits, a named SLID/DLID of a range, each record's SL the
// routing's for its DLID; MultiPathRecord (GetMulti) between GID sets, its limits and its
// refusals. The oracle for counts is the ports' LID ranges, for SLs the tables themselves.
#include <doctest/doctest.h>

#include <set>

#include "tests/sm/sa/sa_helpers.h"
#include "mad/sa_multipath_record.h"
#include "mad/sa_path_record.h"
#include "mad/sa_service_records.h"

namespace {

using mad::MultiPathRecord;
using mad::PathRecord;
using satest::bytes;
using satest::request;

struct LmcFabric {
  smtest::Run run;
  std::shared_ptr<const routing::RoutingTables> tables;
  std::shared_ptr<const sm::sa::Index> index;
  LmcFabric(uint8_t lmc, std::string engine = "minhop", sim::FabricSpec spec = *sim::make_fat_tree(2, 8))
      : run(std::move(spec), config(lmc, std::move(engine))) {
    REQUIRE(run.until_idle());
    REQUIRE(run.sm->subnet_up());
    // Synthetic SLs that differ between the LIDs of one port: (switch + LID) % 3.
    auto s = std::make_shared<sm::Subnet>(*run.sm->subnet());
    auto t = std::make_shared<routing::RoutingTables>(*s->tables);
    t->reserve_sls();
    for (fabric::NodeId sw : s->topology->switches())
      for (uint16_t lid = 1; lid <= t->max_lid().value(); ++lid)
        t->set_sl(sw, mad::Lid(lid), static_cast<uint8_t>((sw + lid) % 3));
    s->tables = t;
    tables = t;
    index = std::make_shared<const sm::sa::Index>(sm::sa::Index::of(s, 18));
  }
  static sm::SmConfig config(uint8_t lmc, std::string engine) {
    sm::SmConfig c;
    c.ports.lmc = lmc;
    c.routing_engine = std::move(engine);
    return c;
  }
  std::vector<const sm::sa::Endport*> cas() const {
    std::vector<const sm::sa::Endport*> out;
    for (const auto& e : index->endports())
      if (e.port.value() != 0) out.push_back(&e);
    return out;
  }
  fabric::NodeId ingress(const sm::sa::Endport& e) const {
    const fabric::Topology& t = *run.sm->subnet()->topology;
    return t.node(e.node).is_switch() ? e.node : t.port(e.node, e.port).peer;
  }
};

sm::sa::Answer ask_raw(const sm::sa::Index& ix, const mad::MadBytes& req) {
  return satest::ask(&ix, {}, req, mad::Lid(0));
}

std::vector<PathRecord> paths(const sm::sa::Index& ix, const PathRecord& q, uint64_t mask,
                              uint8_t method = mad::sa_method::get_table) {
  return satest::records<PathRecord>(ask_raw(ix, request(method, mad::sa_attr::path_record, mask, bytes(q))));
}

mad::MadBytes multipath_request(const MultiPathRecord& m, uint64_t mask, uint8_t method = mad::sa_method::get_multi) {
  std::vector<uint8_t> b(m.size());
  m.encode(b);
  auto req = request(method, mad::sa_attr::multipath_record, mask, b);
  // As OpenSM's client sends it: one MAD, RMPP active (DATA, first and last segment).
  mad::RmppHeader rh{.version = 1, .type = mad::rmpp::Type::data,
                     .flags = mad::rmpp::flag_active | mad::rmpp::flag_first | mad::rmpp::flag_last, .segment = 1};
  mad::encode_rmpp_header(rh, req);
  return req;
}

mad::Gid gid_of(const sm::sa::Endport& e) { return mad::Gid(satest::kPrefix, e.guid.value()); }

}  // namespace

TEST_CASE("SA LMC: PathRecords between two ports cover both LID ranges, Preference 0 pairs first") {
  for (uint8_t lmc : {uint8_t{1}, uint8_t{2}}) {
    CAPTURE(lmc);
    LmcFabric f(lmc);
    const auto cas = f.cas();
    REQUIRE(cas.size() >= 4);
    const sm::sa::Endport& a = *cas.front();
    const sm::sa::Endport& b = *cas.back();
    const unsigned n = 1u << lmc;
    PathRecord q;
    q.sgid = gid_of(a);
    q.dgid = gid_of(b);
    const auto got = paths(*f.index, q, PathRecord::c_sgid | PathRecord::c_dgid);
    REQUIRE(got.size() == n * n);
    std::set<std::pair<uint16_t, uint16_t>> pairs;
    for (size_t i = 0; i < got.size(); ++i) {
      const PathRecord& p = got[i];
      CHECK(p.slid.value() >= a.lid.value());
      CHECK(p.slid.value() < a.lid.value() + n);
      CHECK(p.dlid.value() >= b.lid.value());
      CHECK(p.dlid.value() < b.lid.value() + n);
      pairs.emplace(p.slid.value(), p.dlid.value());
      // The first n use the same offset on both ends (Preference 0), the rest not.
      const bool same = p.slid.value() - a.lid.value() == p.dlid.value() - b.lid.value();
      CHECK(same == (i < n));
      CHECK(p.preference == (i < n ? 0 : 2));
      CHECK(p.sl == f.tables->sl(f.ingress(a), p.dlid));
      CHECK(p.reversible);
    }
    CHECK(pairs.size() == n * n);
    // The SLs differ between a port's LIDs (the oracle is not one SL).
    std::set<uint8_t> sls;
    for (const PathRecord& p : got) sls.insert(p.sl);
    CHECK(sls.size() > 1);

    // NumbPath limits each port pair; Get answers one (the base LIDs).
    q.numb_path = 2;
    const auto two = paths(*f.index, q, PathRecord::c_sgid | PathRecord::c_dgid | PathRecord::c_numb_path);
    REQUIRE(two.size() == 2);
    CHECK(two[0].preference == 0);
    CHECK(two[1].preference == 0);
    const auto one = paths(*f.index, q, PathRecord::c_sgid | PathRecord::c_dgid, mad::sa_method::get);
    REQUIRE(one.size() == 1);
    CHECK(one[0].slid == a.lid);
    CHECK(one[0].dlid == b.lid);

    // A DLID of the range (not the base) names that LID only, from every SLID.
    PathRecord q2;
    q2.sgid = gid_of(a);
    q2.dlid = mad::Lid(static_cast<uint16_t>(b.lid.value() + n - 1));
    const auto to_last = paths(*f.index, q2, PathRecord::c_sgid | PathRecord::c_dlid);
    CHECK(to_last.size() == n);
    for (const PathRecord& p : to_last) CHECK(p.dlid == q2.dlid);
  }
}

TEST_CASE("SA LMC: a query naming one SLID gets a row per LID of every port (switch port 0 has one)") {
  LmcFabric f(1);
  const sm::sa::Endport& a = *f.cas().front();
  size_t expect = 0;
  for (const auto& e : f.index->endports()) expect += e.lid_count();
  PathRecord q;
  q.slid = mad::Lid(static_cast<uint16_t>(a.lid.value() + 1));
  const auto got = paths(*f.index, q, PathRecord::c_slid);
  CHECK(got.size() == expect);
  for (const PathRecord& p : got) {
    CHECK(p.slid == q.slid);
    const sm::sa::Endport* d = f.index->by_lid(p.dlid);
    REQUIRE(d);
    CHECK(p.dgid.guid() == d->guid);
    CHECK(p.sl == f.tables->sl(f.ingress(a), p.dlid));
  }
  CHECK(expect > f.index->endports().size());  // CAs have 2 LIDs, switches 1
}

TEST_CASE("SA MultiPathRecord: GetMulti answers PathRecords between the GID sets, NumbPath in all") {
  LmcFabric f(1);
  const auto cas = f.cas();
  MultiPathRecord m;
  m.sgids = {gid_of(*cas[0])};
  m.dgids = {gid_of(*cas[cas.size() - 1]), gid_of(*cas[cas.size() / 2])};
  const uint64_t base = MultiPathRecord::c_sgid_count | MultiPathRecord::c_dgid_count;
  auto a = ask_raw(*f.index, multipath_request(m, base));
  REQUIRE(a.response.header.status == 0);
  CHECK(a.response.header.method == mad::sa_method::get_multi_resp);
  CHECK(a.response.header.attr_id == mad::sa_attr::path_record);
  auto got = satest::records<PathRecord>(a);
  CHECK(got.size() == 8);  // 2 port pairs x 2 x 2 LID pairs
  for (const PathRecord& p : got) {
    CHECK(p.sgid == m.sgids[0]);
    CHECK((p.dgid == m.dgids[0] || p.dgid == m.dgids[1]));
    CHECK(p.sl == f.tables->sl(f.ingress(*cas[0]), p.dlid));
  }
  m.numb_path = 3;
  got = satest::records<PathRecord>(ask_raw(*f.index, multipath_request(m, base | MultiPathRecord::c_numb_path)));
  CHECK(got.size() == 3);
  // Without RMPP on the request (a single plain MAD) it is answered too.
  std::vector<uint8_t> b(m.size());
  m.encode(b);
  got = satest::records<PathRecord>(
      ask_raw(*f.index, request(mad::sa_method::get_multi, mad::sa_attr::multipath_record, base, b)));
  CHECK(got.size() == 8);
  // Constraints apply as in PathRecord: an SL no path has finds nothing.
  m.sl = 3;
  a = ask_raw(*f.index, multipath_request(m, base | MultiPathRecord::c_sl));
  CHECK(a.response.header.status == 0);
  CHECK(satest::records<PathRecord>(a).empty());
}

TEST_CASE("SA MultiPathRecord: with IndependenceSelector the paths picked share the fewest switches") {
  LmcFabric f(2);  // 4 LIDs per port: 16 candidate pairs, more than the spines
  const auto cas = f.cas();
  const sm::sa::Endport& s = *cas.front();
  const sm::sa::Endport& d = *cas.back();
  REQUIRE(f.ingress(s) != f.ingress(d));
  auto inner = [&](mad::Lid dlid) {
    auto sws = f.index->switches_on(s, dlid);
    REQUIRE(sws.size() >= 2);
    return std::set<fabric::NodeId>(sws.begin() + 1, sws.end() - 1);
  };
  auto shared = [&](const std::vector<PathRecord>& ps) {
    size_t n = 0;
    std::multiset<fabric::NodeId> all;
    for (const PathRecord& p : ps)
      for (fabric::NodeId sw : inner(p.dlid)) {
        n += all.count(sw) ? 1 : 0;
        all.insert(sw);
      }
    return n;
  };
  MultiPathRecord m;
  m.sgids = {gid_of(s)};
  m.dgids = {gid_of(d)};
  m.numb_path = 4;
  m.independence = 1;
  const uint64_t mask = MultiPathRecord::c_sgid_count | MultiPathRecord::c_dgid_count | MultiPathRecord::c_numb_path;
  const auto plain = satest::records<PathRecord>(ask_raw(*f.index, multipath_request(m, mask)));
  const auto indep =
      satest::records<PathRecord>(ask_raw(*f.index, multipath_request(m, mask | MultiPathRecord::c_independence)));
  REQUIRE(plain.size() == 4);
  REQUIRE(indep.size() == 4);
  CHECK(shared(indep) <= shared(plain));
  // The 4 DLIDs of the port go 4 ways on a 4-spine tree: 4 paths with no switch in common.
  std::set<uint16_t> dlids;
  for (const PathRecord& p : indep) dlids.insert(p.dlid.value());
  CHECK(dlids.size() == 4);
  CHECK(shared(indep) == 0);
}

TEST_CASE("SA MultiPathRecord: malformed or unsupported requests get the IBA status") {
  LmcFabric f(1);
  const auto cas = f.cas();
  MultiPathRecord m;
  m.sgids = {gid_of(*cas[0])};
  m.dgids = {gid_of(*cas[1])};
  const uint64_t base = MultiPathRecord::c_sgid_count | MultiPathRecord::c_dgid_count;
  auto status = [&](const mad::MadBytes& req) {
    const auto h = ask_raw(*f.index, req).response.header;
    // An error echoes the attribute asked for (MultiPathRecord stays 0x003A), as OpenSM's do.
    CHECK(h.attr_id == mad::decode_sa_mad(req)->header.attr_id);
    return h.status;
  };
  CHECK(status(multipath_request(m, MultiPathRecord::c_sgid_count)) == mad::sa_status::insufficient_components);
  CHECK(status(multipath_request(m, base | MultiPathRecord::c_service_id_msb)) ==
        mad::sa_status::insufficient_components);
  CHECK(status(multipath_request(m, base | (1ull << 40))) == mad::sa_status::req_invalid);
  // Counts announcing more GIDs than the MAD holds.
  {
    auto req = multipath_request(m, base);
    req[mad::kSaHeaderSize + 15] = 12;
    CHECK(status(req) == mad::sa_status::req_invalid);
  }
  // An empty set, an unknown port, another subnet's prefix, a multicast SGID.
  MultiPathRecord e = m;
  e.dgids.clear();
  CHECK(status(multipath_request(e, base)) == mad::sa_status::req_invalid);
  e = m;
  e.dgids = {mad::Gid(satest::kPrefix, 0x1234567)};
  CHECK(status(multipath_request(e, base)) == mad::sa_status::invalid_gid);
  e = m;
  e.dgids = {mad::Gid(0xFEC0000000000000ULL, cas[1]->guid.value())};
  CHECK(status(multipath_request(e, base)) == mad::sa_status::invalid_gid);
  e = m;
  e.sgids = {mad::Gid(0xFF02000000000000ULL, cas[0]->guid.value())};
  CHECK(status(multipath_request(e, base)) == mad::sa_status::invalid_gid);
  // A rate or MTU that is no code.
  e = m;
  e.rate = 63;
  CHECK(status(multipath_request(e, base | MultiPathRecord::c_rate | MultiPathRecord::c_rate_selector)) ==
        mad::sa_status::req_invalid);
  // A request of several RMPP segments is not reassembled.
  {
    auto req = multipath_request(m, base);
    mad::RmppHeader rh{.version = 1, .type = mad::rmpp::Type::data,
                       .flags = mad::rmpp::flag_active | mad::rmpp::flag_first, .segment = 1};
    mad::encode_rmpp_header(rh, req);
    CHECK(status(req) == mad::sa_status::req_invalid);
  }
  // MultiPathRecord only by GetMulti, GetMulti only for MultiPathRecord.
  CHECK(status(multipath_request(m, base, mad::sa_method::get_table)) == mad::status::unsupported_method_attr);
  CHECK(status(request(mad::sa_method::get_multi, mad::sa_attr::path_record, PathRecord::c_slid)) ==
        mad::status::unsupported_method_attr);
  // ClassPortInfo says MultiPath is supported.
  auto cpi = ask_raw(*f.index, request(mad::sa_method::get, mad::sa_attr::class_port_info, 0));
  REQUIRE(cpi.response.header.status == 0);
  auto c = mad::ClassPortInfo::decode(std::span(cpi.response.data).first(mad::ClassPortInfo::kSize));
  REQUIRE(c);
  CHECK((c->capability_mask & mad::sa_cap::is_multipath_supported) != 0);
}
