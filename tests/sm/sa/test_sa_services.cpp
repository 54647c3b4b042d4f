// ServiceRecords (Set/Get/Delete, leases in virtual time, back from the store), InformInfo
// subscriptions and the Reports they bring when the simulated fabric changes.
#include <doctest/doctest.h>

#include <filesystem>

#include "tests/temp_dir.h"
#include "mad/notice.h"
#include "mad/sa_service_records.h"
#include "tests/sm/sa/sa_helpers.h"
#include "sm/sa/reports.h"
#include "sm/sa/services.h"
#include "sm/sa/subscriptions.h"
#include "sm/store/store.h"

namespace {

using namespace satest;
using namespace std::chrono_literals;
namespace m = mad::sa_method;
namespace at = mad::sa_attr;
using SR = mad::ServiceRecord;

// A database of its own for one test.
struct TempDb {
  testutil::TempDir dir;
  std::string path() const { return dir.file("sa.db"); }
};

// A wall clock the test moves by hand.
struct Wall {
  int64_t ms = 1'700'000'000'000;
  std::function<int64_t()> fn() {
    return [this] { return ms; };
  }
};

SR service(const Fixture& f, uint64_t id, fabric::NodeId ca, const char* name) {
  SR s;
  s.id = id;
  s.gid = mad::Gid(kPrefix, f.run.topo().port(ca, mad::PortNum(1)).guid.value());
  s.pkey = 0xFFFF;
  s.name = name;
  s.data32[0] = 7;
  return s;
}

}  // namespace

TEST_CASE("SA: ServiceRecord Set, Get by mask, update, Delete, lease expiry in virtual time") {
  Fixture f;
  Wall wall;
  sm::sa::Services svc({f.run.transport->clock(), wall.fn()});
  sm::sa::Handler* hs[] = {&svc};
  const auto& t = f.run.topo();
  auto set = [&](const SR& s, uint64_t mask) { return ask(f.index.get(), hs, request(m::set, at::service_record, mask, bytes(s))); };
  constexpr uint64_t key = SR::c_id | SR::c_gid | SR::c_pkey;

  SR a = service(f, 0x1000, t.cas()[0], "alpha");
  a.lease = SR::kInfiniteLease;
  auto r = set(a, key | SR::c_lease | SR::c_name);
  REQUIRE(r.response.header.status == 0);
  CHECK(r.response.header.method == m::get_resp);
  CHECK(*SR::decode(std::span(r.response.data).first(SR::kSize)) == a);
  SR b = service(f, 0x2000, t.cas()[1], "beta");
  b.lease = 60;
  REQUIRE(set(b, key | SR::c_lease).response.header.status == 0);
  CHECK(svc.size() == 2);

  // By ServiceID; by name; every one; a Get that matches two is "too many".
  auto g = ask(f.index.get(), hs, request(m::get, at::service_record, SR::c_id, bytes(b)));
  REQUIRE(g.response.header.status == 0);
  auto got = records<SR>(g);
  CHECK(got[0].name == "beta");
  CHECK(got[0].lease == 60);
  g = ask(f.index.get(), hs, request(m::get_table, at::service_record, SR::c_name, bytes(a)));
  CHECK(records<SR>(g).size() == 1);
  g = ask(f.index.get(), hs, request(m::get_table, at::service_record, 0));
  CHECK(records<SR>(g).size() == 2);
  g = ask(f.index.get(), hs, request(m::get, at::service_record, 0));
  CHECK(g.response.header.status == mad::sa_status::too_many_records);

  // The same ID, GID and P_Key again: the record is replaced, not added.
  a.data32[0] = 99;
  REQUIRE(set(a, key | SR::c_lease).response.header.status == 0);
  CHECK(svc.size() == 2);
  g = ask(f.index.get(), hs, request(m::get, at::service_record, SR::c_id | SR::c_gid, bytes(a)));
  CHECK(records<SR>(g)[0].data32[0] == 99);
  // Another P_Key is another record (the limited entry of Default, which the requester holds);
  // a partition the requester is not in is refused.
  SR a2 = a;
  a2.pkey = 0x8001;
  CHECK(set(a2, key).response.header.status == mad::sa_status::req_invalid);
  a2.pkey = 0x7FFF;
  REQUIRE(set(a2, key).response.header.status == 0);
  CHECK(svc.size() == 3);

  // 30 s on: beta has 30 s left; 61 s on it is gone, alpha (infinite) stays.
  f.run.fabric->run_until(f.run.fabric->now() + 30s);
  g = ask(f.index.get(), hs, request(m::get, at::service_record, SR::c_id, bytes(b)));
  CHECK(records<SR>(g)[0].lease == 30);
  f.run.fabric->run_until(f.run.fabric->now() + 31s);
  g = ask(f.index.get(), hs, request(m::get, at::service_record, SR::c_id, bytes(b)));
  CHECK(g.response.header.status == mad::sa_status::no_records);
  CHECK(svc.size() == 2);

  // Delete: the record comes back once, then there is nothing to delete.
  auto d = ask(f.index.get(), hs, request(m::del, at::service_record, key, bytes(a2)));
  CHECK(d.response.header.method == m::del_resp);
  CHECK(records<SR>(d)[0].pkey == 0x7FFF);
  d = ask(f.index.get(), hs, request(m::del, at::service_record, key, bytes(a2)));
  CHECK(d.response.header.status == mad::sa_status::no_records);
  CHECK(svc.size() == 1);
}

TEST_CASE("SA: ServiceRecord requests that are wrong get IBA statuses and change nothing") {
  Fixture f;
  Wall wall;
  sm::sa::Services svc({f.run.transport->clock(), wall.fn()});
  sm::sa::Handler* hs[] = {&svc};
  SR s = service(f, 1, f.run.topo().cas()[0], "x");
  // Without the GID in the mask; a GID no port has; a multicast GID; unknown mask bits.
  auto r = ask(f.index.get(), hs, request(m::set, at::service_record, SR::c_id, bytes(s)));
  CHECK(r.response.header.status == mad::sa_status::insufficient_components);
  SR bad = s;
  bad.gid = mad::Gid(kPrefix, 0xDEADBEEF);
  r = ask(f.index.get(), hs, request(m::set, at::service_record, SR::c_id | SR::c_gid, bytes(bad)));
  CHECK(r.response.header.status == mad::sa_status::invalid_gid);
  bad.gid = mad::ipoib_broadcast_mgid(0xFFFF);
  r = ask(f.index.get(), hs, request(m::set, at::service_record, SR::c_id | SR::c_gid, bytes(bad)));
  CHECK(r.response.header.status == mad::sa_status::req_invalid);
  r = ask(f.index.get(), hs, request(m::get_table, at::service_record, 1ull << 50, bytes(s)));
  CHECK(r.response.header.status == mad::sa_status::req_invalid);
  r = ask(f.index.get(), hs, request(m::del, at::service_record, SR::c_gid, bytes(s)));
  CHECK(r.response.header.status == mad::sa_status::insufficient_components);
  CHECK(svc.size() == 0);
}

TEST_CASE("SA: ServiceRecords survive a restart through the store; leases keep running") {
  Fixture f;
  Wall wall;
  TempDb db;
  const auto& t = f.run.topo();
  {
    auto st = sm::store::Store::open({.path = db.path()});
    REQUIRE(st);
    sm::sa::Services svc({f.run.transport->clock(), wall.fn()});
    svc.on_change = [&](sm::store::SaObject o) { (*st)->note_sa_object(std::move(o)); };
    sm::sa::Handler* hs[] = {&svc};
    SR a = service(f, 1, t.cas()[0], "forever");
    a.lease = SR::kInfiniteLease;
    SR b = service(f, 2, t.cas()[1], "ten minutes");
    b.lease = 600;
    SR c = service(f, 3, t.cas()[2], "ten seconds");
    c.lease = 10;
    for (const SR* s : {&a, &b, &c})
      REQUIRE(ask(f.index.get(), hs, request(m::set, at::service_record, SR::c_id | SR::c_gid | SR::c_lease, bytes(*s)))
                  .response.header.status == 0);
    REQUIRE((*st)->flush_events());
  }
  // The next SM process starts 100 s later (its transport clock starts anew).
  wall.ms += 100'000;
  auto st = sm::store::Store::open({.path = db.path()});
  REQUIRE(st);
  auto objs = (*st)->load_sa_objects();
  REQUIRE(objs);
  CHECK(objs->size() == 3);
  sm::sa::Services svc({f.run.transport->clock(), wall.fn()});
  std::vector<sm::store::SaObject> gone;
  svc.on_change = [&](sm::store::SaObject o) { gone.push_back(o); };
  CHECK(svc.load(*objs) == 2);  // the 10 s lease ran out while no SM was there
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].record.empty());  // and the store is told to forget it
  sm::sa::Handler* hs[] = {&svc};
  auto g = ask(f.index.get(), hs, request(m::get_table, at::service_record, 0));
  auto rs = records<SR>(g);
  REQUIRE(rs.size() == 2);
  CHECK(rs[0].name == "forever");
  CHECK(rs[0].lease == SR::kInfiniteLease);
  CHECK(rs[1].name == "ten minutes");
  CHECK(rs[1].lease == 500);
}

namespace {

// The subscriber: an application on a CA port, its own endpoint in the simulated fabric.
struct Subscriber {
  Fixture& f;
  sim::EndpointId ep;
  fabric::NodeId node;
  mad::Lid lid;
  Subscriber(Fixture& fx, fabric::NodeId ca) : f(fx), node(ca) {
    const auto& t = f.run.topo();
    lid = t.port(ca, mad::PortNum(1)).lid;
    auto e = f.run.fabric->find_guid(t.node(ca).guid);
    REQUIRE(e);
    auto a = f.run.fabric->attach(*e, 1);
    REQUIRE(a);
    ep = *a;
  }
  // The Reports that reached it since last asked.
  std::vector<mad::SaMad> reports() {
    f.run.fabric->run_for_endpoint(ep, f.run.fabric->now() + 10ms);
    std::vector<mad::SaMad> out;
    for (const auto& p : f.run.fabric->inbox(ep))
      if (auto sa = mad::decode_sa_mad(p.mad)) out.push_back(*sa);
    f.run.fabric->inbox(ep).clear();
    return out;
  }
  void ack(const mad::SaMad& report) {
    mad::SaMad r = report;
    r.header.method = m::report_resp;
    mad::Packet p;
    p.mad = mad::encode_sa_mad(r);
    const auto& t = f.run.topo();
    p.addr.lid = t.port(t.sm_node(), t.sm_port()).lid;
    p.addr.qpn = 1;
    p.addr.qkey = mad::kGsiQkey;
    f.run.fabric->inject(ep, p);
  }
};

// The k-th CA that is not where the SM sits (a subscriber needs a port of its own).
fabric::NodeId other_ca(const fabric::Topology& t, size_t k) {
  for (fabric::NodeId c : t.cas())
    if (c != t.sm_node() && k-- == 0) return c;
  FAIL("not enough CAs");
  return 0;
}

mad::InformInfo all_traps() {
  mad::InformInfo i;
  i.lid_begin = mad::Lid(0xFFFF);
  i.qpn = 1;
  return i;
}

mad::Notice notice_of(const mad::SaMad& r) { return *mad::Notice::decode(std::span(r.data).first(mad::Notice::kSize)); }

}  // namespace

TEST_CASE("SA: InformInfo subscribe; a CA leaves (trap 65) and comes back (64); ReportResp stops resends") {
  Fixture f;
  sm::Logger log(sm::Level::error);
  sm::sa::Subscriptions subs;
  sm::sa::Reporter rep(*f.run.transport, subs, log, {.resend = 100ms, .retries = 2});
  rep.on_index(nullptr, f.index);
  f.run.sm->on_notice = [&](const mad::Notice& n) { rep.on_notice(n); };
  sm::sa::Handler* hs[] = {&subs};
  const auto& t = f.run.topo();
  Subscriber sub(f, other_ca(t, 0));
  const fabric::NodeId leaver = other_ca(t, 9);
  const mad::Guid leaver_port = t.port(leaver, mad::PortNum(1)).guid;
  const mad::Guid leaver_node = t.node(leaver).guid;

  // Traps 64 and 65 only (two subscriptions), Reports to QP 1.
  for (uint16_t trap : {uint16_t{64}, uint16_t{65}}) {
    mad::InformInfo i = all_traps();
    i.trap_or_device = trap;
    auto a = ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(i)), sub.lid);
    REQUIRE(a.response.header.status == 0);
    CHECK(*mad::InformInfo::decode(std::span(a.response.data).first(mad::InformInfo::kSize)) == i);
  }
  CHECK(subs.size() == 2);

  // The CA goes: the SM sweeps, the new index lacks its port, the subscriber hears trap 65.
  REQUIRE(f.run.fabric->remove_node(*f.run.fabric->find_guid(leaver_node)));
  REQUIRE(f.run.run_for(1s));
  auto before = f.index;
  f.rebuild();
  CHECK(f.index->endports().size() + 1 == before->endports().size());
  rep.on_index(before.get(), f.index);
  auto got = sub.reports();
  REQUIRE(got.size() == 1);
  const mad::SaMad r65 = got[0];
  CHECK(r65.header.method == m::report);
  CHECK(r65.header.attr_id == at::notice);
  mad::Notice n = notice_of(r65);
  CHECK(n.is_trap(mad::trap::gid_out_of_service));
  CHECK(n.type == mad::notice_type::subnet_management);
  CHECK(n.producer_or_vendor == mad::producer_type::class_manager);
  REQUIRE(n.trap_gid());
  CHECK(mad::Gid::decode(n.trap_gid()->gid) == mad::Gid(kPrefix, leaver_port.value()));
  CHECK(n.issuer_lid == t.port(t.sm_node(), t.sm_port()).lid);

  // Unanswered, it comes again after 100 ms; answered, never again.
  f.run.fabric->run_until(f.run.fabric->now() + 150ms);
  rep.on_tick();
  got = sub.reports();
  REQUIRE(got.size() == 1);
  CHECK(got[0].header.tid == r65.header.tid);
  CHECK(rep.stats().resent == 1);
  sub.ack(got[0]);
  std::vector<mad::Packet> in;
  REQUIRE(f.run.transport->receive(in, f.run.fabric->now() + 10ms));
  for (const auto& p : in)
    if (p.mad[1] == mad::mgmt_class::subn_adm) rep.on_report_resp(p);
  CHECK(rep.stats().acknowledged == 1);
  CHECK(rep.pending() == 0);
  f.run.fabric->run_until(f.run.fabric->now() + 1s);
  rep.on_tick();
  CHECK(sub.reports().empty());

  // Back: trap 64 with its GID; this time nobody answers: 1 + 2 resends, then given up.
  REQUIRE(f.run.fabric->restore_node(*f.run.fabric->find_guid(leaver_node)));
  REQUIRE(f.run.run_for(1s));
  before = f.index;
  f.rebuild();
  rep.on_index(before.get(), f.index);
  got = sub.reports();
  REQUIRE(got.size() == 1);
  n = notice_of(got[0]);
  CHECK(n.is_trap(mad::trap::gid_in_service));
  CHECK(mad::Gid::decode(n.trap_gid()->gid) == mad::Gid(kPrefix, leaver_port.value()));
  for (int i = 0; i < 4; ++i) {
    f.run.fabric->run_until(f.run.fabric->now() + 101ms);
    rep.on_tick();
  }
  CHECK(sub.reports().size() == 2);
  CHECK(rep.stats().given_up == 1);

  // Unsubscribed from 65: the CA leaving again reports nothing.
  mad::InformInfo off = all_traps();
  off.trap_or_device = 65;
  off.subscribe = false;
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(off)), sub.lid).response.header.status == 0);
  CHECK(subs.size() == 1);
  REQUIRE(f.run.fabric->remove_node(*f.run.fabric->find_guid(leaver_node)));
  REQUIRE(f.run.run_for(1s));
  before = f.index;
  f.rebuild();
  rep.on_index(before.get(), f.index);
  CHECK(sub.reports().empty());
  CHECK(rep.stats().sent == 2);
}

TEST_CASE("SA: traps the SM receives reach the subscribers whose LID range and trap number match") {
  Fixture f;
  sm::Logger log(sm::Level::error);
  sm::sa::Subscriptions subs;
  sm::sa::Reporter rep(*f.run.transport, subs, log, {.resend = 100ms, .retries = 0});
  rep.on_index(nullptr, f.index);
  f.run.sm->on_notice = [&](const mad::Notice& n) { rep.on_notice(n); };
  sm::sa::Handler* hs[] = {&subs};
  const auto& t = f.run.topo();
  Subscriber sub(f, other_ca(t, 0));
  // The leaf switch above CA 20 will trap 128 when CA 20 goes.
  const fabric::NodeId ca = other_ca(t, 20);
  const fabric::NodeId leaf = t.port(ca, mad::PortNum(1)).peer;
  const uint16_t leaf_lid = t.port(leaf, mad::PortNum(0)).lid.value();
  const mad::Guid leaf_port = t.port(leaf, mad::PortNum(0)).guid;  // `t` changes with the next sweep
  mad::InformInfo mine = all_traps();
  mine.trap_or_device = 128;
  mine.lid_begin = mad::Lid(leaf_lid);
  mine.lid_end = mad::Lid(leaf_lid);
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(mine)), sub.lid).response.header.status == 0);
  mad::InformInfo other = mine;  // another switch's LID range: nothing
  other.lid_begin = other.lid_end = mad::Lid(static_cast<uint16_t>(leaf_lid + 1000));
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(other)), sub.lid).response.header.status == 0);
  mad::InformInfo sw_only = all_traps();  // every trap from a CA (producer 1): nothing either
  sw_only.producer_or_vendor = mad::producer_type::ca;
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(sw_only)), sub.lid).response.header.status == 0);

  REQUIRE(f.run.fabric->remove_node(*f.run.fabric->find_guid(t.node(ca).guid)));
  REQUIRE(f.run.run_for(1s));
  auto got = sub.reports();
  REQUIRE(got.size() >= 1);
  for (const auto& r : got) {
    const mad::Notice n = notice_of(r);
    CHECK(n.is_trap(mad::trap::link_state_change));
    CHECK(n.issuer_lid.value() == leaf_lid);
    CHECK(mad::Gid::decode(n.issuer_gid) == mad::Gid(kPrefix, leaf_port.value()));
  }
}

TEST_CASE("SA: InformInfoRecords by mask, bad InformInfo requests, subscriptions back from the store") {
  Fixture f;
  TempDb db;
  const auto& t = f.run.topo();
  const mad::Lid a = t.port(t.cas()[0], mad::PortNum(1)).lid, b = t.port(t.cas()[1], mad::PortNum(1)).lid;
  auto st = sm::store::Store::open({.path = db.path()});
  REQUIRE(st);
  sm::sa::Subscriptions subs;
  subs.on_change = [&](sm::store::SaObject o) { (*st)->note_sa_object(std::move(o)); };
  sm::sa::Handler* hs[] = {&subs};
  mad::InformInfo i = all_traps();
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(i)), a).response.header.status == 0);
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(i)), a).response.header.status == 0);
  CHECK(subs.size() == 1);  // the same subscription twice is one
  i.trap_or_device = 64;
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(i)), a).response.header.status == 0);
  REQUIRE(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(i)), b).response.header.status == 0);

  auto all = records<mad::InformInfoRecord>(ask(f.index.get(), hs, request(m::get_table, at::inform_info_record, 0)));
  CHECK(all.size() == 3);
  mad::InformInfoRecord q;
  q.subscriber_gid = mad::Gid(kPrefix, t.port(t.cas()[0], mad::PortNum(1)).guid.value());
  auto mine = records<mad::InformInfoRecord>(ask(f.index.get(), hs, request(m::get_table, at::inform_info_record, 1, bytes(q))));
  REQUIRE(mine.size() == 2);
  CHECK(mine[0].enumeration != mine[1].enumeration);
  q.enumeration = mine[1].enumeration;
  auto one = ask(f.index.get(), hs, request(m::get, at::inform_info_record, 0b11, bytes(q)));
  REQUIRE(one.response.header.status == 0);
  CHECK(records<mad::InformInfoRecord>(one)[0] == mine[1]);

  // Bad: Get of InformInfo, unknown mask bits, LID range backwards, QPN 0, a requester with no
  // port, unsubscribing what was never subscribed, Delete of a record.
  CHECK(ask(f.index.get(), hs, request(m::get, at::inform_info, 0, bytes(i)), a).response.header.status ==
        mad::status::unsupported_method_attr);
  CHECK(ask(f.index.get(), hs, request(m::get_table, at::inform_info_record, 1u << 9)).response.header.status ==
        mad::sa_status::req_invalid);
  mad::InformInfo bad = all_traps();
  bad.lid_begin = mad::Lid(10);
  bad.lid_end = mad::Lid(5);
  CHECK(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(bad)), a).response.header.status ==
        mad::sa_status::req_invalid);
  bad = all_traps();
  bad.qpn = 0;
  CHECK(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(bad)), a).response.header.status ==
        mad::sa_status::req_invalid);
  CHECK(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(all_traps())), mad::Lid(0xBFFF))
            .response.header.status == mad::sa_status::req_invalid);
  bad = all_traps();
  bad.trap_or_device = 130;
  bad.subscribe = false;
  CHECK(ask(f.index.get(), hs, request(m::set, at::inform_info, 0, bytes(bad)), a).response.header.status ==
        mad::sa_status::req_invalid);
  CHECK(ask(f.index.get(), hs, request(m::del, at::inform_info_record, 0)).response.header.status ==
        mad::status::unsupported_method_attr);
  CHECK(subs.size() == 3);

  // A restart: the same three records come back from the store.
  REQUIRE((*st)->flush_events());
  st->reset();
  auto again = sm::store::Store::open({.path = db.path()});
  REQUIRE(again);
  sm::sa::Subscriptions back;
  CHECK(back.load(*(*again)->load_sa_objects()) == 3);
  sm::sa::Handler* hs2[] = {&back};
  CHECK(records<mad::InformInfoRecord>(ask(f.index.get(), hs2, request(m::get_table, at::inform_info_record, 0))) == all);
}
