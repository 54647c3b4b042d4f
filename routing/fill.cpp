#include "routing/fill.h"

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>
#include <cassert>
#include <string_view>
#include <unordered_map>

#include "routing/parallel.h"

namespace routing {

namespace {

// One switch's port counters and the choice among candidates.
class Chooser {
 public:
  Chooser(const FabricView& fv, SwIdx s, const PortWeights* w)
      : fv_(fv), s_(s), load_(static_cast<size_t>(fv.port_count(s)) + 1, 0) {
    if (w != nullptr && !w->empty()) {
      weight_.resize(load_.size());
      for (size_t p = 0; p < load_.size(); ++p) weight_[p] = w->at(fv, s, static_cast<uint8_t>(p));
    }
  }

  void forget_run() { run_cand_ = {}; }

  // A new destination port begins: forget the ports its previous LIDs took.
  void new_port() {
    if (any_used_) used_.reset();
    any_used_ = false;
  }

  // The least loaded candidate (toward `toward` only, when given and possible), preferring
  // ports this destination port's other LIDs do not use yet; ties to the lowest port.
  // `spread`: the destination port has other LIDs (LMC > 0) to keep apart.
  uint8_t pick(std::span<const uint8_t> cand, SwIdx toward, bool spread) {
    uint8_t best = kNoRoute;
    if (toward == kNoSw && weight_.empty() && !any_used_) {
      best = pick_fast(cand);
    } else {
      run_cand_ = {};  // loads change outside the run's mask
      best = pick_general(cand, toward);
      if (best == kNoRoute) best = pick_general(cand, kNoSw);
      ++load_[best];
    }
    if (spread) {
      used_.set(best);
      any_used_ = true;
    }
    return best;
  }

  // An entry the engine chose: count it. The run survives (ftree's presets come between the
  // picks of a run): a port outside the run's list changes none of its loads, and one at the
  // least load leaves the mask, which is all a fresh refill() would do.
  void keep(uint8_t port, bool spread) {
    if (!run_cand_.empty()) {
      const auto it = std::find(run_cand_.begin(), run_cand_.end(), port);
      if (it != run_cand_.end()) {
        const size_t i = static_cast<size_t>(it - run_cand_.begin());
        run_mask_[i / 64] &= ~(uint64_t{1} << (i % 64));
        if (run_mask_[0] == 0 && run_mask_[1] == 0 && run_mask_[2] == 0 && run_mask_[3] == 0)
          run_cand_ = {};
      }
    }
    ++load_[port];
    if (spread) {
      used_.set(port);
      any_used_ = true;
    }
  }

  // The common case: runs of LIDs with one candidate list (a leaf's CAs have consecutive LIDs;
  // CandidateLists shares equal lists). For the run, keep the list's least load and a bit
  // mask of the candidates at it: each pick takes the lowest such candidate in O(1), and only
  // when the mask empties does a scan find the next level. On the radix-54 3-level tree
  // (39,366 CAs, 27 candidates for most entries) this cut minhop's fill from about 4.7
  // CPU-seconds (a scan of the candidates per LID) to about 1.
  uint8_t pick_fast(std::span<const uint8_t> cand) {
    if (cand.data() != run_cand_.data() || cand.size() != run_cand_.size()) {
      run_cand_ = cand;
      refill();
    }
    size_t word = 0;
    while (run_mask_[word] == 0) ++word;
    const size_t pos = word * 64 + static_cast<size_t>(std::countr_zero(run_mask_[word]));
    run_mask_[word] &= run_mask_[word] - 1;
    const uint8_t best = run_cand_[pos];
    ++load_[best];
    if (run_mask_[0] == 0 && run_mask_[1] == 0 && run_mask_[2] == 0 && run_mask_[3] == 0) refill();
    return best;
  }
  // The candidates at the least load, as a mask over positions in the candidate list.
  void refill() {
    uint32_t least = UINT32_MAX;
    for (uint8_t p : run_cand_) least = std::min(least, load_[p]);
    run_mask_ = {};
    for (size_t i = 0; i < run_cand_.size(); ++i)
      if (load_[run_cand_[i]] == least) run_mask_[i / 64] |= uint64_t{1} << (i % 64);
  }

  uint8_t pick_general(std::span<const uint8_t> cand, SwIdx toward) const {
    uint8_t best = kNoRoute;
    bool best_used = true;
    uint64_t best_cost = UINT64_MAX;
    for (uint8_t p : cand) {
      if (toward != kNoSw && fv_.peer(s_, p) != toward) continue;
      const bool u = any_used_ && used_.test(p);
      const uint64_t cost = weight_.empty() ? load_[p] : (uint64_t{load_[p]} + 1) * weight_[p];
      if (best == kNoRoute || (!u && best_used) || (u == best_used && cost < best_cost)) {
        best = p;
        best_used = u;
        best_cost = cost;
      }
    }
    return best;
  }

  const FabricView& fv_;
  SwIdx s_;
  std::vector<uint32_t> load_;
  std::vector<uint32_t> weight_;
  std::bitset<256> used_;
  bool any_used_ = false;
  std::span<const uint8_t> run_cand_;
  std::array<uint64_t, 4> run_mask_{};
};

// Candidate sets of one switch as adaptive-routing groups (group 0 = none).
void record_groups(const FabricView& fv, SwIdx s, const CandidateLists& cl, RoutingTables& tables) {
  const size_t n = fv.switch_count();
  std::unordered_map<std::string_view, uint16_t> ids;
  std::vector<std::vector<uint8_t>> groups{{}};
  std::vector<uint16_t> group_of_sw(n, 0);
  for (SwIdx t = 0; t < n; ++t) {
    const auto c = cl.of(t);
    if (c.empty()) continue;
    const std::string_view key(reinterpret_cast<const char*>(c.data()), c.size());
    auto [it, fresh] = ids.emplace(key, static_cast<uint16_t>(groups.size()));
    if (fresh) groups.emplace_back(c.begin(), c.end());
    group_of_sw[t] = it->second;
  }
  std::vector<uint16_t> group_of_lid(static_cast<size_t>(tables.max_lid().value()) + 1, 0);
  for (const Dest& d : fv.dests())
    if (d.sw != s && d.lid <= tables.max_lid()) group_of_lid[d.lid.value()] = group_of_sw[d.sw];
  tables.set_alternative_groups(fv.node_of(s), groups, std::move(group_of_lid));
}

}  // namespace

void fill_tables(const FabricView& fv, const CandidateFn& candidates, const FillOptions& opts,
                 RoutingTables& tables) {
  const size_t n = fv.switch_count();
  const auto dests = fv.dests();
  std::vector<CandidateLists> scratch(worker_count(n, opts.threads));
  std::vector<std::vector<UnroutedPair>> unrouted(n);
  std::vector<uint64_t> fallbacks(n, 0);
  // Per worker: the last fallback list picked from, and the next one. Consecutive equal
  // lists (a top switch toward the other columns' tops) keep one buffer, so the fill's run
  // goes on over them instead of starting again per destination (the picks are the same).
  std::vector<std::vector<uint8_t>> fb(scratch.size()), fb_next(scratch.size());
  if (opts.alternatives) tables.reserve_alternatives();

  parallel_for(n, opts.threads, [&](size_t si, unsigned w) {
    const SwIdx s = static_cast<SwIdx>(si);
    CandidateLists& cl = scratch[w];
    candidates(s, cl);
    const fabric::NodeId node = fv.node_of(s);
    const auto lft = tables.lft(node);
    Chooser choose(fv, s, opts.weights);
    bool parallel = false;  // two cables to one neighbour: a preset names a choice among them
    const auto arcs = fv.arcs(s);
    for (size_t i = 0; i < arcs.size() && !parallel; ++i)
      for (size_t j = i + 1; j < arcs.size() && !parallel; ++j) parallel = arcs[i].to == arcs[j].to;
    const bool no_cas = fv.endpoints_at(s).empty();
    for (const Dest& d : dests) {
      if (d.lid > tables.max_lid()) continue;
      uint8_t& entry = lft[d.lid.value()];
      if (d.path == 0) choose.new_port();
      if (d.sw == s) {
        entry = d.out;
        continue;
      }
      const auto cand = cl.of(d.sw);
      // Outside the rule only where no CA traffic can arrive (see SwitchFallback).
      if (cand.empty() && opts.fallback && (d.out == 0 || no_cas) &&
          opts.fallback->candidates(fv, s, d.sw, fb_next[w])) {
        if (fb_next[w] != fb[w]) {
          fb[w].swap(fb_next[w]);
          choose.forget_run();  // a buffer's pointer names no one list
        }
        entry = choose.pick(fb[w], kNoSw, d.lmc > 0);
        if (d.path == 0) ++fallbacks[s];
        continue;
      }
      if (cand.empty()) {
        entry = kNoRoute;
        if (d.path == 0) unrouted[s].push_back(UnroutedPair{node, d.node, d.node_port, d.lid});
        continue;
      }
      const bool preset = opts.presets && entry != kNoRoute;
      // Engines preset only legal, shortest choices.
      assert(!preset || std::find(cand.begin(), cand.end(), entry) != cand.end());
      if (preset && !parallel) {
        choose.keep(entry, d.lmc > 0);  // the only cable toward the preferred neighbour
        continue;
      }
      entry = choose.pick(cand, preset ? fv.peer(s, entry) : kNoSw, d.lmc > 0);
    }
    if (opts.alternatives) record_groups(fv, s, cl, tables);
  }, 1);

  RoutingDiagnostics& diag = tables.diagnostics();
  const fabric::Topology& topo = fv.topo();
  for (SwIdx s = 0; s < n; ++s) {
    diag.fallback_pairs += fallbacks[s];
    const uint64_t sources = fv.endpoints_at(s).size();
    for (const UnroutedPair& p : unrouted[s]) {
      ++diag.unrouted_pairs;
      if (!topo.node(p.to).is_switch()) diag.unrouted_ca_pairs += sources;
      if (diag.unrouted.size() < RoutingDiagnostics::kMaxListed) diag.unrouted.push_back(p);
    }
  }
}

}  // namespace routing
