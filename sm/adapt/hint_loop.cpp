#include "sm/adapt/hint_loop.h"

#include <fmt/format.h>

#include <algorithm>

#include "fabric/data_rate.h"

namespace sm::adapt {

namespace {

using perfmgr::Counter;
using perfmgr::index;

std::string end_text(const perfmgr::PortEnd& e) { return fmt::format("\"{}\"[{}]", e.description, e.port); }

std::string percent(double u) { return fmt::format("{:.0f}%", u * 100); }

constexpr double kGain = 0.02;  // what a round must add to the CAs' throughput

std::string rate_text(double bytes_per_s) { return fmt::format("{:.1f} Gb/s", bytes_per_s * 8 / 1e9); }

}  // namespace

void HintLoop::on_sweep(const Subnet& s) {
  if (s.sweep.program.lft_blocks_written > 0) skip_ = 1;  // the next rates straddle old and new routes
  if (waiting_ && s.sweep.up && s.configured() && s.sweep.hints_generation == generation_) waiting_ = false;
}

std::optional<Decision> HintLoop::release(double injected, mad::Nanos now, std::string why) {
  Decision d;
  d.kind = Decision::Kind::release;
  d.injected = injected;
  d.peak_injected = peak_injected_;
  d.why = std::move(why);
  relieved_.clear();
  frozen_ = false;
  judged_ = true;
  peak_injected_ = 0;
  quiet_ = 0;
  d.round = ++generation_;
  waiting_ = true;
  last_round_ = now;
  return d;
}

std::optional<Decision> HintLoop::on_snapshot(const perfmgr::Snapshot& snap, const Subnet& subnet, mad::Nanos now) {
  if (waiting_ || !subnet.configured() || !subnet.topology) return std::nullopt;
  const bool may_round = !last_round_ || now - *last_round_ >= cfg_.min_interval;
  if (!cfg_.enabled)  // turned off (SIGHUP): the moves go back
    return relieved_.empty() ? std::nullopt : release(0, now, "traffic_hints is off");
  if (subnet.sweep.engine != "adaptive-hint") {
    if (relieved_.empty() || !may_round) return std::nullopt;
    return release(0, now, fmt::format("the SM routes with {}, not adaptive-hint", subnet.sweep.engine));
  }
  if (skip_ > 0) {
    --skip_;
    return std::nullopt;
  }
  const fabric::Topology& topo = *subnet.topology;
  double injected = 0;  // what CAs send, as their switch ports receive it (CA reads may be off)
  double sum = 0, max_u = 0;
  size_t rated = 0, loaded = 0;
  routing::TrafficLoad load;
  std::vector<HotChannel> channels;
  for (const perfmgr::PortSample& p : snap.ports) {
    if (!p.has_rates || !p.local.is_switch || !p.remote) continue;
    ++rated;
    const double sent = p.rates[index(Counter::xmit_data)];
    if (!p.remote->is_switch) {
      injected += p.rates[index(Counter::rcv_data)];
      if (sent > 0) load.destinations.push_back({p.remote->node, p.remote->port, sent});
      continue;
    }
    const auto id = topo.find(p.local.node);
    if (!id || p.local.port == 0 || p.local.port > topo.node(*id).num_ports) continue;
    const double cap = fabric::data_bytes_per_s(topo.port(*id, mad::PortNum(p.local.port)));
    if (cap <= 0) continue;
    const double u = sent / cap;
    if (u > 0) {
      sum += u;
      ++loaded;
      load.channels.push_back({p.local.node, p.local.port, sent});
    }
    max_u = std::max(max_u, u);
    channels.push_back(HotChannel{p.local, *p.remote, u, false});
  }
  if (rated == 0) return std::nullopt;
  const double mean = loaded ? sum / static_cast<double>(loaded) : 0;
  if (!relieved_.empty()) {
    peak_injected_ = std::max(peak_injected_, injected);
    if (injected < cfg_.release * peak_injected_) {
      if (++quiet_ >= 2 && may_round)
        return release(injected, now,
                       fmt::format("the traffic eased: the CAs send {}, below {} of {} when the first was moved",
                                   rate_text(injected), percent(cfg_.release), rate_text(peak_injected_)));
      return std::nullopt;
    }
    quiet_ = 0;
  }
  if (!judged_) {
    judged_ = true;
    if (injected < round_injected_ * (1 + kGain)) {
      frozen_ = true;
      Decision d;
      d.kind = Decision::Kind::stop;
      d.round = generation_;
      d.injected = injected;
      d.peak_injected = round_injected_;
      d.max_utilisation = max_u;
      d.why = fmt::format("the CAs send {} after it, {} before: no more rounds until the traffic changes",
                          rate_text(injected), rate_text(round_injected_));
      return d;
    }
  }
  if (frozen_) return std::nullopt;
  const double threshold = std::max(cfg_.hot, cfg_.skew * mean);
  Decision d;
  bool fresh_any = false;
  for (HotChannel& c : channels) {
    if (c.utilisation < threshold) continue;
    c.fresh = !relieved_.contains({c.from.node, c.from.port});
    fresh_any = fresh_any || c.fresh;
    d.hot.push_back(c);
  }
  if (!fresh_any || !may_round) return std::nullopt;
  std::stable_sort(d.hot.begin(), d.hot.end(),
                   [](const HotChannel& a, const HotChannel& b) { return a.utilisation > b.utilisation; });
  if (relieved_.empty()) peak_injected_ = injected;
  d.max_utilisation = max_u;
  d.mean_utilisation = mean;
  d.injected = injected;
  d.peak_injected = peak_injected_;
  std::string named;
  size_t fresh_n = 0;
  for (const HotChannel& c : d.hot) {
    relieved_.insert({c.from.node, c.from.port});
    for (const auto& l : load.channels)
      if (l.sw == c.from.node && l.port == c.from.port) load.hot.push_back(l);
    if (!c.fresh) continue;
    if (++fresh_n <= 3)
      named += fmt::format("{}{} -> {} {}", named.empty() ? "" : ", ", end_text(c.from), end_text(c.to),
                           percent(c.utilisation));
  }
  if (fresh_n > 3) named += fmt::format(" and {} more", fresh_n - 3);
  d.why = fmt::format("{} newly hot channel(s) at or above {} busy (the loaded channels' mean is {}): {}", fresh_n,
                      percent(threshold), percent(mean), named);
  d.load = std::move(load);
  round_injected_ = injected;
  judged_ = false;
  d.round = ++generation_;
  waiting_ = true;
  last_round_ = now;
  quiet_ = 0;
  return d;
}

}  // namespace sm::adapt
