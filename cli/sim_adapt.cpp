#include "cli/sim_adapt.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

namespace cli {

namespace {

AdaptRound round_of(const TrafficOutcome& t) {
  AdaptRound r;
  r.max_utilisation = t.result.max_utilisation;
  r.max_offered = t.max_offered;
  r.max_switch_utilisation = t.max_switch_utilisation;
  r.completion_s = t.result.completion_s;
  r.aggregate_gbps = t.result.aggregate_gbps;
  r.mean_rate = t.result.mean_rate;
  r.hottest = t.hottest;
  return r;
}

}  // namespace

mad::Result<AdaptOutcome> run_adapt_loop(service::Service& service, sim::SimFabric& f, sim::SimTransport& transport,
                                         const TrafficRunOptions& traffic, const TrafficOutcome& first,
                                         const AdaptOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const mad::Nanos v0 = transport.clock().now();
  AdaptOutcome out;
  out.rounds.push_back(round_of(first));
  const sm::SubnetManager& manager = service.manager();
  uint64_t seen = manager.subnet() ? manager.subnet()->sweep.hints_generation : 0;
  size_t counted = 0;  // counter sweeps, as the observer saw them
  auto previous = service.on_counters;
  service.on_counters = [&](const std::shared_ptr<const sm::perfmgr::Snapshot>& s) {
    ++counted;
    if (previous) previous(s);
  };
  size_t mark = 0;  // counter sweeps when the last round was in place
  while (true) {
    // Until a round's tables are in place, or the loop has been quiet long enough.
    auto loop = mad::run_loop(service, transport, [&] {
      if (manager.sweeping()) return false;
      const auto s = manager.subnet();
      if (s && s->sweep.up && s->sweep.hints_generation > seen) return true;
      return counted - mark >= o.quiet_sweeps || counted >= o.max_counter_sweeps;
    });
    if (!loop) {
      service.on_counters = previous;
      return std::unexpected(loop.error());
    }
    const auto s = manager.subnet();
    if (!s || !s->sweep.up || s->sweep.hints_generation <= seen) {
      out.converged = counted - mark >= o.quiet_sweeps;
      break;
    }
    if (out.rounds.size() > o.max_rounds) break;  // one round more than allowed: not converged
    seen = s->sweep.hints_generation;
    mark = counted;
    // The job's flows now take the new routes.
    auto t = run_traffic(f, s.get(), traffic);
    if (!t) {
      service.on_counters = previous;
      return std::unexpected(t.error());
    }
    AdaptRound r = round_of(*t);
    r.round = seen;
    r.sweep = s->sweep.number;
    r.hot = s->sweep.hinted_links;
    r.moved_destinations = s->sweep.moved_destinations;
    r.moved_entries = s->sweep.moved_entries;
    r.lft_blocks = s->sweep.program.lft_blocks_written;
    r.fabric_s = std::chrono::duration<double>(transport.clock().now() - v0).count();
    out.rounds.push_back(std::move(r));
  }
  service.on_counters = previous;
  out.quiet_sweeps = counted - mark;
  out.counter_sweeps = counted;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string text_adapt(const AdaptOutcome& a) {
  std::string s = "adapt       round  sweep  hot  moved  entries  blocks  switch util  offered  completion  busiest link\n";
  for (const AdaptRound& r : a.rounds) {
    const std::string hot = r.hottest.empty() ? "-"
                                              : fmt::format("\"{}\"[{}] -> \"{}\"[{}]", r.hottest.front().from,
                                                            r.hottest.front().from_port, r.hottest.front().to,
                                                            r.hottest.front().to_port);
    if (r.round == 0)
      s += fmt::format("            {:>5}  {:>5}  {:>3}  {:>5}  {:>7}  {:>6}  {:>10.1f}%  {:>6.2f}x  {:>10}  {}\n", 0, "-", "-", "-",
                       "-", "-", r.max_switch_utilisation * 100, r.max_offered, completion_text(r.completion_s), hot);
    else
      s += fmt::format("            {:>5}  {:>5}  {:>3}  {:>5}  {:>7}  {:>6}  {:>10.1f}%  {:>6.2f}x  {:>10}  {}\n", r.round, r.sweep,
                       r.hot, r.moved_destinations, r.moved_entries, r.lft_blocks, r.max_switch_utilisation * 100,
                       r.max_offered, completion_text(r.completion_s), hot);
  }
  const size_t rounds = a.rounds.size() - 1;
  s += fmt::format("            {} after {} round(s): {} counter sweep(s) in all, {} since the last round; {:.2f} s wall\n",
                   a.converged ? "converged" : "not converged", rounds, a.counter_sweeps, a.quiet_sweeps, a.wall_s);
  return s;
}

Json json_adapt(const AdaptOutcome& a) {
  Json rounds = Json::array();
  for (const AdaptRound& r : a.rounds) {
    Json hot = Json::array();
    for (const HotLink& h : r.hottest)
      hot.push_back(Json{{"from", h.from}, {"from_port", h.from_port}, {"to", h.to}, {"to_port", h.to_port},
                         {"utilisation", rounded(h.utilisation, 6)}});
    rounds.push_back(Json{{"round", r.round}, {"sweep", r.sweep}, {"hot_channels", r.hot},
                          {"moved_destinations", r.moved_destinations}, {"moved_entries", r.moved_entries},
                          {"lft_blocks", r.lft_blocks}, {"fabric_s", rounded(r.fabric_s, 3)},
                          {"max_utilisation", rounded(r.max_utilisation, 6)}, {"max_offered", rounded(r.max_offered, 6)},
                          {"max_switch_utilisation", rounded(r.max_switch_utilisation, 6)},
                          {"completion_s", std::isfinite(r.completion_s) ? Json(r.completion_s) : Json(nullptr)},
                          {"aggregate_gbps", rounded(r.aggregate_gbps, 3)}, {"mean_rate", rounded(r.mean_rate, 6)},
                          {"hottest", std::move(hot)}});
  }
  return Json{{"rounds", std::move(rounds)}, {"converged", a.converged}, {"quiet_sweeps", a.quiet_sweeps},
              {"counter_sweeps", a.counter_sweeps}, {"wall_s", rounded(a.wall_s, 3)}};
}

}  // namespace cli
