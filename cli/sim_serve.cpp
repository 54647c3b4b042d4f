#include "cli/sim_serve.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cli/web_server.h"
#include "metrics/sm_metrics.h"
#include "sim/metrics.h"

namespace cli {

namespace {

std::atomic<int> g_serve_stop{0};
void on_serve_signal(int s) { g_serve_stop.store(s); }

// A figure of 0 for every port of the topology (by its port index).
std::shared_ptr<web::LinkFigures> no_figures(const fabric::Topology& t, std::string name) {
  auto f = std::make_shared<web::LinkFigures>();
  f->name = std::move(name);
  size_t ports = 0;
  for (const auto& n : t.nodes()) ports = std::max<size_t>(ports, n.first_port + n.num_ports + 1);
  f->value.assign(ports, 0);
  return f;
}

// The all-to-all routes over each directed link of the simulated switches' own LFTs, by the
// SM topology's port index (the simulator numbers its nodes its own way: GUIDs join them).
std::shared_ptr<const web::LinkFigures> route_loads(const sim::SimFabric& f, const sm::Subnet& s) {
  auto loads = no_figures(*s.topology, "all-to-all routes");
  const auto& t = *s.topology;
  const auto m = sim::measure_routing(f, sim::MetricsOptions{.keep_link_loads = true});
  for (const sim::LinkLoad& l : m.links) {
    const auto id = t.find(f.node(l.from).guid);
    if (!id) continue;
    const double v = static_cast<double>(l.routes);
    loads->value[t.node(*id).first_port + l.from_port] = v;
    loads->max = std::max(loads->max, v);
  }
  return loads;
}

// The traffic's utilisation of each channel, by its sending port.
std::shared_ptr<const web::LinkFigures> traffic_loads(const sim::SimFabric& f, const sm::Subnet& s, const TrafficOutcome& t) {
  auto loads = no_figures(*s.topology, "utilisation by " + t.pattern + (t.adaptive ? " (adaptive)" : ""));
  const auto& topo = *s.topology;
  for (const auto& p : t.ports) {
    const auto id = topo.find(f.node(p.node).guid);
    if (!id) continue;
    loads->value[topo.node(*id).first_port + p.port] = p.utilisation;
    loads->max = std::max(loads->max, p.utilisation);
  }
  return loads;
}

}  // namespace

bool serve_sim(const service::Service& svc, const sim::SimFabric& f, const SimOutcome& run, const SimServeOptions& o) {
  auto subnet = svc.subnet();
  metrics::SmCollector collector;
  if (subnet) collector.on_sweep(*subnet);
  if (auto perf = svc.perf()) collector.on_perf(*perf);
  const auto& e = svc.recent_events();
  web::Published pub{.subnet = subnet,
                 .perf = svc.perf(),
                 .sm = std::make_shared<const metrics::SmFigures>(collector.figures(&svc)),
                 .events = std::make_shared<const std::vector<sm::store::Event>>(e.begin(), e.end()),
                 .loads = !subnet || !subnet->topology ? nullptr
                          : run.traffic             ? traffic_loads(f, *subnet, *run.traffic)
                                                    : route_loads(f, *subnet),
                 .source = "fabricsm sim"};
  // Everything is ready before the address answers: a first request sees the fabric.
  auto w = WebServer::start({.at = o.at, .token = o.token});
  if (!w) {
    fmt::print(stderr, "fabricsm sim: {}\n", w.error().message);
    return false;
  }
  (*w)->publish(std::move(pub));
  struct sigaction sa {};
  sa.sa_handler = on_serve_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  fmt::print(stderr, "fabricsm sim: web view at http://{}/ (SIGINT or SIGTERM stops)\n", o.at.str());
  while (g_serve_stop.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return true;
}

}  // namespace cli
