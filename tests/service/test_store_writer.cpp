// The store's writer (service/store_writer.h): jobs run in order on a thread of their own
// while the owner goes on, their results come back on the owner's thread, reads wait for
// the writes before them; and the service stack on a simulated fabric with its store on
// that thread: what a daemon commits is in the database once flushed.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "cli/drill.h"
#include "service/store_writer.h"
#include "sim/netfile.h"
#include "tests/temp_dir.h"

using namespace std::chrono_literals;
using service::StoreWriter;

namespace {

std::unique_ptr<sm::store::Store> open_store(const testutil::TempDir& dir) {
  auto s = sm::store::Store::open({.path = dir.file("fsm.db")});
  REQUIRE(s);
  return std::move(*s);
}

}  // namespace

TEST_CASE("threaded: a slow job does not hold the owner; results come back in order on the owner's thread") {
  testutil::TempDir dir;
  StoreWriter w(open_store(dir), true);
  REQUIRE(w.threaded());
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  const auto owner = std::this_thread::get_id();
  std::vector<int> order;
  std::atomic<bool> off_thread{true};
  w.post([&, go](sm::store::Store&) -> StoreWriter::Done {
    if (std::this_thread::get_id() == owner) off_thread = false;
    go.wait();  // a commit that takes its time
    return [&] {
      CHECK(std::this_thread::get_id() == owner);
      order.push_back(1);
    };
  });
  w.post([&](sm::store::Store&) -> StoreWriter::Done { return [&] { order.push_back(2); }; });
  // The owner is not held: it posts, delivers (nothing yet) and goes on.
  CHECK(w.backlog() == 2);
  CHECK(w.deliver() == 0);
  release.set_value();
  w.drain();
  CHECK(w.backlog() == 0);
  CHECK(off_thread);
  CHECK(w.deliver() == 2);
  CHECK(order == std::vector<int>{1, 2});
}

TEST_CASE("threaded: now() runs after every job posted before it, on the caller's thread") {
  testutil::TempDir dir;
  StoreWriter w(open_store(dir), true);
  w.post([](sm::store::Store& st) -> StoreWriter::Done {
    std::this_thread::sleep_for(50ms);
    st.note_sa_object({.kind = "service", .key = {7}, .record = {1, 2, 3}});
    (void)st.flush_events();
    return nullptr;
  });
  auto objs = w.now([](sm::store::Store& st) { return st.load_sa_objects(); });
  REQUIRE(objs);
  REQUIRE(objs->size() == 1);
  CHECK((*objs)[0].key == std::vector<uint8_t>{7});
}

TEST_CASE("inline: each job and its result run at once") {
  testutil::TempDir dir;
  StoreWriter w(open_store(dir), false);
  CHECK_FALSE(w.threaded());
  int done = 0;
  w.post([&](sm::store::Store&) -> StoreWriter::Done { return [&] { ++done; }; });
  CHECK(done == 1);
  CHECK(w.deliver() == 0);
}

TEST_CASE("the writer's destructor still runs what was posted") {
  testutil::TempDir dir;
  std::atomic<int> ran{0};
  {
    StoreWriter w(open_store(dir), true);
    for (int i = 0; i < 3; ++i)
      w.post([&](sm::store::Store&) -> StoreWriter::Done {
        std::this_thread::sleep_for(10ms);
        ++ran;
        return nullptr;
      });
  }
  CHECK(ran == 3);
}

TEST_CASE("the service with its store on a thread: sweeps and counter sweeps are in the database once flushed") {
  testutil::TempDir dir;
  auto spec = sim::load_netfile(std::string(FABRICSM_SHARED_TOPOLOGIES) + "/ft2-r8.net");
  REQUIRE(spec);
  sm::perfmgr::Config perf;
  perf.enabled = true;
  perf.sweep_time = 5s;
  cli::DrillSm sm{.node = "H00000", .cfg = {}, .db_path = dir.file("fsm.db"), .perf = perf, .store_thread = true};
  auto c = cli::Cluster::create(*spec, {}, {sm}, sm::Level::info);
  REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
  auto& cluster = **c;
  REQUIRE(cluster.start(0));
  service::Service& svc = cluster.service(0);
  REQUIRE(cluster.run_until([&] { return svc.perf() && svc.perf()->sweeps >= 2; }, 60s));
  svc.flush();
  CHECK(svc.store_status().commits >= 1);
  CHECK(svc.store_status().error.empty());
  CHECK(svc.store_status().last_counters_ms > 0);
  auto ro = sm::store::Store::open({.path = dir.file("fsm.db"), .read_only = true});
  REQUIRE(ro);
  auto lids = (*ro)->load_lids();
  REQUIRE(lids);
  CHECK(lids->size() == 44);  // 32 CAs and 12 switches
  auto ports = (*ro)->load_port_counters();
  REQUIRE(ports);
  CHECK(ports->size() == 128);
}
