// PathRecord SLs with VL layers (routing/tables.h): the SA answers the routing's SL of the
// switch the source enters the fabric at and the destination LID, and a query naming an SL
// finds the paths on that SL only. Synthetic SLs on the tables the real SM programmed.
#include <doctest/doctest.h>

#include "tests/sm/sa/sa_helpers.h"
#include "mad/sa_path_record.h"

namespace {

using mad::PathRecord;
using satest::bytes;
using satest::request;

struct Layered {
  std::shared_ptr<const routing::RoutingTables> tables;
  std::shared_ptr<const sm::sa::Index> index;
};

// A published subnet whose tables carry SLs: (switch NodeId + LID) % 3.
Layered with_sls(const satest::Fixture& f) {
  auto s = std::make_shared<sm::Subnet>(*f.run.sm->subnet());
  auto t = std::make_shared<routing::RoutingTables>(*s->tables);
  t->reserve_sls();
  for (fabric::NodeId sw : s->topology->switches())
    for (uint16_t lid = 1; lid <= t->max_lid().value(); ++lid)
      t->set_sl(sw, mad::Lid(lid), static_cast<uint8_t>((sw + lid) % 3));
  s->tables = t;
  s->multicast_sl = 3;
  return Layered{t, std::make_shared<const sm::sa::Index>(sm::sa::Index::of(s, 18))};
}

std::vector<PathRecord> ask(const sm::sa::Index& ix, const PathRecord& q, uint64_t mask) {
  auto a = sm::sa::answer_query(&ix, {}, request(mad::sa_method::get_table, mad::sa_attr::path_record, mask, bytes(q)),
                                {}, satest::kPrefix);
  std::vector<PathRecord> out;
  if (a.response.header.status != mad::status::ok) return out;
  for (size_t off = 0; off + PathRecord::kSize <= a.payload.size(); off += size_t{a.response.attr_offset} * 8)
    out.push_back(*PathRecord::decode(std::span(a.payload).subspan(off, PathRecord::kSize)));
  return out;
}

}  // namespace

TEST_CASE("SA: PathRecord SL is the routing's SL of the source's ingress switch and the DLID") {
  satest::Fixture f;
  const Layered l = with_sls(f);
  const auto& ix = l.index;
  const fabric::Topology& t = *f.run.sm->subnet()->topology;
  const routing::RoutingTables& tables = *l.tables;
  size_t checked = 0, nonzero = 0;
  for (const sm::sa::Endport& src : ix->endports()) {
    PathRecord q;
    q.slid = src.lid;
    const auto got = ask(*ix, q, PathRecord::c_slid);
    REQUIRE(got.size() == ix->endports().size());
    const fabric::NodeId ingress = t.node(src.node).is_switch() ? src.node : t.port(src.node, src.port).peer;
    for (const PathRecord& p : got) {
      CHECK(p.sl == tables.sl(ingress, p.dlid));
      nonzero += p.sl != 0;
      ++checked;
    }
  }
  CHECK(checked == ix->endports().size() * ix->endports().size());
  CHECK(nonzero > checked / 2);  // the oracle is not all zeros
  // Naming the SL: only the paths on it; the three SLs together are every path.
  const sm::sa::Endport& src = ix->endports().front();
  size_t sum = 0;
  for (uint8_t sl = 0; sl < 4; ++sl) {
    PathRecord q;
    q.slid = src.lid;
    q.sl = sl;
    const auto got = ask(*ix, q, PathRecord::c_slid | PathRecord::c_sl);
    for (const PathRecord& p : got) CHECK(p.sl == sl);
    if (sl == 3) CHECK(got.empty());
    sum += got.size();
  }
  CHECK(sum == ix->endports().size());
  CHECK(ix->multicast_sl() == std::optional<uint8_t>(3));
}

TEST_CASE("SA: without SLs in the tables every PathRecord has SL 0 and a query for SL 1 finds none") {
  satest::Fixture f;
  PathRecord q;
  q.slid = f.index->endports().front().lid;
  for (const PathRecord& p : ask(*f.index, q, PathRecord::c_slid)) CHECK(p.sl == 0);
  q.sl = 1;
  CHECK(ask(*f.index, q, PathRecord::c_slid | PathRecord::c_sl).empty());
  CHECK(!f.index->multicast_sl());
}
