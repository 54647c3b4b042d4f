#include "routing/cdg_order.h"

#include <algorithm>
#include <utility>

namespace routing {

ChannelOrder::ChannelOrder(const FabricView& fv) : fv_(&fv) {
  const size_t n = fv.arc_count();
  ArcEnds ends = arc_ends(fv);
  rev_ = std::move(ends.rev);
  head_ = std::move(ends.head);
  tail_ = std::move(ends.tail);
  dep_off_.resize(n + 1);
  uint32_t off = 0;
  for (uint32_t a = 0; a < n; ++a) {
    dep_off_[a] = off;
    off += static_cast<uint32_t>(fv.arcs(head_[a]).size());
  }
  dep_off_[n] = off;
  flag_.assign(off, 0);
  ref_.assign(off, 0);
  refused_.assign(off, 0);
  ord_.resize(n);
  at_.resize(n);
  for (uint32_t a = 0; a < n; ++a) ord_[a] = at_[a] = a;
  mark_.assign(n, 0);
}

void ChannelOrder::set_order(std::span<const uint32_t> channels) {
  for (uint32_t i = 0; i < channels.size(); ++i) ord_[at_[i] = channels[i]] = i;
}

template <class Fn>
void ChannelOrder::successors(uint32_t c, Fn&& fn) const {
  const SwIdx v = head_[c];
  const uint32_t base = fv_->arc_base(v), deg = static_cast<uint32_t>(fv_->arcs(v).size());
  for (uint32_t k = 0; k < deg; ++k)
    if (flag_[dep_off_[c] + k]) fn(base + k);
}

template <class Fn>
void ChannelOrder::predecessors(uint32_t d, Fn&& fn) const {
  // The channels entering tail(d) are the reverses of the arcs leaving it.
  const SwIdx v = tail_[d];
  const uint32_t base = fv_->arc_base(v), deg = static_cast<uint32_t>(fv_->arcs(v).size());
  for (uint32_t k = 0; k < deg; ++k) {
    const uint32_t c = rev_[base + k];
    if (flag_[dep_off_[c] + (d - base)]) fn(c);
  }
}

// Channels reachable from `from` at positions up to `upper`, into fwd_; true when `target` is
// among them (the new dependency would close a cycle).
bool ChannelOrder::forward(uint32_t from, uint32_t upper, uint32_t target) {
  stack_.assign(1, from);
  mark_[from] = stamp_;
  while (!stack_.empty()) {
    const uint32_t c = stack_.back();
    stack_.pop_back();
    fwd_.push_back(c);
    bool cycle = false;
    successors(c, [&](uint32_t d) {
      if (d == target) cycle = true;
      if (mark_[d] != stamp_ && ord_[d] <= upper) {
        mark_[d] = stamp_;
        stack_.push_back(d);
      }
    });
    if (cycle) return true;
  }
  return false;
}

void ChannelOrder::backward(uint32_t from, uint32_t lower) {
  stack_.assign(1, from);
  mark_[from] = stamp_;
  while (!stack_.empty()) {
    const uint32_t c = stack_.back();
    stack_.pop_back();
    bwd_.push_back(c);
    predecessors(c, [&](uint32_t p) {
      if (mark_[p] != stamp_ && ord_[p] >= lower) {
        mark_[p] = stamp_;
        stack_.push_back(p);
      }
    });
  }
}

bool ChannelOrder::add(uint32_t c, uint32_t d, bool* added) {
  const uint32_t at = slot(c, d);
  uint8_t& f = flag_[at];
  if (added) *added = false;
  if (f) return true;
  // Refused since the last removal: still refused (adding only ever closes more cycles), and
  // the search that found the cycle was most of the engine's time on fat trees.
  if (refused_[at] == epoch_) return false;
  const uint32_t lower = ord_[d], upper = ord_[c];
  if (lower < upper) {
    // Pearce-Kelly: what d reaches below c's position must move after what reaches c.
    if (++stamp_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      stamp_ = 1;
    }
    fwd_.clear();
    bwd_.clear();
    if (forward(d, upper, c)) {
      refused_[at] = epoch_;
      return false;
    }
    backward(c, lower);
    const auto by_pos = [&](uint32_t x, uint32_t y) { return ord_[x] < ord_[y]; };
    std::sort(fwd_.begin(), fwd_.end(), by_pos);
    std::sort(bwd_.begin(), bwd_.end(), by_pos);
    pos_.clear();
    for (uint32_t x : bwd_) pos_.push_back(ord_[x]);
    for (uint32_t x : fwd_) pos_.push_back(ord_[x]);
    std::sort(pos_.begin(), pos_.end());
    size_t i = 0;
    for (uint32_t x : bwd_) at_[ord_[x] = pos_[i++]] = x;
    for (uint32_t x : fwd_) at_[ord_[x] = pos_[i++]] = x;
  }
  f = 1;
  ++count_;
  if (added) *added = true;
  return true;
}

}  // namespace routing
