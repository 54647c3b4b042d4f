#include "sim/traffic/traffic.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sim::traffic {

void route_flows(const Net& net, std::span<const Flow> flows, const Placement& how, Routes& out) {
  out = Routes{};
  out.off.reserve(flows.size() + 1);
  out.path.reserve(flows.size() * 6);
  const uint64_t salt = how.seed * 0x9E3779B97F4A7C15ULL;
  if (!net.has_adaptive()) {  // the LFTs alone: one walk per flow
    for (uint32_t f = 0; f < flows.size(); ++f) {
      if (!net.route(flows[f].src, flows[f].dst, out.path)) ++out.unrouted;
      out.off.push_back(static_cast<uint32_t>(out.path.size()));
      out.flow.push_back(f);
      out.weight.push_back(flows[f].weight);
    }
    return;
  }
  const unsigned parts = std::max(1u, how.split);
  std::vector<double> load(net.channels().size(), 0.0);  // the weight placed on each channel
  for (uint32_t f = 0; f < flows.size(); ++f) {
    const double w = flows[f].weight / parts;
    for (unsigned j = 0; j < parts; ++j) {
      const size_t mark = out.path.size();
      const bool ok = net.route(flows[f].src, flows[f].dst, out.path, load, salt + uint64_t{f} * parts + j, how.choice, how.fanout);
      for (size_t k = mark; k < out.path.size(); ++k) load[out.path[k]] += w;
      out.off.push_back(static_cast<uint32_t>(out.path.size()));
      out.flow.push_back(f);
      out.weight.push_back(ok ? w : flows[f].weight);
      if (!ok) {  // no way at all: one empty route
        ++out.unrouted;
        break;
      }
    }
  }
  Routes next;
  for (unsigned pass = 1; pass < how.passes; ++pass) {
    next.off.assign(1, 0);
    next.path.clear();
    for (size_t r = 0; r < out.flow.size(); ++r) {
      const Flow& fl = flows[out.flow[r]];
      const double w = out.weight[r];
      const size_t mark = next.path.size();
      if (out.off[r + 1] > out.off[r]) {
        for (uint32_t k = out.off[r]; k < out.off[r + 1]; ++k) load[out.path[k]] -= w;
        const uint64_t part = r;  // routes of a flow are consecutive: a distinct salt each
        if (!net.route(fl.src, fl.dst, next.path, load, salt + part, how.choice, how.fanout))  // cannot fail where it did not
          next.path.insert(next.path.end(), out.path.begin() + out.off[r], out.path.begin() + out.off[r + 1]);
        for (size_t k = mark; k < next.path.size(); ++k) load[next.path[k]] += w;
      }
      next.off.push_back(static_cast<uint32_t>(next.path.size()));
    }
    std::swap(out.off, next.off);
    std::swap(out.path, next.path);
  }
}

namespace {

std::vector<double> capacities(const Net& net) {
  std::vector<double> c;
  c.reserve(net.channels().size());
  for (const Channel& ch : net.channels()) c.push_back(ch.gbps);
  return c;
}

struct PhaseOutcome {
  double seconds = 0;
  bool exact = true;
};

// Time for every route to send `bits` x its weight, re-solving as routes finish.
PhaseOutcome complete(const Routes& r, std::span<const double> cap, const Allocation& first, double bits,
                      size_t max_rounds, SolverScratch& scratch) {
  PhaseOutcome out;
  std::vector<uint32_t> active;
  std::vector<double> left, rate;
  for (uint32_t k = 0; k < r.flow.size(); ++k)
    if (r.off[k + 1] > r.off[k]) {
      active.push_back(k);
      left.push_back(bits * r.weight[k]);
      rate.push_back(first.rate[k]);
    }
  std::vector<uint32_t> off, path;
  std::vector<double> weight;
  Allocation a;
  for (size_t round = 0; !active.empty(); ++round) {
    if (round > 0) {  // re-solve over the routes still sending
      off.assign(1, 0);
      path.clear();
      weight.clear();
      for (uint32_t k : active) {
        path.insert(path.end(), r.path.begin() + r.off[k], r.path.begin() + r.off[k + 1]);
        off.push_back(static_cast<uint32_t>(path.size()));
        weight.push_back(r.weight[k]);
      }
      solve_max_min(Problem{cap, off, path, weight}, a, scratch);
      rate = a.rate;
    }
    double dt = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < active.size(); ++i)
      if (rate[i] > 0) dt = std::min(dt, left[i] / rate[i]);
    if (!std::isfinite(dt)) return PhaseOutcome{std::numeric_limits<double>::infinity(), out.exact};
    if (round + 1 >= max_rounds) {  // the rest at the rates they have now
      double last = 0;
      for (size_t i = 0; i < active.size(); ++i) last = std::max(last, rate[i] > 0 ? left[i] / rate[i] : 0.0);
      out.seconds += last;
      out.exact = false;
      break;
    }
    out.seconds += dt;
    size_t keep = 0;
    for (size_t i = 0; i < active.size(); ++i) {
      left[i] -= rate[i] * dt;
      if (left[i] > bits * r.weight[active[i]] * 1e-9) {
        active[keep] = active[i];
        left[keep] = left[i];
        ++keep;
      }
    }
    active.resize(keep);
    left.resize(keep);
  }
  return out;
}

}  // namespace

void solve_routes(const Net& net, const Routes& r, Allocation& out, SolverScratch& scratch) {
  const std::vector<double> cap = capacities(net);
  solve_max_min(Problem{cap, r.off, r.path, r.weight}, out, scratch);
}

std::vector<double> flow_rates(const Routes& r, const Allocation& a, size_t flows) {
  std::vector<double> rate(flows, 0.0);
  for (size_t k = 0; k < r.flow.size(); ++k) rate[r.flow[k]] += a.rate[k];
  return rate;
}

TrafficResult run_phases(const Net& net, std::span<const Phase> phases, const TrafficOptions& opts) {
  TrafficResult res;
  res.phases = phases.size();
  const std::vector<double> cap = capacities(net);
  res.utilisation.assign(cap.size(), 0.0);
  std::vector<double> busy(cap.size(), 0.0);  // Gb/s x seconds per channel
  std::vector<double> want(cap.size(), 0.0);  // the same of the demand
  SolverScratch scratch;
  Routes routes;
  Allocation a;
  double total_time = 0, rate_time = 0, rel_sum = 0;
  size_t routed = 0;
  res.min_rate = std::numeric_limits<double>::infinity();
  for (const Phase& ph : phases) {
    route_flows(net, ph.flows, opts.placement, routes);
    solve_routes(net, routes, a, scratch);
    const std::vector<double> rates = flow_rates(routes, a, ph.flows.size());
    std::vector<uint8_t> dead(ph.flows.size(), 0);
    for (size_t k = 0; k < routes.flow.size(); ++k) dead[routes.flow[k]] |= routes.off[k + 1] == routes.off[k];
    res.flows += ph.flows.size();
    res.unrouted += routes.unrouted;
    double sum = 0;
    for (size_t f = 0; f < ph.flows.size(); ++f) {
      if (dead[f]) continue;
      sum += rates[f];
      const double rel = rates[f] / cap[net.cas()[ph.flows[f].src].up];
      rel_sum += rel;
      res.min_rate = std::min(res.min_rate, rel);
      ++routed;
    }
    const double bits = opts.message_bytes * 8 * ph.bytes;
    const PhaseOutcome done = complete(routes, cap, a, bits, opts.max_rounds, scratch);
    // Gb/s: a phase of bits b at rate r Gb/s takes b / (r * 1e9) s.
    const double seconds = done.seconds * 1e-9 * ph.repeat;
    res.completion_exact = res.completion_exact && done.exact;
    res.completion_s += seconds;
    const double w = phases.size() == 1 ? 1.0 : seconds;
    for (size_t c = 0; c < cap.size(); ++c) busy[c] += a.load[c] * w;
    for (size_t k = 0; k < routes.flow.size(); ++k) {
      const Flow& fl = ph.flows[routes.flow[k]];
      const double offered = cap[net.cas()[fl.src].up] * routes.weight[k] / fl.weight;  // its part of the line rate
      for (uint32_t j = routes.off[k]; j < routes.off[k + 1]; ++j) want[routes.path[j]] += offered * w;
    }
    rate_time += sum * w;
    total_time += w;
    if (phases.size() == 1) res.rate = rates;
  }
  if (routed == 0) res.min_rate = 0;
  res.mean_rate = routed ? rel_sum / static_cast<double>(routed) : 0.0;
  if (total_time > 0 && std::isfinite(total_time)) {
    res.aggregate_gbps = rate_time / total_time;
    res.demand.assign(cap.size(), 0.0);
    for (size_t c = 0; c < cap.size(); ++c) {
      res.demand[c] = want[c] / total_time;
      res.utilisation[c] = busy[c] / total_time / cap[c];
      res.max_utilisation = std::max(res.max_utilisation, res.utilisation[c]);
    }
  }
  return res;
}

TrafficResult run_flows(const Net& net, std::span<const Flow> flows, const TrafficOptions& opts) {
  const Phase one{std::vector<Flow>(flows.begin(), flows.end()), 1, 1};
  return run_phases(net, std::span<const Phase>(&one, 1), opts);
}

std::vector<PortRate> port_rates(const Net& net, const TrafficResult& r) {
  std::vector<PortRate> out;
  for (ChannelId c = 0; c < r.utilisation.size(); ++c) {
    const double u = r.utilisation[c];
    if (!(u > 0)) continue;
    const Channel& ch = net.channels()[c];
    const double d = c < r.demand.size() ? r.demand[c] : 0.0;
    const double wait = u >= 0.999 && d > ch.gbps ? 1.0 - ch.gbps / d : 0.0;
    out.push_back(PortRate{ch.from, ch.from_port, u * ch.gbps, 0.0, wait});
    out.push_back(PortRate{ch.to, ch.to_port, 0.0, u * ch.gbps, 0.0});
  }
  return out;
}

std::vector<ChannelId> hottest(std::span<const double> utilisation, size_t n) {
  std::vector<ChannelId> ids(utilisation.size());
  for (ChannelId c = 0; c < ids.size(); ++c) ids[c] = c;
  n = std::min(n, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n), ids.end(), [&](ChannelId a, ChannelId b) {
    return utilisation[a] != utilisation[b] ? utilisation[a] > utilisation[b] : a < b;
  });
  ids.resize(n);
  return ids;
}

}  // namespace sim::traffic
